import { readFileSync } from "node:fs";
import { join } from "node:path";
import { splitFrontmatter } from "../kb/lesson.ts";
import { keyErrorLines, program, replaceVolatile, stripHarnessTrailer } from "../sessions/bash.ts";
import type { SearchIndex } from "./index.ts";
import { parseQuery } from "./rank.ts";
import { coverage } from "./relevance.ts";
import { injectable, toInjected, type InjectedLesson } from "./recall.ts";
import { openSearch, searchKb, type SearchResult } from "./search.ts";
import { tokenGroups, tokenize } from "./tokenize.ts";
import type { Place, PlaceOptions } from "../kb/place.ts";
import type { UsageCounts } from "../kb/usage.ts";

// What rkb does when a command fails: build a query from the command and its error, search, and
// inject the top lesson only when the error itself is clearly about that lesson: the lesson quotes
// a piece of the error (a phrase of two words or more, or an error code or compound name, in its
// title or its code), its words cover most of one key error line, and its relevance is high and
// clearly ahead of the next lesson's. Lessons quote the errors they are about verbatim; a lesson
// that only uses the same words in its prose is usually about something else. The hook and
// `rkb eval --failures` / `--replay` all decide through `failureDecision`.

/** The query stops before it grows past this many terms: the first key lines say the most. */
const MAX_QUERY_TERMS = 40;

/** The top lesson must cover at least this share of one key error line's distinctive words… */
export const FAILURE_MIN_LINE_COVERAGE = 0.4;
/** …be this relevant to the whole failure query… */
export const FAILURE_MIN_RELEVANCE = 0.35;
/** …and this much more relevant than the next lesson. */
export const FAILURE_MIN_MARGIN = 0.2;

/** A key error line without the parts that only add noise to a query (paths, hex ids, numbers). */
function withoutNoise(line: string): string {
  return replaceVolatile(line, " ").replace(/\s+/g, " ").trim();
}

/** The key lines of an error, cleaned of noise, each once. */
export function failureLines(error: string): string[] {
  const lines = keyErrorLines(stripHarnessTrailer(error).text).map(withoutNoise);
  return [...new Set(lines.filter((l) => tokenize(l).length > 0))];
}

/** The search query for a failed command: its program, then the words of the key error lines. */
export function failureQuery(command: string, error: string): string {
  const words = [program(command)].filter(Boolean);
  let terms = tokenize(words.join(" ")).length;
  for (const line of failureLines(error)) {
    for (const word of line.split(" ")) {
      const n = tokenize(word).length;
      if (terms + n > MAX_QUERY_TERMS) return words.join(" ");
      words.push(word);
      terms += n;
    }
  }
  return words.join(" ");
}

/** The largest share of any one key line's distinctive words that the lesson holds. */
function bestLineCoverage(index: SearchIndex, lines: string[], doc: number, programName: string): number {
  let best = 0;
  for (const line of lines) {
    const query = parseQuery(index, `${programName} ${line}`);
    if (query.words.length < 3) continue; // "error: failed" alone says nothing about which failure
    best = Math.max(best, coverage(index, query, doc));
  }
  return best;
}

/** The lines a lesson quotes: its title, its inline code and its code blocks, cleaned of noise. */
export function quotedLines(index: SearchIndex, doc: number): string[] {
  const lesson = index.lesson(doc);
  const out = [lesson.title];
  let body: string;
  try {
    body = splitFrontmatter(readFileSync(join(index.root, lesson.path), "utf8"), lesson.path).body;
  } catch {
    return out;
  }
  let fenced = false;
  for (const line of body.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    else if (fenced) out.push(line);
    else for (const m of line.matchAll(/`([^`\n]+)`/g)) out.push(m[1]!);
  }
  return out.map(withoutNoise);
}

/** The whole form of each token of a line, in order (stop words dropped, so phrases match across them). */
function termSequence(line: string): string[] {
  return tokenGroups(line).map((g) => g.whole ?? g.parts.join(" "));
}

/**
 * A compound name (`read-only`, `MPI_Init`, `Foo_DIR-NOTFOUND`): specific on its own. A plain file
 * name (`CMakeLists.txt`, `paper.tex`) says where an error is, not which error, so it is not one.
 */
function isCompound(term: string): boolean {
  return /[_:@-]/.test(term) || (term.includes(".") && !/^[^.]+\.[a-z][a-z0-9]{0,3}$/.test(term));
}

/** Severity labels name no failure: "CMake Error", "LaTeX Error" and "fatal: …" start many different ones. */
const SEVERITY = new Set(tokenize("error errors fatal warning failed"));

/**
 * The piece of the error the lesson quotes: two words adjacent in a key line and in a quoted line
 * of the lesson (neither a severity label), or a compound name from a key line. Undefined when it
 * quotes none.
 */
export function quotedPhrase(index: SearchIndex, lines: string[], doc: number): string | undefined {
  const pairs = new Set<string>();
  const specific = new Set<string>();
  for (const quoted of quotedLines(index, doc)) {
    const seq = termSequence(quoted);
    seq.forEach((t, i) => {
      if (isCompound(t)) specific.add(t);
      if (i > 0 && !SEVERITY.has(t) && !SEVERITY.has(seq[i - 1]!)) pairs.add(`${seq[i - 1]} ${t}`);
    });
  }
  for (const line of lines) {
    const seq = termSequence(line);
    for (let i = 0; i < seq.length; i++) {
      if (specific.has(seq[i]!)) return seq[i];
      if (i > 0 && pairs.has(`${seq[i - 1]} ${seq[i]}`)) return `${seq[i - 1]} ${seq[i]}`;
    }
  }
  return undefined;
}

export interface FailureDecision {
  query: string;
  lesson?: InjectedLesson;
  reason: string;
}

/** The inject-or-not rule for a failed command, on a search already run with its failure query. */
function failureDecision(index: SearchIndex, result: SearchResult, command: string, error: string): FailureDecision {
  const top = result.hits[0];
  const gate = injectable(top);
  if (!top || gate) return { query: result.query, reason: gate ?? "no lesson matches the error" };
  const relevance = top.relevance ?? 0;
  const doc = top.doc;
  const lines = failureLines(error);
  const phrase = quotedPhrase(index, lines, doc);
  if (!phrase) return { query: result.query, reason: `${top.lesson.id} quotes no part of the error` };
  const lineCoverage = bestLineCoverage(index, lines, doc, program(command));
  if (lineCoverage < FAILURE_MIN_LINE_COVERAGE) {
    return { query: result.query, reason: `the best lesson covers ${lineCoverage.toFixed(2)} of any error line (needs ${FAILURE_MIN_LINE_COVERAGE})` };
  }
  if (relevance < FAILURE_MIN_RELEVANCE) return { query: result.query, reason: `relevance ${relevance.toFixed(2)} is below ${FAILURE_MIN_RELEVANCE}` };
  const margin = relevance - (result.hits[1]?.relevance ?? 0);
  if (margin < FAILURE_MIN_MARGIN) return { query: result.query, reason: `${top.lesson.id} leads the next lesson by only ${margin.toFixed(2)}` };
  return { query: result.query, lesson: toInjected(top), reason: `quotes \"${phrase}\", covers ${lineCoverage.toFixed(2)} of an error line, relevance ${relevance.toFixed(2)}` };
}

/** Searches for a failure from a known place (used by eval, which holds the index already). */
export function decideFailureIn(index: SearchIndex, place: Place, usage: Map<string, UsageCounts>, command: string, error: string): FailureDecision {
  const query = failureQuery(command, error);
  if (!tokenize(query).length) return { query, reason: "the error has no words to search for" };
  const result = searchKb({ index, query, place, limit: 2, usage });
  return failureDecision(index, result, command, error);
}

export async function decideFailureInjection(input: { command: string; error: string; cwd: string; env: NodeJS.ProcessEnv; place?: PlaceOptions }): Promise<FailureDecision> {
  const { index, place, usage } = openSearch(input.env, input.cwd, input.place ?? { with: {} });
  return decideFailureIn(index, place, usage, input.command, input.error);
}
