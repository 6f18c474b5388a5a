import { stem } from "./stem.ts";

// The one tokenizer: the search index, queries, the failure query and relevance coverage all read
// text through it, so a word means the same thing everywhere.
//
// Text splits at whitespace and punctuation except the characters that hold code-ish names
// together (`_ . / : - @`). A plain word is lowercased and stemmed. A version (`1.14.2`, `v1.14`)
// stays whole. A compound (`hdf5::File`, `H5Fopen`, `snake_case`, `--start-group`, `src/main.rs`)
// gives its whole lowercased form, then its parts split at the joining characters and at camel-case
// boundaries, so both the exact name and its words match. Linker names get their library name too:
// `-lfoo` and `libfoo.so` also give `foo`.

/** One token of the text: its whole form and, for compounds, the words inside it. */
export interface TokenGroup {
  /** The token as one term, or undefined when it is a stop word or too short. */
  whole?: string;
  /** The words inside a compound (empty for a plain word or a version). */
  parts: string[];
}

// Function words that say nothing about a topic. Negations (`no`, `not`, `cannot`) stay: error
// messages hinge on them ("not found", "no such file").
const STOP_WORDS = new Set(
  `a about above after again all also am an and any are as at be been before being below between both but by can could
  did do does doing don doesn didn down during each else even ever every few for from further get gets got had has have
  having he her here hers him his how however i if in into is isn it its itself just let ll me more most much must my
  need needs of off on once one only or other our out over own re same she should so some still such than that the their
  them then there these they this those though through to too under until up us ve very was way we were what when where
  which while who whom why will with without would yet you your yours`.split(/\s+/),
);

const JOINERS = /[_./:\-@]+/;
/** What tokens are made of; every other character (any beyond ASCII too) separates them. */
const TOKEN_CHARS = "A-Za-z0-9_./:\\-@";
const SPLIT = new RegExp(`[^${TOKEN_CHARS}]+`);
/** What SPLIT splits at, the other way round: one raw token. */
const RAW_TOKEN = new RegExp(`[${TOKEN_CHARS}]+`, "g");
const TRIM = /^[_./:\-@]+|[_./:\-@]+$/g;
const PLAIN = /^[A-Za-z0-9]?[a-z0-9]*$/;
const VERSION = /^[vV]?\d+(?:[._-][0-9A-Za-z]+)+$/;
const LINKER_FLAG = /^-l([a-z][a-z0-9_+]*)$/;
const LIBRARY_FILE = /^lib([a-z][a-z0-9_+]*)\.(?:so|a|dylib|dll)(?:\.[0-9.]+)?$/i;

function keep(word: string): string | undefined {
  return word.length >= 2 && !STOP_WORDS.has(word) ? word : undefined;
}

/** Splits at joining characters and camel-case boundaries: `H5Fopen` → H5, Fopen; `HTTPServer` → HTTP, Server. */
function camelParts(token: string): string[] {
  const out: string[] = [];
  for (const piece of token.split(JOINERS)) {
    if (!piece) continue;
    out.push(
      ...piece
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .replace(/([0-9])([A-Z])/g, "$1 $2")
        .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
        .split(" "),
    );
  }
  return out;
}

/** Longer runs (a base64 blob, a data URI, a minified line) name nothing anyone searches for. */
const MAX_TOKEN_CHARS = 200;

function group(raw: string): TokenGroup | undefined {
  if (raw.length > MAX_TOKEN_CHARS) return undefined;
  const token = raw.replace(TRIM, "");
  if (!token) return undefined;
  const flag = LINKER_FLAG.exec(raw);
  if (flag) return { whole: token.toLowerCase(), parts: [flag[1]!] };
  const split = camelParts(token);
  if (PLAIN.test(token) || (split.length === 1 && split[0] === token)) {
    const word = keep(token.toLowerCase());
    return word ? { whole: stem(word), parts: [] } : undefined;
  }
  if (VERSION.test(token)) return { whole: token.toLowerCase(), parts: [] };
  const whole = keep(token.toLowerCase());
  const parts: string[] = [];
  for (const part of split) {
    const word = keep(part.toLowerCase());
    if (word && word !== whole && !parts.includes(stem(word))) parts.push(stem(word));
  }
  const library = LIBRARY_FILE.exec(token.slice(token.lastIndexOf("/") + 1));
  if (library) parts.push(library[1]!.toLowerCase());
  if (!whole && !parts.length) return undefined;
  return whole ? { whole, parts } : { parts };
}

// Building the index reads every word of every lesson, and most of them are the same few
// thousand words: each distinct token is analysed once per process. The memo is dropped when it
// grows past a bound, so memory stays flat on any input.
const MEMO_LIMIT = 50_000;
let memo = new Map<string, TokenGroup | null>();

function memoGroup(raw: string): TokenGroup | null {
  let g = memo.get(raw);
  if (g === undefined) {
    if (memo.size >= MEMO_LIMIT) memo = new Map();
    g = group(raw) ?? null;
    memo.set(raw, g);
  }
  return g;
}

/** The tokens of a text, in order, each with its whole form and parts (shared: do not change them). */
export function tokenGroups(text: string): TokenGroup[] {
  const out: TokenGroup[] = [];
  for (const raw of text.split(SPLIT)) {
    if (!raw) continue;
    const g = memoGroup(raw);
    if (g) out.push(g);
  }
  return out;
}

let tokenChars: Uint8Array | undefined;

/** Per ASCII code, 1 for a character tokens are made of: the index scans text with it rather than splitting it. */
export function tokenCharTable(): Uint8Array {
  if (!tokenChars) {
    const one = new RegExp(`[${TOKEN_CHARS}]`);
    tokenChars = Uint8Array.from({ length: 128 }, (_, c) => (one.test(String.fromCharCode(c)) ? 1 : 0));
  }
  return tokenChars;
}

/** The terms of one raw token, as tokenize gives them (whole form, then parts); a new array. */
export function termsOfToken(raw: string): string[] {
  const g = memoGroup(raw);
  if (!g) return [];
  return g.whole ? [g.whole, ...g.parts] : [...g.parts];
}

/** The whole form of each token of a text, in order (stop words dropped, so phrases match across them). */
export function termSequence(text: string): string[] {
  return tokenGroups(text).map((g) => g.whole ?? g.parts.join(" "));
}

/** All terms of a text in order (whole forms, then parts, per token). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const g of tokenGroups(text)) {
    if (g.whole) out.push(g.whole);
    out.push(...g.parts);
  }
  return out;
}

/**
 * The terms of a text in order, as `tokenize` gives them, read only as far as the caller takes
 * them: a check that needs the first few terms (lint's quality rules) does not analyse the rest.
 */
export function* lazyTerms(text: string): Generator<string> {
  for (const match of text.matchAll(RAW_TOKEN)) {
    const g = memoGroup(match[0]);
    if (!g) continue;
    if (g.whole) yield g.whole;
    yield* g.parts;
  }
}

/** The term of one plain lowercase word (`hangs` → hang), or undefined for a stop word: what tokenize gives for it, without the compound analysis. */
export function plainTerm(word: string): string | undefined {
  const kept = keep(word);
  return kept && stem(kept);
}

/** Whether a term is a version number (`1.14.2`, `v2.0`): versions match exactly or not at all. */
export function isVersion(term: string): boolean {
  return VERSION.test(term);
}
