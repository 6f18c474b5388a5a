import { RkbError } from "../base/errors.ts";
import { parseLesson, type Lesson } from "../lesson/lesson.ts";
import type { Finding } from "../lesson/finding.ts";
import { isCurrent } from "../lesson/schema.ts";
import { loadKbConfig } from "../lesson/config.ts";
import { findLeaks, leakOptions, type LeakOptions } from "../lint/leak.ts";
import { lintKb } from "../lint/lint.ts";
import { AddLookups, planAdd } from "../plan/changes.ts";
import { lessonSimilarity, similarityTerms } from "../search/similarity.ts";
import { failureOf, type Failure } from "../shell/failure.ts";
import type { Candidate, CandidateSet, FixedFailure } from "./candidates.ts";
import { proposalId, proposedLesson, type ProposedLesson } from "./lesson.ts";
import type { ProposalState } from "./state.ts";

// Which candidates become proposals: a failure fixed in some session, seen in enough sessions, not
// on record (proposed before, merged or declined), that the knowledge base does not answer today (the
// failure rule `eval --replay` uses stays silent, or injects a lesson that is not even related to
// what fixed it), and that is not a near-duplicate (the `dupes` measure) of a lesson or of a
// candidate ranked above it. Ranked by sessions, then times seen: one session's retries are one
// experience, a failure met in many sessions is the one worth a lesson.

/** What the failure rule answers for a failed command: the lesson it would inject, if any. */
export type FailureRule = (failure: Failure) => { lesson?: { id: string; title: string }; reason: string };

export interface ChooseOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  state: ProposalState;
  rule: FailureRule;
  minSessions: number;
  max: number;
  /** The `dupes` threshold (kb.toml [dupes] min_similarity). */
  minSimilarity: number;
}

export interface Proposal {
  candidate: Candidate & { fixed: FixedFailure };
  lesson: ProposedLesson;
  id: string;
  rel: string;
  folder: string;
  text: string;
  /** What the failure rule does with it today. */
  today: { silent: true; reason: string } | { silent: false; lesson: { id: string; title: string } };
}

export type LeftOutReason = "on_record" | "declined" | "answered" | "near_duplicate" | "invalid";

export interface LeftOut {
  signature: string;
  title: string;
  reason: LeftOutReason;
  detail: string;
}

export interface Choice {
  proposals: Proposal[];
  leftOut: LeftOut[];
  /** Failures no session fixed, and fixed ones seen in fewer sessions than asked: counted, not listed. */
  unfixed: number;
  tooFew: number;
  /** Candidates that were not looked at because `max` proposals were found. */
  waiting: number;
}

/**
 * The injected lesson answers the failure when it is at least this similar to what the session did
 * (the `similar` edge of the Rust rkb's graph); below it, the rule is wrong for this failure.
 */
export const ANSWER_SIMILARITY = 0.2;

export function chooseProposals(set: CandidateSet, opts: ChooseOptions): Choice {
  const leftOut: LeftOut[] = [];
  const choice: Choice = { proposals: [], leftOut, unfixed: 0, tooFew: 0, waiting: 0 };
  const onRecord = new Set([...opts.state.ledger.map((e) => e.signature), ...opts.state.lessonSignatures]);
  const declined = new Set(opts.state.ledger.filter((e) => !opts.state.lessonSignatures.has(e.signature)).map((e) => e.signature));
  const ranked: (Candidate & { fixed: FixedFailure })[] = [];
  for (const c of set.candidates) {
    if (!c.fixed) choice.unfixed++;
    else if (c.sessions.length < opts.minSessions) choice.tooFew++;
    else ranked.push(c as Candidate & { fixed: FixedFailure });
  }
  ranked.sort(
    (a, b) =>
      b.sessions.length - a.sessions.length ||
      b.occurrences - a.occurrences ||
      a.fixed.order.localeCompare(b.fixed.order) ||
      (a.signature < b.signature ? -1 : 1),
  );
  const fresh: typeof ranked = [];
  for (const c of ranked) {
    if (!onRecord.has(c.signature)) fresh.push(c);
    else if (declined.has(c.signature))
      choice.leftOut.push({ signature: c.signature, title: c.keyLine, reason: "declined", detail: "proposed before and removed in review" });
    else choice.leftOut.push({ signature: c.signature, title: c.keyLine, reason: "on_record", detail: "proposed before (on the branch or merged)" });
  }

  const lookups = new AddLookups(opts.state.kb, opts.env);
  const drafts = fresh.map((c) => planned(opts, lookups, c));
  // One measure over the lessons and every candidate, so the weights are the same whatever is compared.
  const lessons = opts.state.kb.lessons.filter((l) => isCurrent(l.status));
  const byLesson = new Map<Lesson, number>();
  const candidateLessons = drafts.map((d, i) => {
    if (!d.lesson) return undefined;
    byLesson.set(d.lesson, i);
    return d.lesson;
  });
  const similarity = lessonSimilarity([...lessons, ...candidateLessons.filter((l): l is Lesson => l !== undefined)], opts.state.kb.notes);
  const kept = new Set<number>();
  const chosen: { index: number; today: Proposal["today"] }[] = [];
  for (const [i, c] of fresh.entries()) {
    if (chosen.length >= opts.max) {
      choice.waiting++;
      continue;
    }
    const draft = drafts[i]!;
    if (!draft.lesson) {
      choice.leftOut.push({ signature: c.signature, title: draft.title, reason: "invalid", detail: draft.problem! });
      continue;
    }
    const near = similarity.similarTo(similarityTerms(draft.lesson, opts.state.kb.notes), ANSWER_SIMILARITY).filter((s) => s.item !== draft.lesson);
    // Read as `eval --replay` reads a failed command from a session: the reader took the trailer off.
    const decision = opts.rule(failureOf(c.fixed.command, c.fixed.error, c.fixed.draft.failed.exitCode));
    let today: Proposal["today"] = { silent: true, reason: decision.reason };
    if (decision.lesson) {
      const related = near.find((s) => s.item.id === decision.lesson!.id);
      if (related) {
        choice.leftOut.push({
          signature: c.signature,
          title: draft.title,
          reason: "answered",
          detail: `rkb injects ${decision.lesson.id} "${decision.lesson.title}" for it today (similarity ${related.similarity})`,
        });
        continue;
      }
      today = { silent: false, lesson: decision.lesson };
    }
    const twin = near.find((s) => s.similarity >= opts.minSimilarity && (!byLesson.has(s.item) || kept.has(byLesson.get(s.item)!)));
    if (twin) {
      const of = byLesson.has(twin.item) ? `the proposal "${twin.item.title}"` : `${twin.item.id} "${twin.item.title}" (${twin.item.path})`;
      choice.leftOut.push({
        signature: c.signature,
        title: draft.title,
        reason: "near_duplicate",
        detail: `says much the same as ${of} (similarity ${twin.similarity})`,
      });
      continue;
    }
    kept.add(i);
    chosen.push({ index: i, today });
  }
  choice.proposals = lintClean(opts, lookups, fresh, chosen, leftOut);
  // A failure left out is named by its title only when the title could go in a lesson: what a
  // session kept may still hold a home path or a user name, and the report is kept.
  const leaks = leakOptions(loadKbConfig(opts.root).leak, opts.env);
  const programs = new Map(set.candidates.map((c) => [c.signature, c.program]));
  choice.leftOut = leftOut.map((l) => ({ ...l, title: shownTitle(l, programs.get(l.signature) ?? "", leaks) }));
  return choice;
}

function shownTitle(l: LeftOut, program: string, leaks: LeakOptions): string {
  if (!findLeaks(l.title, leaks).length) return l.title;
  return `a ${program} failure (${l.signature.slice(0, 8)}; its text holds a path or name kept out of reports)`;
}

/** A candidate's lesson as an add would write it (id, folder, file), or why it cannot be one. */
function planned(
  opts: ChooseOptions,
  lookups: AddLookups,
  c: Candidate & { fixed: FixedFailure },
): { title: string; proposed: ProposedLesson; lesson?: Lesson; id?: string; rel?: string; text?: string; folder?: string; problem?: string } {
  const proposed = proposedLesson(c);
  try {
    const id = proposalId(c.signature, (candidate) => lookups.taken(candidate));
    const plan = planAdd(opts.state.kb, { lesson: proposed.parts, topic: proposed.topic, source: proposed.source, env: opts.env, batch: lookups, id });
    const { rel, text } = plan.changes[0]! as { rel: string; text: string };
    return { title: proposed.title, proposed, lesson: parseLesson(text, rel), id, rel, text, folder: rel.slice(0, rel.lastIndexOf("/")) };
  } catch (e) {
    if (!(e instanceof RkbError)) throw e;
    return { title: proposed.title, proposed, problem: e.message };
  }
}

/**
 * The chosen lessons, planned again in rank order so no two take one file name, and linted as the
 * knowledge base would hold them; a lesson with a lint error (a home path a session kept, say) is
 * left out with its first finding.
 */
function lintClean(
  opts: ChooseOptions,
  lookups: AddLookups,
  fresh: (Candidate & { fixed: FixedFailure })[],
  chosen: { index: number; today: Proposal["today"] }[],
  leftOut: LeftOut[],
): Proposal[] {
  const proposals: Proposal[] = [];
  for (const { index, today } of chosen) {
    const p = planned(opts, lookups, fresh[index]!);
    if (!p.lesson) {
      leftOut.push({ signature: fresh[index]!.signature, title: p.title, reason: "invalid", detail: p.problem! });
      continue;
    }
    lookups.planned(p.lesson);
    proposals.push({ candidate: fresh[index]!, lesson: p.proposed, id: p.id!, rel: p.rel!, folder: p.folder!, text: p.text!, today });
  }
  if (!proposals.length) return proposals;
  const overrides = new Map<string, string | null>(proposals.map((p) => [p.rel, p.text]));
  const errors = lintKb(opts.root, { overrides, only: [...overrides.keys()], env: opts.env, nearDuplicates: false }).filter(
    (f) => f.severity === "error" && overrides.has(f.path),
  );
  const firstError = new Map<string, Finding>();
  for (const f of errors) if (!firstError.has(f.path)) firstError.set(f.path, f);
  return proposals.filter((p) => {
    const f = firstError.get(p.rel);
    if (!f) return true;
    // A leak finding quotes what leaked: its rule and line say enough.
    const why = f.rule.startsWith("leak/") ? `line ${f.line ?? "?"} of the lesson` : f.message;
    leftOut.push({ signature: p.candidate.signature, title: p.lesson.title, reason: "invalid", detail: `lint ${f.rule}: ${why}` });
    return false;
  });
}
