import { counted } from "../output/words.ts";
import type { KbConfig } from "../lesson/config.ts";
import { evidenceTextProblem, titleProblem } from "../lesson/quality.ts";
import { isCurrent } from "../lesson/schema.ts";
import type { UsageCounts } from "./usage.ts";

// `rkb review`: the current lessons that need a person's eye, each with its reasons. Read-only; one
// pass over the lessons and the use records, so it stays linear in the size of the knowledge base.
// It reads lessons as the search index holds them, so a review reads no lesson file while the
// cached index is current.

export type ReviewKind =
  | "flagged"
  | "not_verified"
  | "failed_more_than_worked"
  | "never_helped"
  | "often_irrelevant"
  | "unused"
  | "missing_evidence"
  | "vague_title";

export interface ReviewReason {
  kind: ReviewKind;
  detail: string;
}

/** What review reads of a lesson: all of it in the search index (`IndexedLesson`). */
export interface ReviewedLesson {
  id: string;
  type: string;
  status: string;
  title: string;
  path: string;
  verified: string;
  /** `stale_reason`, when the lesson was flagged with one. */
  staleReason?: string;
  /** The Evidence section's text, when the lesson has one. */
  evidence?: string;
}

export interface ReviewCandidate<L extends ReviewedLesson = ReviewedLesson> {
  lesson: L;
  reasons: ReviewReason[];
  counts?: UsageCounts;
}

/** Injections without a single report that the lesson helped, before review calls it unhelpful. */
const NEVER_HELPED_INJECTIONS = 5;
/** "Not relevant" reports that, outnumbering the helpful ones, say the lesson shows up where it should not. */
const OFTEN_IRRELEVANT = 3;
const DAY_MS = 86_400_000;

export function reviewReasons(lesson: ReviewedLesson, counts: UsageCounts | undefined, config: Pick<KbConfig, "review">, now: Date): ReviewReason[] {
  const reasons: ReviewReason[] = [];
  const daysSince = (date: string) => Math.floor((now.getTime() - Date.parse(date)) / DAY_MS);
  if (lesson.status === "stale") {
    reasons.push({ kind: "flagged", detail: lesson.staleReason ? `stale: ${lesson.staleReason}` : "stale, no reason given" });
  }
  const verifiedDays = lesson.verified ? daysSince(lesson.verified) : NaN;
  if (verifiedDays > config.review.staleDays) {
    reasons.push({
      kind: "not_verified",
      detail: `last verified ${lesson.verified}, ${counted(verifiedDays, "day")} ago (more than [review] stale_days = ${config.review.staleDays})`,
    });
  }
  const c = counts ?? { worked: 0, failed: 0, injected: 0, inferred: 0, irrelevant: 0 };
  const helped = c.worked + c.inferred;
  if (c.failed > c.worked) reasons.push({ kind: "failed_more_than_worked", detail: `reported failed ${c.failed} times, worked ${c.worked}` });
  if (c.injected >= NEVER_HELPED_INJECTIONS && helped === 0)
    reasons.push({ kind: "never_helped", detail: `injected ${c.injected} times, never reported to help` });
  if (c.irrelevant >= OFTEN_IRRELEVANT && c.irrelevant >= helped)
    reasons.push({ kind: "often_irrelevant", detail: `reported irrelevant ${c.irrelevant} times, helpful ${helped}` });
  const lastSeenDays = c.lastSeen ? daysSince(c.lastSeen) : Infinity;
  if (verifiedDays > config.review.unusedDays && lastSeenDays > config.review.unusedDays) {
    const months = Math.round(config.review.unusedDays / 30);
    reasons.push({
      kind: "unused",
      detail: c.lastSeen
        ? `not injected or used since ${c.lastSeen.slice(0, 10)} (${months} months or more)`
        : `never injected or used, verified ${counted(verifiedDays, "day")} ago`,
    });
  }
  const evidence = evidenceTextProblem(lesson.type, lesson.evidence);
  if (evidence) reasons.push({ kind: "missing_evidence", detail: evidence });
  const title = titleProblem(lesson);
  if (title) reasons.push({ kind: "vague_title", detail: title });
  return reasons;
}

/** Current lessons with at least one reason, those with the most reasons first (ties by path). */
export function reviewCandidates<L extends ReviewedLesson>(
  lessons: L[],
  usage: Map<string, UsageCounts>,
  config: Pick<KbConfig, "review">,
  now = new Date(),
): ReviewCandidate<L>[] {
  const out: ReviewCandidate<L>[] = [];
  for (const lesson of lessons) {
    if (!isCurrent(lesson.status)) continue;
    const counts = usage.get(lesson.id);
    const reasons = reviewReasons(lesson, counts, config, now);
    if (reasons.length) out.push({ lesson, reasons, counts });
  }
  return out.sort((a, b) => b.reasons.length - a.reasons.length || (a.lesson.path < b.lesson.path ? -1 : 1));
}
