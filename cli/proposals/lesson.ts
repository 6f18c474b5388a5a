import { sha256Hex } from "../base/hash.ts";
import { itemDraftOf } from "../inbox/draft.ts";
import { draftFix, draftOutcome, draftSymptom, draftTitle, queryLines, topicFor } from "../inbox/from-item.ts";
import { lessonParts } from "../lesson/compose.ts";
import type { YamlValue } from "../lesson/yaml.ts";
import { counted } from "../output/words.ts";
import type { Candidate, FixedFailure } from "./candidates.ts";

// The lesson a candidate becomes: a pitfall written from its earliest fixed occurrence the way
// `rkb add --from` writes one from an inbox draft (the same Symptom and Fix), with its provenance
// (sessions, dates, harnesses, times seen) in the Evidence and in `meta.source`. The sessions show
// the failure and what fixed it, not why it failed: the Cause asks the reviewer.

export interface ProposedLesson {
  topic: string;
  title: string;
  parts: { frontmatter: Record<string, YamlValue>; body: string };
  /** `meta.source`: where the lesson comes from. */
  source: Record<string, string>;
}

export const CAUSE_TO_WRITE =
  "Not in the sessions: they show the failure and the steps that fixed it, not why it failed. Reviewer: write the cause here, or drop this proposal.";

/** Sessions named in a lesson's Evidence; the count covers the rest. */
const NAMED_SESSIONS = 5;

export function proposedLesson(c: Candidate & { fixed: FixedFailure }): ProposedLesson {
  const d = itemDraftOf(c.fixed.draft);
  const topic = topicFor(d.program);
  const title = draftTitle(d);
  const parts = lessonParts({
    type: "pitfall",
    title,
    tags: [topic],
    queries: queryLines(d.keyLines),
    sections: { Symptom: draftSymptom(d), Cause: CAUSE_TO_WRITE, Fix: draftFix(d), Evidence: evidence(c, draftOutcome(d)) },
  });
  // Verified when the fix last worked in a session that shows it: the earliest fixed occurrence.
  const verified = day(c.fixed.draft.worked.time ?? c.fixed.draft.failed.time ?? c.lastSeen);
  if (verified) parts.frontmatter = { ...parts.frontmatter, verified };
  return { topic, title, parts, source: source(c) };
}

function source(c: Candidate & { fixed: FixedFailure }): Record<string, string> {
  return {
    harness: c.harnesses.join(", ") || "unknown",
    session: c.fixed.session,
    proposed_by: "rkb propose",
    signature: c.signature,
    seen: `${counted(c.occurrences, "time")} in ${counted(c.sessions.length, "session")}`,
    ...(c.firstSeen ? { first_seen: day(c.firstSeen)! } : {}),
    ...(c.lastSeen ? { last_seen: day(c.lastSeen)! } : {}),
  };
}

function evidence(c: Candidate & { fixed: FixedFailure }, outcome: string): string {
  const named = c.sessions.slice(0, NAMED_SESSIONS).join(", ");
  const more = c.sessions.length > NAMED_SESSIONS ? ` and ${c.sessions.length - NAMED_SESSIONS} more` : "";
  const first = day(c.firstSeen);
  const last = day(c.lastSeen);
  const when = first && last ? (first === last ? ` on ${first}` : ` between ${first} and ${last}`) : "";
  const harness = c.fixed.harness ? `a ${c.fixed.harness} session` : "a session";
  return [
    `Seen ${counted(c.occurrences, "time")} in ${counted(c.sessions.length, "session")} (${c.harnesses.join(", ") || "unknown harness"})${when}: ${named}${more}.`,
    "",
    `In ${harness} (${c.fixed.session}): ${outcome}`,
  ].join("\n");
}

function day(time: string | undefined): string | undefined {
  return time && /^\d{4}-\d\d-\d\d/.test(time) ? time.slice(0, 10) : undefined;
}

/**
 * The proposal's id, made from its failure's signature so that every run, and every split of the
 * archive, names it alike: the first of a series of hashes that no lesson has and YAML reads as a string.
 */
export function proposalId(signature: string, taken: (id: string) => boolean): string {
  for (let n = 0; ; n++) {
    const id = sha256Hex(`rkb propose ${signature} ${n}`).slice(0, 10);
    if (!/^\d+$/.test(id) && !/^\d+e\d+$/.test(id) && !taken(id)) return id;
  }
}
