import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseLesson } from "../lesson/lesson.ts";
import type { Place, PlaceOptions } from "../place/place.ts";
import type { UsageCounts } from "../kb/usage.ts";
import { errorCodes, joinWrapped, lineSpeaker, plainQuotes, SEVERITY, withoutNoise, type Failure } from "../shell/failure.ts";
import type { SearchIndex } from "../kb/index.ts";
import { docFrequency, termFrequency } from "../kb/lookup.ts";
import { learnedHit } from "./learned.ts";
import { idf } from "./rank.ts";
import { injectable, toInjected, type InjectedLesson } from "./recall.ts";
import { openSearch, searchKb, type SearchHit } from "./search.ts";
import { tokenGroups, tokenize } from "../text/tokenize.ts";

// What rkb does when a command fails: build a query from the failure (shell/failure.ts, read once
// from the command and its error), search, and inject a lesson only when the error itself is
// clearly what that lesson is about. Lessons quote
// the errors they are about verbatim, so the evidence is the quote, not shared vocabulary:
// - the lesson quotes most of one key error line (runs of two or more words in the same order, or
//   a compound name), and most of its quoted line is in the error: a lesson whose long quote only
//   shares "Permission denied (publickey)" with the error is about another failure;
// - an error code names one error: a failure with codes and a lesson quoting only other codes are
//   two different errors of the same tool (`npm ERR! code E404` vs `ERESOLVE`);
// - the program: a lesson that never names the failing program is a near miss (nginx's lesson for
//   apache, npm's for pnpm) unless its quote is nearly the whole error line;
// - program names and severity labels ("npm ERR!", "nginx: [emerg]", "fatal:") start every error of
//   a tool, so they are no evidence of which error it is;
// - the same frame with another detail is another error: where the quote and an error line share a
//   frame but the error has a rare word the quote lacks and the quote, in the same place, a word of
//   its title the error lacks ("Peer" against "password authentication failed"), or a quoted line
//   that the lesson's subject program prints while the failure is another's (nginx's bind error
//   for httpd). Words many lessons use are boilerplate, and names of the run (hosts, files, quoted
//   arguments) differ between two runs of one error, so neither counts as a detail.
// Of the first few search results, the lesson with the strongest quote wins. The hook,
// `rkb eval --failures` / `--replay` and `--explain` all decide through `decideFailureIn`.

/** The query stops before it grows past this many terms: the first key lines say the most. */
const MAX_QUERY_TERMS = 40;
/** Search results the rule weighs: the lesson that quotes the error best is often not the first. */
const CANDIDATES = 3;
/** What a word inside quotes in an error line (`No module named 'yaml'`) counts: it is usually the argument of this one run, not the error. */
const ARGUMENT_WEIGHT = 0.25;
/** The lesson must quote at least this share of the key line's distinctive weight… */
export const FAILURE_MIN_QUOTED = 0.4;
/** …and the error must hold at least this share of the lesson's quoted line. */
export const FAILURE_MIN_QUOTE_FOUND = 0.4;
/** A lesson that does not name the failing program needs nearly the whole line and quote. */
export const FAILURE_MIN_QUOTED_OTHER_PROGRAM = 0.7;
export const FAILURE_MIN_QUOTE_FOUND_OTHER_PROGRAM = 0.7;
/** Key lines and words per line the rule reads: an error of any size is judged in bounded time. */
const MAX_KEY_LINES = 12;
const MAX_LINE_TERMS = 40;

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

const isFileName = (term: string) => term.includes(".") && !isCompound(term);

/** System error names (POSIX errno, and getaddrinfo's as Node prints it): every program that touches a file, port or host reports them. */
const ERRNO = new Set(
  "eacces eaddrinuse eaddrnotavail eagain ebusy econnrefused econnreset eexist ehostunreach einval eio eisdir eloop emfile enametoolong enetunreach enfile enoent enomem enospc enotdir enotempty enotfound eperm epipe erofs etimedout exdev".split(
    " ",
  ),
);

/** The index terms a program name may appear as: `CMake` and `cmake` index differently (a compound keeps its whole form, a word is stemmed). */
function programTerms(name: string): string[] {
  const g = tokenGroups(name)[0];
  return [...new Set([g?.whole, g?.parts[0], name].filter((t): t is string => Boolean(t) && !SEVERITY.has(t!)))];
}

/**
 * A program's term, or the family its name starts with (`mpi` for mpirun, `gradle` for gradlew,
 * `python` for python3: at least three letters, at most three left over), that `has` accepts.
 */
function programFamily(name: string, has: (term: string) => boolean): boolean {
  for (const p of programTerms(name)) {
    for (let n = Math.min(p.length, Math.max(3, p.length - 3)); n <= p.length; n++) if (has(p.slice(0, n))) return true;
  }
  return false;
}

const folderOf = (index: SearchIndex, doc: number) => dirname(index.lesson(doc).path);

/** Lessons that must name a program before the folder most of them share says where it belongs. */
const HOME_MIN_LESSONS = 2;
const homes = new WeakMap<SearchIndex, Map<string, string | undefined>>();

/**
 * The folder where the knowledge base files a program's lessons: the one holding more than half of
 * the lessons that name it (`psql` → postgres, `kubectl` → kubernetes). A lesson filed there is
 * about that program's family, as one that names it is, even when it names the server or the
 * language instead (PostgreSQL's "too many clients" printed by psql).
 */
function homeFolder(index: SearchIndex, name: string): string | undefined {
  const known = homes.get(index) ?? new Map<string, string | undefined>();
  homes.set(index, known);
  if (known.has(name)) return known.get(name);
  const counts = new Map<string, number>();
  let naming = 0;
  const terms = programTerms(name);
  // Most programs are named by no lesson or by one: no need to visit every lesson for them.
  const enough = terms.reduce((n, t) => n + docFrequency(index, t), 0) >= HOME_MIN_LESSONS;
  for (let doc = 0; enough && doc < index.size; doc++) {
    if (!terms.some((t) => termFrequency(index, t, doc) > 0)) continue;
    naming++;
    const folder = folderOf(index, doc);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  let home: string | undefined;
  for (const [folder, n] of counts) if (naming >= HOME_MIN_LESSONS && n * 2 > naming) home = folder;
  known.set(name, home);
  return home;
}

/** A lesson's title, the lines it quotes as written (its queries, inline code and code blocks), and both cleaned of noise. */
function lessonQuotes(index: SearchIndex, doc: number): { title: string; raw: string[]; quotes: string[] } {
  const lesson = index.lesson(doc);
  const raw: string[] = [];
  let body = "";
  try {
    const parsed = parseLesson(readFileSync(join(index.root, lesson.path), "utf8"), lesson.path);
    body = parsed.body;
    // Its example queries say which errors it answers, as its quotes do.
    raw.push(...parsed.queries);
  } catch {
    // A lesson removed or broken since the index was built quotes nothing.
  }
  // A quoted block is read as an error is (failureText): its wrapped sentences joined.
  let block: string[] | undefined;
  for (const line of body.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) {
      if (block) raw.push(...joinWrapped(block));
      block = block ? undefined : [];
    } else if (block) block.push(line);
    else for (const m of line.matchAll(/`([^`\n]+)`/g)) raw.push(m[1]!);
  }
  if (block) raw.push(...joinWrapped(block));
  const plain = raw.map(plainQuotes);
  return { title: lesson.title, raw: plain, quotes: plain.map(withoutNoise) };
}

/**
 * Positions of `key` covered by a run of two or more terms that `quote` has in the same order, by a
 * compound both hold, or by a word of `variants` (what the lesson quotes anywhere) standing between
 * two that match where the quote has another word.
 */
function quotedPositions(key: string[], quote: string[], variants?: Set<string>): Set<number> {
  const covered = new Set<number>();
  const quoteTerms = new Set(quote);
  let prev = new Uint16Array(quote.length + 1);
  for (let i = 0; i < key.length; i++) {
    const cur = new Uint16Array(quote.length + 1);
    for (let j = 0; j < quote.length; j++) {
      if (key[i] !== quote[j]) continue;
      const run = (cur[j + 1] = prev[j]! + 1);
      if (run >= 2) for (let k = i - run + 1; k <= i; k++) covered.add(k);
    }
    if (isCompound(key[i]!) && quoteTerms.has(key[i]!)) covered.add(i);
    prev = cur;
  }
  // The lesson's own variant: one word between two that match, which the lesson quotes elsewhere ("Invalid count argument" with `for_each` in its cause).
  if (variants)
    for (let i = 1; i + 1 < key.length; i++) {
      if (covered.has(i) || !variants.has(key[i]!)) continue;
      for (let j = 1; j + 1 < quote.length; j++)
        if (key[i - 1] === quote[j - 1] && key[i + 1] === quote[j + 1]) for (let k = i - 1; k <= i + 1; k++) covered.add(k);
    }
  return covered;
}

/**
 * Pairs of positions (key line, quote) where both say the same in the same order: the terms of the
 * runs `quotedPositions` finds, taken in order so that each pair follows the one before in both.
 */
function anchors(key: string[], quote: string[]): [number, number][] {
  const covered = quotedPositions(key, quote);
  const out: [number, number][] = [];
  let lastJ = -1;
  for (let i = 0; i < key.length; i++) {
    if (!covered.has(i)) continue;
    const j = quote.indexOf(key[i]!, lastJ + 1);
    if (j < 0) continue;
    out.push([i, j]);
    lastJ = j;
  }
  return out;
}

/** A word counts as a detail only if at least this share of a one-lesson word's weight: words many lessons use are boilerplate. */
const DETAIL_MIN_RARITY = 0.5;

/**
 * A word that tells one error from another of the same frame: a message word rare in this
 * knowledge base. Not a name of this run (a host `db2`, an address, a file, a quoted argument),
 * which differs between two runs of the same error.
 */
function isDetailWord(index: SearchIndex, words: LineWords, i: number): boolean {
  const t = words.terms[i]!;
  if (words.arguments[i] || /[\d./@:]/.test(t) || t.length < 3) return false;
  return weightOf(index, t) >= DETAIL_MIN_RARITY * idf(index, 1);
}

/**
 * The detail where the lesson's quote and the error line differ inside a shared frame: between two
 * places where they say the same (or before the first, after the last), the error has a distinctive
 * word the lesson never quotes and the quote has one the error lacks — "Peer authentication failed"
 * against "password authentication failed", "Permission denied (publickey)" against "Connection
 * timed out" in the same ansible UNREACHABLE line. A word the error puts in the slot that names the
 * failing program (`'mvn' is not recognized…` against the lesson's `'python' …`) is such a detail too.
 */
function differentDetail(
  index: SearchIndex,
  key: LineWords,
  quote: LineWords,
  lesson: { quoteTerms: Set<string>; titleTerms: Set<string> },
  errorTerms: Set<string>,
  programTerms: Set<string>,
): { error: string; lesson: string } | undefined {
  const pairs = anchors(key.terms, quote.terms);
  if (!pairs.length) return undefined;
  const bounds: [number, number][] = [[-1, -1], ...pairs, [key.terms.length, quote.terms.length]];
  for (let n = 1; n < bounds.length; n++) {
    const [i0, j0] = bounds[n - 1]!;
    const [i1, j1] = bounds[n]!;
    let errorWord: string | undefined;
    for (let i = i0 + 1; i < i1 && !errorWord; i++) {
      const t = key.terms[i]!;
      if (!lesson.quoteTerms.has(t) && (isDetailWord(index, key, i) || programTerms.has(t))) errorWord = t;
    }
    if (!errorWord) continue;
    for (let j = j0 + 1; j < j1; j++) {
      const t = quote.terms[j]!;
      if (errorTerms.has(t) || !lesson.titleTerms.has(t)) continue;
      if (isDetailWord(index, quote, j) || (programTerms.has(errorWord) && quote.arguments[j])) return { error: errorWord, lesson: t };
    }
  }
  return undefined;
}

/** Whether two program names are one program or one family (`python` and `python3`, `gradle` and `gradlew`). */
function sameProgram(a: string, b: string): boolean {
  return programFamily(a, (t) => t === b || programTerms(b).includes(t)) || programFamily(b, (t) => t === a || programTerms(a).includes(t));
}

/** The evidence that a lesson is about a failure: what the rule weighs and `--explain` shows. */
export interface FailureEvidence {
  id: string;
  relevance: number;
  /** The key error line the lesson quotes best, and the lesson's line that quotes it. */
  line?: string;
  quote?: string;
  /** The words of that line the lesson quotes (program names and severity labels left out). */
  quoted: string[];
  /** Their share of the line's distinctive weight (0..1). */
  quotedShare: number;
  /** The share of the quote's own distinctive weight that the error holds (0..1). */
  foundShare: number;
  /** Error codes of the failure and of the lesson's quotes; the ones both have. */
  codes: { failure: string[]; lesson: string[]; shared: string[] };
  /** The failure's programs (the command's, and the names that start its error lines). */
  programs: string[];
  /** Whether the lesson names one of them (absent: the knowledge base names none of them, so it tells nothing), and which. */
  programMatch?: boolean;
  namedProgram?: string;
  /** When it names none: the program whose lessons the knowledge base files in the lesson's folder. */
  filedWith?: { program: string; folder: string };
  /** The program the lesson's quoted line comes from, when the failure is not that program's. */
  otherSpeaker?: string;
  /** Where the quote and the error line share a frame but differ: the error's word and the lesson's in that place. */
  detail?: { error: string; lesson: string };
}

/** How distinctive a term is in this knowledge base: its IDF, a term no lesson uses counting as the rarest. */
function weightOf(index: SearchIndex, term: string): number {
  return idf(index, Math.max(docFrequency(index, term), 1));
}

const round = (x: number) => Math.round(x * 100) / 100;

/** A line's words beyond program names and severity labels, each with its weight in this knowledge base. */
interface LineWords {
  terms: string[];
  weights: number[];
  /** Whether each word is a quoted argument or a file name: what this run was about, not which error it is. */
  arguments: boolean[];
}

/**
 * Quoted names in a line (`'yaml'`, `"users"`, `` `tokens' ``): an opening quote after a space,
 * colon or parenthesis, up to its closing one, with at most three words between (a longer quoted
 * stretch is a message, as in JSON output, not a name).
 */
const QUOTED = /(?<=^|[\s(:=])(['"`])([^'"`\s]*(?:\s+[^'"`\s]+){0,2})(?:\1|')(?=$|[\s),.:;!])/g;

function lineWords(index: SearchIndex, line: string, skip: Set<string>): LineWords {
  const terms: string[] = [];
  const weights: number[] = [];
  const args: boolean[] = [];
  const add = (text: string, argument: boolean) => {
    for (const t of termSequence(text)) {
      if (skip.has(t) || terms.length >= MAX_LINE_TERMS) continue;
      terms.push(t);
      // A file name says where an error is, a quoted word what it is about this time: neither which error it is.
      const plain = argument || isFileName(t);
      weights.push(weightOf(index, t) * (plain ? ARGUMENT_WEIGHT : 1));
      args.push(plain);
    }
  };
  let at = 0;
  for (const m of line.matchAll(QUOTED)) {
    add(line.slice(at, m.index), false);
    add(m[2]!, true);
    at = m.index + m[0].length;
  }
  add(line.slice(at), false);
  return { terms, weights, arguments: args };
}

/** The weight of the words at some positions of a line. */
function weightAt(words: LineWords, positions: Iterable<number>): number {
  let n = 0;
  for (const i of positions) n += words.weights[i]!;
  return n;
}

/** The weight of a line's distinct words (only those in `among`, when given). */
function distinctWeight(words: LineWords, among?: Set<string>): number {
  const seen = new Map<string, number>();
  words.terms.forEach((t, i) => {
    if (!among || among.has(t)) seen.set(t, Math.max(seen.get(t) ?? 0, words.weights[i]!));
  });
  let n = 0;
  for (const w of seen.values()) n += w;
  return n;
}

/** The evidence for one lesson against a failure. */
export function failureEvidence(index: SearchIndex, hit: SearchHit, failure: Failure): FailureEvidence {
  const { text, programs, lines } = failure;
  const skip = new Set([...SEVERITY, ...programs.flatMap(programTerms)]);
  const { title, raw, quotes } = lessonQuotes(index, hit.doc);
  const quoteWords = quotes.map((q) => lineWords(index, q, skip));
  const quotedTerms = new Set(quoteWords.flatMap((q) => q.terms));
  const known = programs.filter((p) => programFamily(p, (t) => docFrequency(index, t) > 0));
  const named = known.find((p) => programFamily(p, (t) => termFrequency(index, t, hit.doc) > 0));
  const filedWith = named ? undefined : known.find((p) => homeFolder(index, p) === folderOf(index, hit.doc));
  const { minQuoted, minFound } = thresholds(known.length > 0 && named === undefined && filedWith === undefined);
  /** Every key line with a quote that shares most of it: a frame the two may fill differently. */
  const framed: [string, number][] = [];
  // The pair of key line and quote that says the most, among those that say enough when there are such.
  let best = { passes: false, score: 0, quoted: 0, found: 0, line: "", quote: "", raw: "", words: [] as string[] };
  for (const line of lines.slice(0, MAX_KEY_LINES)) {
    const key = lineWords(index, line, skip);
    const total = weightAt(key, key.terms.keys());
    if (!total) continue;
    quoteWords.forEach((q, qi) => {
      const covered = [...quotedPositions(key.terms, q.terms, quotedTerms)].sort((a, b) => a - b);
      if (!covered.length) return;
      // A quoted word is discounted as the name of this run; one the lesson quotes too is part of the error ('start-limit-hit').
      let restored = 0;
      for (const i of covered) if (key.arguments[i] && !isFileName(key.terms[i]!)) restored += weightOf(index, key.terms[i]!) - key.weights[i]!;
      const quoted = (weightAt(key, covered) + restored) / (total + restored);
      const held = new Set(covered.map((i) => key.terms[i]!));
      const quoteTotal = distinctWeight(q);
      const found = quoteTotal ? distinctWeight(q, held) / quoteTotal : 0;
      if (quoted >= FAILURE_MIN_QUOTED) framed.push([line, qi]);
      const passes = quoted >= minQuoted && found >= minFound;
      if (passes > best.passes || (passes === best.passes && quoted + found > best.score))
        best = { passes, score: quoted + found, quoted, found, line, quote: quotes[qi]!, raw: raw[qi]!, words: covered.map((i) => key.terms[i]!) };
    });
  }
  const failureCodes = failure.codes;
  const lessonCodes = errorCodes(raw.join("\n"));
  const evidence: FailureEvidence = {
    id: hit.lesson.id,
    relevance: hit.relevance ?? 0,
    ...(best.line ? { line: best.line, quote: best.quote } : {}),
    quoted: best.words,
    quotedShare: round(best.quoted),
    foundShare: round(best.found),
    codes: { failure: failureCodes, lesson: lessonCodes, shared: failureCodes.filter((c) => lessonCodes.includes(c)) },
    programs,
  };
  if (known.length) {
    evidence.programMatch = named !== undefined || filedWith !== undefined;
    if (named) evidence.namedProgram = named;
    if (filedWith) evidence.filedWith = { program: filedWith, folder: folderOf(index, hit.doc) };
  }
  if (best.line) {
    const speaker = lineSpeaker(best.raw);
    const titleTerms = new Set(termSequence(title));
    if (speaker && titleTerms.has(speaker) && !programs.some((p) => sameProgram(p, speaker))) evidence.otherSpeaker = speaker;
    const programWords = new Set(programs.flatMap(programTerms));
    const lesson = { quoteTerms: new Set(quotes.flatMap(termSequence)), titleTerms };
    const errorTerms = new Set(termSequence(text));
    for (const [line, qi] of framed) {
      const detail = differentDetail(index, lineWords(index, line, SEVERITY), lineWords(index, quotes[qi]!, SEVERITY), lesson, errorTerms, programWords);
      if (detail) {
        evidence.detail = detail;
        break;
      }
    }
  }
  return evidence;
}

/** How much of a key line a lesson must quote, and how much of its quote the error must hold. */
function thresholds(otherProgram: boolean): { minQuoted: number; minFound: number } {
  return otherProgram
    ? { minQuoted: FAILURE_MIN_QUOTED_OTHER_PROGRAM, minFound: FAILURE_MIN_QUOTE_FOUND_OTHER_PROGRAM }
    : { minQuoted: FAILURE_MIN_QUOTED, minFound: FAILURE_MIN_QUOTE_FOUND };
}

/** Why the evidence does not make the lesson injectable (undefined: it does). */
export function failureVeto(e: FailureEvidence): string | undefined {
  // An errno is the system's verdict, which any program may report: shared, it proves the failure only when the lesson is about that program.
  if (e.codes.shared.some((c) => !ERRNO.has(c)) || (e.codes.shared.length && e.programMatch === true)) return undefined;
  if (e.codes.failure.length && e.codes.lesson.length && !e.codes.shared.length)
    return `${e.id} quotes error code ${e.codes.lesson.join(", ")}, the failure has ${e.codes.failure.join(", ")}`;
  if (!e.quoted.length) return `${e.id} quotes no part of the error`;
  if (e.otherSpeaker) return `${e.id} quotes what ${e.otherSpeaker} prints, the failure is ${e.programs.join(" or ")}'s`;
  if (e.detail) return `the error says "${e.detail.error}" where ${e.id} quotes "${e.detail.lesson}": the same message about another error`;
  const other = e.programMatch === false;
  const { minQuoted, minFound } = thresholds(other);
  const about = other ? ` (it never names ${e.programs.join(" or ")})` : "";
  if (e.quotedShare < minQuoted) return `${e.id} quotes ${e.quotedShare.toFixed(2)} of an error line, needs ${minQuoted}${about}`;
  if (e.foundShare < minFound) return `the error holds ${e.foundShare.toFixed(2)} of what ${e.id} quotes, needs ${minFound}${about}`;
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

/** The evidence for one lesson in one line, for people. */
export function failureEvidenceLine(e: FailureEvidence): string {
  const parts = [`relevance ${e.relevance.toFixed(2)}`];
  if (e.quoted.length)
    parts.push(`quotes ${Math.round(e.quotedShare * 100)}% of "${e.line}" as "${e.quote}"; the error holds ${Math.round(e.foundShare * 100)}% of that quote`);
  else parts.push("quotes no part of the error");
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
