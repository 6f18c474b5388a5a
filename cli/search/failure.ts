import type { UsageCounts } from "../kb/usage.ts";
import type { SearchIndex } from "../kb/index.ts";
import type { Place, PlaceOptions } from "../place/place.ts";
import { ERRNO } from "../shell/errno.ts";
import type { Failure } from "../shell/failure.ts";
import { tokenize } from "../text/tokenize.ts";
import { type FailureEvidence, failureEvidence, GENERIC_LESSONS, thresholds } from "./evidence.ts";
import { learnedHit } from "./learned.ts";
import { injectable, toInjected, type InjectedLesson } from "./recall.ts";
import { openSearch, searchKb, type SearchHit } from "./search.ts";

// What rkb does when a command fails: build a query from the failure (shell/failure.ts, read once
// from the command and its error), search, and inject a lesson only when the error itself is
// clearly what that lesson is about (evidence.ts weighs it): the lesson quotes a key line as a
// phrase, in order, and most of its quote is in the error; the frame they share is filled with the
// same specifics (another version, package, kind, algorithm, module or reason is another error, the
// names of this run are not); nothing else the lesson shows as its symptom is said otherwise in the
// output; both start from the same error; an error code names one error; the lesson is about the
// failing program (not another of its family); a frame many lessons of several programs quote
// carries no injection alone. Of the first few search results, the lesson with the strongest quote
// wins. The hook, `rkb eval --failures` / `--replay` and `--explain` all decide through
// `decideFailureIn`.

/** The query stops before it grows past this many terms: the first key lines say the most. */
const MAX_QUERY_TERMS = 40;
/** Search results the rule weighs: the lesson that quotes the error best is often not the first. */
const CANDIDATES = 3;

/** The search query for a failed command: its program, then the words of the key error lines. */
export function failureQuery(failure: Failure): string {
  const words = [failure.program].filter(Boolean);
  let terms = tokenize(words.join(" ")).length;
  for (const line of failure.lines) {
    for (const word of line.split(" ")) {
      const n = tokenize(word).length;
      if (terms + n > MAX_QUERY_TERMS) return words.join(" ");
      words.push(word);
      terms += n;
    }
  }
  return words.join(" ");
}

/** Why the evidence does not make the lesson injectable (undefined: it does). */
export function failureVeto(e: FailureEvidence): string | undefined {
  const said = (words: string[]) => `"${words.join(" ")}"`;
  if (e.titled) return `${e.id} is about ${e.titled}, which the error does not say`;
  if (e.applied) return `the command already sets ${e.applied}, as ${e.id}'s fix does`;
  if (e.optedOut) return `the command turns off what ${e.id} is about (${e.optedOut})`;
  if (e.family) return `${e.id} is about ${e.family.lesson}, the failure is ${e.family.failure}'s (it never names ${e.family.failure})`;
  if (e.firstLines)
    return `the error starts with "${clip(e.firstLines.failure, 60)}", which ${e.id} does not quote, and ${e.id}'s "${clip(e.firstLines.lesson, 60)}" is not in the error`;
  if (e.goesOn)
    return `the error goes on "${clip(e.goesOn.failure, 60)}" where ${e.id} goes on "${clip(e.goesOn.lesson, 60)}": the same line in another message`;
  if (e.contradiction) {
    const c = e.contradiction;
    return `the error says ${said(c.failure)} where ${e.id} quotes ${said(c.lesson)} (${c.differs}: "${clip(c.line, 60)}" against "${clip(c.quote, 60)}")`;
  }
  if (e.specifics && e.specifics.frame.length < 2 && !e.codes.shared.length)
    return `${e.id} shares only ${said(e.specifics.frame)} with the error: one name is no quote of it`;
  const d = e.specifics?.differs;
  if (d)
    return `the error says ${said(d.failure)} where ${e.id} quotes ${said(d.lesson)} after ${said(e.specifics!.frame)}: the same message about something else`;
  // An errno is the system's verdict, which any program reports for countless causes: shared, it is a word of the frame, never the quote's stand-in.
  if (e.codes.shared.some((c) => !ERRNO.has(c))) return undefined;
  if (e.codes.failure.length && e.codes.lesson.length && !e.codes.shared.length)
    return `${e.id} quotes error code ${e.codes.lesson.join(", ")}, the failure has ${e.codes.failure.join(", ")}`;
  if (!e.quoted.length) return `${e.id} quotes no part of the error`;
  if (e.otherSpeaker) return `${e.id} quotes what ${e.otherSpeaker} prints, the failure is ${e.programs.join(" or ")}'s`;
  const other = e.programMatch === false;
  const { minQuoted, minFound } = thresholds(other);
  const about = other ? ` (it never names ${e.programs.join(" or ")})` : "";
  if (e.quotedShare < minQuoted && e.whole !== "quote") return `${e.id} quotes ${e.quotedShare.toFixed(2)} of an error line, needs ${minQuoted}${about}`;
  if (e.foundShare < minFound && e.whole !== "line") return `the error holds ${e.foundShare.toFixed(2)} of what ${e.id} quotes, needs ${minFound}${about}`;
  // A frame many lessons of several programs quote says what went wrong, not to which program's lesson: it carries no injection alone.
  if (e.spread && e.spread.lessons >= GENERIC_LESSONS && e.spread.folders >= 2 && e.programMatch !== true)
    return `${said(e.quoted)} is quoted by ${e.spread.lessons} lessons in ${e.spread.folders} folders, and ${e.id} never names ${e.programs.join(" or ")}`;
  return undefined;
}

/** Error text shown in a reason: short, on one line. */
function clip(text: string, max = 80): string {
  return text.length <= max ? text : text.slice(0, max - 1).trimEnd() + "…";
}

/** The reason a lesson is injected, in one line: what it quotes and how much. */
function injectReason(e: FailureEvidence): string {
  const said = [];
  if (e.codes.shared.length) said.push(`shares error code ${e.codes.shared.map((c) => c.toUpperCase()).join(", ")}`);
  if (e.line) said.push(`quotes ${Math.round(e.quotedShare * 100)}% of the error line "${clip(e.line)}"`);
  return said.join(" and ") + (e.namedProgram ? ` and names ${e.namedProgram}` : e.filedWith ? ` and is filed with ${e.filedWith.program}'s lessons` : "");
}

/** The frame and the specifics of the best line, for people: `frame "…"; the error's "…" for the lesson's "…" (a name of this run)`. */
function specificsLine(e: FailureEvidence): string | undefined {
  if (!e.specifics?.frame.length) return undefined;
  const slots = e.specifics.slots.map((s) => `"${s.failure.join(" ")}" for "${s.lesson.join(" ")}" (${s.tolerated ?? `another specific: ${s.differs}`})`);
  return [`frame "${e.specifics.frame.join(" ")}"`, ...(slots.length ? [`specifics ${slots.join(", ")}`] : [])].join(", ");
}

/** The evidence for one lesson in one line, for people. */
export function failureEvidenceLine(e: FailureEvidence): string {
  const parts = [`relevance ${e.relevance.toFixed(2)}`];
  if (e.quoted.length)
    parts.push(`quotes ${Math.round(e.quotedShare * 100)}% of "${e.line}" as "${e.quote}"; the error holds ${Math.round(e.foundShare * 100)}% of that quote`);
  else parts.push("quotes no part of the error");
  const specifics = specificsLine(e);
  if (specifics) parts.push(specifics);
  if (e.codes.failure.length || e.codes.lesson.length)
    parts.push(`codes: error ${e.codes.failure.join(", ") || "none"}, lesson ${e.codes.lesson.join(", ") || "none"}`);
  parts.push(
    e.programMatch === undefined
      ? `${e.programs.join(", ")} unknown to the knowledge base`
      : e.namedProgram
        ? `names ${e.namedProgram}`
        : e.filedWith
          ? `filed in ${e.filedWith.folder} with ${e.filedWith.program}'s lessons`
          : `never names ${e.programs.join(" or ")}`,
  );
  const veto = failureVeto(e);
  parts.push(veto ? `not injectable: ${veto}` : "injectable");
  return parts.join("; ");
}

export interface FailureDecision {
  query: string;
  lesson?: InjectedLesson;
  reason: string;
  /** The evidence for each lesson weighed, in search order. */
  candidates: FailureEvidence[];
}

/** Searches for a failure from a known place and decides whether to inject a lesson. */
export function decideFailureIn(index: SearchIndex, place: Place, usage: Map<string, UsageCounts>, failure: Failure): FailureDecision {
  const query = failureQuery(failure);
  if (!tokenize(query).length) return { query, reason: "the error has no words to search for", candidates: [] };
  const result = searchKb({ index, query, place, limit: CANDIDATES, usage });
  const lines = failure.lines;
  // A lesson learned from this very failure (one of its queries is the key line) is injected outright.
  const learned = learnedHit(
    index,
    result.hits.filter((h) => !injectable(h)),
    lines,
  );
  if (learned) {
    const evidence = result.hits.map((h) => failureEvidence(index, h, failure));
    return {
      query,
      lesson: toInjected(learned.hit),
      reason: `${learned.hit.lesson.id} was learned from this error (query "${learned.query}")`,
      candidates: evidence,
    };
  }
  const candidates: FailureEvidence[] = [];
  let chosen: { hit: SearchHit; evidence: FailureEvidence; score: number } | undefined;
  let firstReason: string | undefined;
  for (const hit of result.hits) {
    const evidence = failureEvidence(index, hit, failure);
    candidates.push(evidence);
    const veto = injectable(hit) ?? failureVeto(evidence);
    firstReason ??= veto;
    if (veto) continue;
    const score = evidence.quotedShare + evidence.foundShare + (evidence.codes.shared.length ? 1 : 0);
    if (!chosen || score > chosen.score) chosen = { hit, evidence, score };
  }
  if (!chosen) return { query, reason: firstReason ?? "no lesson matches the error", candidates };
  return { query, lesson: toInjected(chosen.hit), reason: injectReason(chosen.evidence), candidates };
}

export async function decideFailureInjection(input: { failure: Failure; cwd: string; env: NodeJS.ProcessEnv; place?: PlaceOptions }): Promise<FailureDecision> {
  const { index, place, usage } = openSearch(input.env, input.cwd, input.place ?? { with: {} });
  return decideFailureIn(index, place, usage, input.failure);
}
