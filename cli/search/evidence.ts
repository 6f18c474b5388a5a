import type { SearchIndex } from "../kb/index.ts";
import { docFrequency, termFrequency } from "../kb/lookup.ts";
import { ERRNO } from "../shell/errno.ts";
import { errorShaped, lineSpeaker, SEVERITY } from "../shell/error-lines.ts";
import { errorCodes, type Failure } from "../shell/failure.ts";
import { isAftermath, KEY_LINE } from "../shell/result.ts";
import { termSequence, tokenize } from "../text/tokenize.ts";
import { isFileName, phraseOf } from "./phrase.ts";
import { familyMismatch, folderOf, homeFolder, programFamily, programTerms, sameProgram } from "./programs.ts";
import { lessonQuotes } from "./quotes.ts";
import { idf } from "./rank.ts";
import type { SearchHit } from "./search.ts";
import {
  type Comparison,
  compareLines,
  contradiction,
  counterpart,
  type Difference,
  distinctWeight,
  type Slot,
  type SpecificsContext,
  type WeightedPhrase,
} from "./specifics.ts";
import { frameSpread, type Spread } from "./spread.ts";

// The evidence that a lesson is about a failure, as the failure rule (failure.ts) weighs it and
// `--explain` shows it. Lessons quote the errors they are about verbatim, so the evidence is the
// quote read as a phrase: the key line and the quote laid side by side in order (specifics.ts),
// the frame both say and what each says in its place. Around the best pair: what the rest of the
// output says against the lesson's symptom, whether both start from the same error, the programs
// (named, filed with, another of a tool family), error codes, a number the lesson is about, a fix
// the command already applies, and how many lessons quote the same frame.

/** What a word inside quotes in an error line (`No module named 'yaml'`) counts: it is usually the argument of this one run, not the error. */
const ARGUMENT_WEIGHT = 0.25;
/** The lesson must quote at least this share of the key line's distinctive weight… */
export const FAILURE_MIN_QUOTED = 0.4;
/** …and the error must hold at least this share of the lesson's quoted line. */
export const FAILURE_MIN_QUOTE_FOUND = 0.4;
/** A lesson that does not name the failing program needs nearly the whole line and quote. */
export const FAILURE_MIN_QUOTED_OTHER_PROGRAM = 0.7;
export const FAILURE_MIN_QUOTE_FOUND_OTHER_PROGRAM = 0.7;
/** Key lines the rule reads (phrase.ts bounds the words per line): an error of any size is judged in bounded time. */
const MAX_KEY_LINES = 12;
/** A quote the error holds whole says this many terms at least: fewer could be any error's ("Permission denied"). */
const WHOLE_QUOTE_TERMS = 3;
/** An error line a quote holds whole says this many: a newer tool's longer message starts with the whole of it. */
const WHOLE_LINE_TERMS = 6;
/** A frame this many lessons hold (in more than one folder) is generic: the line could be any of their failures'. */
export const GENERIC_LESSONS = 3;

type Whole = "quote" | "line";

/** The evidence that a lesson is about a failure: what the rule weighs and `--explain` shows. */
export interface FailureEvidence {
  id: string;
  relevance: number;
  /** The key error line the lesson quotes best, and the lesson's line that quotes it. */
  line?: string;
  quote?: string;
  /** The words of that line the lesson quotes in order: the frame (program names and severity labels left out). */
  quoted: string[];
  /** Their share of the line's distinctive weight (0..1). */
  quotedShare: number;
  /** The share of the quote's own distinctive weight that the error holds (0..1). */
  foundShare: number;
  /** Which side the other holds whole, in order: the quote inside a longer error line, or the error line at the start of a longer quote. */
  whole?: Whole;
  /** The best line against its quote: the frame both say, each place where they say something else, and the one that tells another error. */
  specifics?: { frame: string[]; slots: Slot[]; differs?: Slot };
  /** A symptom line the lesson quotes that the failure's output says otherwise: the output's line, the quote, and the words each has there. */
  contradiction?: { line: string; quote: string; failure: string[]; lesson: string[]; differs: Difference };
  /** The failure's first error line and the lesson's, when neither says the other's: the line they share comes after two different errors. */
  firstLines?: { failure: string; lesson: string };
  /** The lines after the one both say, when neither is the other's: the lesson's message goes on with another hint than the failure's. */
  goesOn?: { failure: string; lesson: string };
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
  /** The failing program and the other member of its family that the lesson is about instead (it never names the failing one). */
  family?: { failure: string; lesson: string };
  /** A number or a kind of file the lesson's title and symptom name (`HTTP 413`, `*.module.css`) that the error does not say. */
  titled?: string;
  /** A setting of the failed command that the lesson's fix makes (`GOOS=linux`): the fix was in place and it failed all the same. */
  applied?: string;
  /** A flag of the failed command that turns off what the lesson's title is about (`-p no:cov` against a lesson on pytest-cov). */
  optedOut?: string;
  /** How many lessons, in how many folders, hold the frame the best line shares with the quote. */
  spread?: Spread;
}

/** How much of a key line a lesson must quote, and how much of its quote the error must hold. */
export function thresholds(otherProgram: boolean): { minQuoted: number; minFound: number } {
  return otherProgram
    ? { minQuoted: FAILURE_MIN_QUOTED_OTHER_PROGRAM, minFound: FAILURE_MIN_QUOTE_FOUND_OTHER_PROGRAM }
    : { minQuoted: FAILURE_MIN_QUOTED, minFound: FAILURE_MIN_QUOTE_FOUND };
}

/** How distinctive a term is in this knowledge base: its IDF, a term no lesson uses counting as the rarest. */
function weightOf(index: SearchIndex, term: string): number {
  return idf(index, Math.max(docFrequency(index, term), 1));
}

const round = (x: number) => Math.round(x * 100) / 100;

/** A line's words beyond program names and severity labels, each with its weight in this knowledge base. */
interface LineWords extends WeightedPhrase {
  /** Whether each word is a quoted argument or a file name: what this run was about, not which error it is. */
  arguments: boolean[];
}

function lineWords(index: SearchIndex, line: string, skip: Set<string>): LineWords {
  const phrase = phraseOf(line, skip);
  // A file name says where an error is, a quoted word what it is about this time: neither which error it is.
  const args = phrase.terms.map((t, i) => phrase.kinds[i] === "quoted" || isFileName(t));
  const weights = phrase.terms.map((t, i) => weightOf(index, t) * (args[i] ? ARGUMENT_WEIGHT : 1));
  return { ...phrase, weights, arguments: args };
}

/** The weight of the words at some positions of a line. */
function weightAt(words: LineWords, positions: Iterable<number>): number {
  let n = 0;
  for (const i of positions) n += words.weights[i]!;
  return n;
}

/** What the failure's words are weighed by, worked out once per failure and knowledge base: every candidate reads the same. */
interface FailureWords {
  skip: Set<string>;
  keys: LineWords[];
  /** Every line of the output, read only when a lesson shows a symptom to hold against it. */
  readonly output: LineWords[];
  runTerms: Set<string>;
  errorTerms: Set<string>;
}

const wordsOf = new WeakMap<Failure, { index: SearchIndex; words: FailureWords }>();

function failureWords(index: SearchIndex, failure: Failure): FailureWords {
  const kept = wordsOf.get(failure);
  if (kept?.index === index) return kept.words;
  const skip = new Set([...SEVERITY, ...failure.programs.flatMap(programTerms)]);
  let output: LineWords[] | undefined;
  const words: FailureWords = {
    skip,
    keys: failure.lines.slice(0, MAX_KEY_LINES).map((l) => lineWords(index, l, skip)),
    get output() {
      return (output ??= failure.textLines.map((l) => lineWords(index, l, skip)));
    },
    runTerms: new Set(termSequence(failure.args.join(" "))),
    errorTerms: new Set(termSequence(failure.text)),
  };
  wordsOf.set(failure, { index, words });
  return words;
}

/**
 * Whether one line holds all of the other's words in order: the lesson's quote inside a longer
 * line (a chain `failed to solve: …: <the quote>`, make's hint added in parentheses), or the whole
 * error line at the start of a longer quote (the newer release that prints one more sentence). What
 * the error says around a whole quote must be words: a name there is a specific the quote lacks;
 * and a quote several lessons hold ("No such file or directory") says no more for being found whole.
 */
function wholeSide(index: SearchIndex, comparison: Comparison, key: LineWords, quote: LineWords): Whole | undefined {
  if (comparison.frame.length < 2) return undefined;
  const aligned = new Set(comparison.aligned.map(([i]) => i));
  const around = key.kinds.filter((k, i) => !aligned.has(i) && k !== "word");
  if (
    quote.terms.length >= WHOLE_QUOTE_TERMS &&
    comparison.aligned.length === quote.terms.length &&
    !around.length &&
    frameSpread(index, quote.terms).lessons <= 2
  )
    return "quote";
  if (key.terms.length >= WHOLE_LINE_TERMS && comparison.aligned.length === key.terms.length) return "line";
  return undefined;
}

/** A number standing as a word of its own (`HTTP 413`, `Jest 27`): not a version's part, a port or a line. */
const PLAIN_NUMBER = /(?<![\w.:/-])\d+(?![\w.:/-])/g;

/** A kind of file standing as a word of its own (`*.module.css`, `(.d.ts)`): not a file's name, a version or a path. */
const FILE_KIND = /(?<![\w/.-])\*?(\.[a-z][a-z0-9]*(?:\.[a-z][a-z0-9]*)*)(?![\w.])/gi;

/**
 * What the lesson's title names and its symptom shows, when the error does not say it: another
 * status or code (a plain number), another kind of file (`*.module.css` against a package's module).
 */
function titleSpecific(title: string, symptom: string[], error: string): string | undefined {
  const shownText = symptom.join("\n");
  const shown = new Set(shownText.match(PLAIN_NUMBER) ?? []);
  const said = new Set(error.match(PLAIN_NUMBER) ?? []);
  const number = (title.match(PLAIN_NUMBER) ?? []).find((n) => shown.has(n) && !said.has(n));
  if (number) return number;
  const lower = error.toLowerCase();
  for (const m of title.matchAll(FILE_KIND)) {
    const kind = m[1]!.toLowerCase();
    if (shownText.toLowerCase().includes(kind) && !lower.includes(kind)) return `*${kind} files`;
  }
  return undefined;
}

/** `NAME=value` settings in a command line. */
const SETTING = /(?<![^\s;&|(])[A-Z][A-Z0-9_]*=[^\s;&|)]+/g;

/** A setting the failed command already makes that the lesson's fix makes too (`GOOS=linux`). */
function appliedFix(command: string, fixes: string[]): string | undefined {
  const made = new Set(command.match(SETTING) ?? []);
  return made.size ? fixes.flatMap((f) => f.match(SETTING) ?? []).find((s) => made.has(s)) : undefined;
}

/** A flag that turns something off (`--no-cov`, `-p no:cov`, `--without-ssl`, `--disable-gpu`, `--skip-tests`): what it names. */
const OPT_OUT = /(?<![^\s])(?:--?(?:no|without|disable|skip)-|no:)([A-Za-z][\w.-]*)/g;

/** A flag of the failed command that turns off what the lesson's title is about: the lesson says it is missing, the command left it out on purpose. */
function optedOut(command: string, title: Set<string>): string | undefined {
  for (const m of command.matchAll(OPT_OUT)) if (tokenize(m[1]!).some((t) => t.length > 1 && title.has(t))) return m[0].trim();
  return undefined;
}

/** The pair of key line and quote that says the most, among those that say enough when there are such. */
interface BestPair {
  passes: boolean;
  score: number;
  quoted: number;
  found: number;
  line: string;
  quote: number;
  words: string[];
  comparison?: Comparison;
  whole?: Whole;
  /** How much of the failure's first key line (what it says went wrong first) any quote covers. */
  headline: number;
}

function bestPair(index: SearchIndex, failure: Failure, keys: LineWords[], quotes: LineWords[], ctx: SpecificsContext, otherProgram: boolean): BestPair {
  const { minQuoted, minFound } = thresholds(otherProgram);
  let best: BestPair = { passes: false, score: 0, quoted: 0, found: 0, line: "", quote: -1, words: [], headline: 0 };
  let headline = 0;
  keys.forEach((key, k) => {
    const total = weightAt(key, key.terms.keys());
    if (!total) return;
    quotes.forEach((q, qi) => {
      const comparison = compareLines(key, q, (i) => key.weights[i]!, ctx);
      const covered = comparison.matched.map(([i]) => i);
      if (!covered.length) return;
      // A quoted word is discounted as the name of this run; one the lesson quotes too is part of the error ('start-limit-hit').
      let restored = 0;
      for (const i of covered) if (key.arguments[i] && !isFileName(key.terms[i]!)) restored += weightOf(index, key.terms[i]!) - key.weights[i]!;
      const quoted = (weightAt(key, covered) + restored) / (total + restored);
      const quoteTotal = distinctWeight(q);
      const said = new Set(covered.map((i) => key.terms[i]!));
      const holds = [...q.terms.keys()].filter((j) => said.has(q.terms[j]!));
      const found = quoteTotal ? distinctWeight(q, holds) / quoteTotal : 0;
      if (k === 0) headline = Math.max(headline, quoted);
      const whole = wholeSide(index, comparison, key, q);
      // One name alone (`CMAKE_CXX_COMPILER` in the lesson's prose) is no quote of the error: a phrase is two terms or more.
      const passes =
        (quoted >= minQuoted || whole === "quote") && (found >= minFound || whole === "line") && !comparison.differs && comparison.frame.length >= 2;
      if (passes > best.passes || (passes === best.passes && quoted + found > best.score)) {
        const line = failure.lines[k]!;
        best = { passes, score: quoted + found, quoted, found, line, quote: qi, words: covered.map((i) => key.terms[i]!), comparison, headline: 0 };
        if (whole) best.whole = whole;
      }
    });
  });
  return { ...best, headline };
}

/** The evidence for one lesson against a failure. */
export function failureEvidence(index: SearchIndex, hit: SearchHit, failure: Failure): FailureEvidence {
  const { programs } = failure;
  const words = failureWords(index, failure);
  const lesson = lessonQuotes(index, hit.doc);
  const quotes = lesson.quotes.map((q) => lineWords(index, q, words.skip));
  const known = programs.filter((p) => programFamily(p, (t) => docFrequency(index, t) > 0));
  const named = known.find((p) => programFamily(p, (t) => termFrequency(index, t, hit.doc) > 0));
  const filedWith = named ? undefined : known.find((p) => homeFolder(index, p) === folderOf(index, hit.doc));
  const lessonCodes = errorCodes(lesson.raw.join("\n"));
  const shared = failure.codes.filter((c) => lessonCodes.includes(c));
  const titleTerms = new Set(termSequence(lesson.title));
  const ctx: SpecificsContext = {
    lessonTerms: new Set(termSequence(lesson.text)),
    titleTerms,
    ownTerms: new Set(termSequence(lesson.prose)),
    known: (t) => docFrequency(index, t) > (termFrequency(index, t, hit.doc) > 0 ? 1 : 0),
    runTerms: words.runTerms,
    errorTerms: words.errorTerms,
    sharedCode: shared.some((c) => !ERRNO.has(c)),
  };
  const symptom = quotes.map((q, i) => (lesson.symptom[i] ? q : { ...q, terms: [], weights: [] }));
  const shows = symptom.some((q) => q.terms.length >= 2);
  // A command line of the failing program that the lesson names outside its Symptom (`go mod tidy` in its Evidence) is what to run, not the error, even where the tool prints it as a hint.
  const run = (i: number) =>
    !lesson.symptom[i] &&
    programs.some((p) =>
      sameProgram(
        p,
        lesson.raw[i]!.trim()
          .replace(/^\$\s+/, "")
          .split(/\s+/)[0]!
          .toLowerCase(),
      ),
    );
  const matched = shows ? quotes.map((q, i) => (run(i) ? symptom[i]! : q)) : quotes;
  const best = bestPair(index, failure, words.keys, matched, ctx, known.length > 0 && named === undefined && filedWith === undefined);
  const evidence: FailureEvidence = {
    id: hit.lesson.id,
    relevance: hit.relevance ?? 0,
    ...(best.line ? { line: best.line, quote: lesson.quotes[best.quote]! } : {}),
    quoted: best.words,
    quotedShare: round(best.quoted),
    foundShare: round(best.found),
    codes: { failure: failure.codes, lesson: lessonCodes, shared },
    programs,
  };
  if (best.whole) evidence.whole = best.whole;
  if (best.comparison) {
    const { frame, slots, differs } = best.comparison;
    evidence.specifics = { frame, slots, ...(differs ? { differs } : {}) };
  }
  if (known.length) {
    evidence.programMatch = named !== undefined || filedWith !== undefined;
    if (named) evidence.namedProgram = named;
    if (filedWith) evidence.filedWith = { program: filedWith, folder: folderOf(index, hit.doc) };
  }
  if (best.line) {
    const speaker = lineSpeaker(lesson.raw[best.quote]!);
    if (speaker && titleTerms.has(speaker) && !programs.some((p) => sameProgram(p, speaker))) evidence.otherSpeaker = speaker;
  }
  // Only what the lesson shows as its symptom says how the failure looks. A lesson whose title says the best line's message is about that message, whatever its detail says this time.
  const subject = best.passes && best.words.filter((t) => titleTerms.has(t)).length * 4 >= best.words.length * 3;
  const against = subject || !shows ? undefined : contradiction(words.output, symptom, ctx);
  if (against) {
    const { failure: said, lesson: quoted, differs } = against.comparison.differs!;
    evidence.contradiction = { line: failure.textLines[against.line]!, quote: lesson.quotes[against.quote]!, failure: said, lesson: quoted, differs: differs! };
  }
  // Neither first error is the other's: the failure's first key line is not what the lesson quotes, and the lesson's first error line is not in the failure.
  const own = lesson.raw.findIndex((r, i) => lesson.symptom[i] && (KEY_LINE.test(r) || errorShaped(r)) && !isAftermath(r) && quotes[i]!.terms.length >= 2);
  if (best.passes && failure.lines[0] && best.headline < FAILURE_MIN_QUOTED && own >= 0 && !counterpart(words.output, quotes[own]!, ctx))
    evidence.firstLines = { failure: failure.lines[0], lesson: lesson.quotes[own]! };
  // The message goes on otherwise: the lesson's line after its quote (indented: the same message's hint) is nowhere in the failure, and the failure's line after it is nowhere in the lesson.
  if (best.passes) {
    const q = best.quote + 1;
    const lessonNext = lesson.raw[q];
    const at = failure.textLines.indexOf(best.line);
    const failureNext = at >= 0 ? words.output[at + 1] : undefined;
    if (
      lessonNext !== undefined &&
      lesson.symptom[q] &&
      /^\s+\S/.test(lessonNext) &&
      quotes[q]!.terms.length >= 3 &&
      failureNext &&
      failureNext.terms.length >= 3 &&
      !counterpart(words.output, quotes[q]!, ctx) &&
      !quotes.some((other) => counterpart([failureNext], other, ctx))
    )
      evidence.goesOn = { failure: failure.textLines[at + 1]!, lesson: lesson.quotes[q]! };
  }
  const family = familyMismatch(index, hit.doc, lesson.title, failure);
  if (family) evidence.family = family;
  const titled = titleSpecific(
    lesson.title,
    lesson.raw.filter((_, i) => lesson.symptom[i]),
    failure.text,
  );
  if (titled) evidence.titled = titled;
  const applied = appliedFix(failure.command, lesson.fixes);
  if (applied) evidence.applied = applied;
  const off = optedOut(failure.command, new Set(tokenize(lesson.title)));
  if (off) evidence.optedOut = off;
  if (best.passes) evidence.spread = frameSpread(index, best.words);
  return evidence;
}
