import { lazyTerms, tokenize } from "../text/tokenize.ts";
import type { Lesson } from "./lesson.ts";
import { isLessonType } from "./lesson.ts";
import { REQUIRED_SECTIONS } from "./schema.ts";

// Weak-lesson rules: a title a search cannot find, Evidence that proves nothing. Lint reports them
// as `quality/title` and `quality/evidence` warnings; `rkb review` lists the same lessons.

/**
 * Words that name no tool, error or rule: a title made only of these says nothing. Tokenized on
 * first use, not when the module loads: every search loads this module (through the lesson
 * loader) and tokenizing these words in a fresh process costs ~1 ms.
 */
let genericTerms: Set<string> | undefined;
const genericTerm = (term: string) =>
  (genericTerms ??= new Set(
    tokenize(
      "fix fixed fixes issue issues problem problems note notes todo misc stuff thing things error errors bug bugs lesson tip tips trick works working broken fail failed failure build setup update info general important remember",
    ),
  )).has(term);

const VAGUE_EVIDENCE = /^(?:it\s+)?(?:works?|worked|tested|verified|confirmed|checked|done|yes|ok|okay|true|fixed|trust me|see above|n\/a|none|tbd|todo)\.?$/i;
const MIN_TITLE_TERMS = 2;
const MIN_EVIDENCE_TERMS = 3;

/** Why a lesson's title is too vague to be found, or undefined when it is fine. */
export function titleProblem(lesson: Pick<Lesson, "title">): string | undefined {
  if (!lesson.title) return undefined; // body/title reports a missing title
  // Reads terms until the title is long enough and names something (review checks every lesson).
  let count = 0;
  let specific = false;
  for (const term of lazyTerms(lesson.title)) {
    count++;
    specific ||= !genericTerm(term);
    if (count >= MIN_TITLE_TERMS && specific) return undefined;
  }
  if (count < MIN_TITLE_TERMS)
    return `the title "${lesson.title}" is too short to be found; name the tool, the error or the rule (e.g. "cmake finds the wrong zlib")`;
  return `the title "${lesson.title}" names no tool, error or rule; say what it is about (e.g. "git rebase refuses with unstaged changes")`;
}

/** Why a lesson's Evidence proves nothing, or undefined when it is fine (or the type has no Evidence). */
export function evidenceProblem(lesson: Pick<Lesson, "type" | "sections">): string | undefined {
  return evidenceTextProblem(lesson.type, lesson.sections.get("Evidence"));
}

/** The same from the type and the Evidence text alone (`rkb review` reads them from the search index). */
export function evidenceTextProblem(type: string, evidence: string | undefined): string | undefined {
  if (!isLessonType(type) || !REQUIRED_SECTIONS[type].includes("Evidence")) return undefined;
  if (evidence === undefined) return undefined; // body/headings reports a missing section
  if (VAGUE_EVIDENCE.test(evidence.trim()) || !hasTerms(evidence, MIN_EVIDENCE_TERMS)) {
    return `the Evidence ("${evidence.trim().slice(0, 60)}") does not show how you know; write the command you ran and what it printed, or where you read it`;
  }
  return undefined;
}

function hasTerms(text: string, atLeast: number): boolean {
  let count = 0;
  for (const _ of lazyTerms(text)) if (++count >= atLeast) return true;
  return false;
}
