import { randomHex } from "../base/hash.ts";

// Long session lines parsed without their bulk. Most of a session file's bytes are a few long
// strings the reader never keeps whole: a successful command's output (only its last line is
// looked at, for an exit code), the agent's hidden thinking, the copy of a result Claude Code keeps
// for itself. JSON.parse copies every one of them; here the long strings are cut out of the line
// first (found by their quotes, checked as JSON would check them), the rest is parsed, and each cut
// string is put back, parsed on its own, wherever the format reads it (`Unread`). What a format
// never reads keeps a stand-in that ends with the string's real end. A line that is not valid JSON
// is parsed whole, so it fails as it always did.

/** The places of an entry (`[object or array, key]`) whose strings its format never reads whole: a string there, or any string below it, may be a stand-in holding only the string's end. */
export type Unread = (obj: any) => [object, string | number][];

/** Lines shorter than this are parsed whole: cutting them saves less than finding their strings costs. */
const LONG_LINE = 16 * 1024;
/** Strings at least this long (as written in the line) are cut out. */
const LONG_STRING = 4 * 1024;
/**
 * Characters of a cut string's end kept in its stand-in, as written: an escape is at most six
 * characters, so at least 341 of the string's own, more than a format reads of a string's end
 * (entries.ts TRAILER_CHARS).
 */
const KEPT_END = 2048;

/** Starts every stand-in; the random part keeps a string of a session from passing for one. */
const MARK = `\u0000rkb-cut:${randomHex(8)}:`;
const MARK_AS_WRITTEN = MARK.replace("\u0000", "\\u0000");

/**
 * What JSON may refuse in a string as written: a control character, or a backslash before what no
 * escape is. Read at every backslash, so the second of an escaped backslash may pass for one
 * (`\\x`): then JSON_STRING_BODY decides. A search for something rare runs several times faster
 * than reading the whole grammar, and most strings hold nothing it finds.
 */
const MAYBE_NOT_JSON = /[\x00-\x1f]|\\(?:[^"\\/bfnrtu]|u(?![0-9a-fA-F]{4}))/;
/** What JSON accepts between a string's quotes, read from the opening quote on (sticky). */
const JSON_STRING_BODY = /(?:[^"\\\x00-\x1f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;

/** True when the characters between the quotes at `open` and `close` are what JSON accepts there. */
function validJsonString(text: string, open: number, close: number): boolean {
  if (!MAYBE_NOT_JSON.test(text.slice(open + 1, close))) return true;
  JSON_STRING_BODY.lastIndex = open + 1;
  return JSON_STRING_BODY.test(text) && JSON_STRING_BODY.lastIndex === close;
}

/** The line parsed, its long strings left out where `unread` says the format never reads them. */
export function parseLine(text: string, unread: Unread | undefined): unknown {
  if (!unread || text.length < LONG_LINE) return JSON.parse(text);
  const cut = cutLongStrings(text);
  if (!cut) return JSON.parse(text);
  try {
    const obj = JSON.parse(cut.text);
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return JSON.parse(text);
    restore(obj, unread(obj), cut.strings, text);
    return obj;
  } catch {
    // Something was not as valid JSON has it: the whole line decides.
    return JSON.parse(text);
  }
}

/** A cut string: where it was (the offsets of its quotes in the line). */
interface Cut {
  open: number;
  close: number;
}

/**
 * The line with each long string value replaced by a stand-in: MARK, the string's number, `:`,
 * and its last KEPT_END characters as written, cut where no escape can be split. Undefined when
 * nothing is long. Every quote is read in order, as JSON does: one not escaped by an odd run of
 * backslashes ends the string it is in; object keys stay.
 */
function cutLongStrings(text: string): { text: string; strings: Cut[] } | undefined {
  const strings: Cut[] = [];
  const parts: string[] = [];
  let kept = 0;
  for (let at = text.indexOf('"'); at !== -1; ) {
    let close = text.indexOf('"', at + 1);
    while (close !== -1 && escaped(text, close)) close = text.indexOf('"', close + 1);
    if (close === -1) break; // not JSON: parsed whole below, and fails there
    const next = close + 1;
    if (close - at > LONG_STRING && !isKey(text, next)) {
      const end = safeStart(text, close - KEPT_END, close);
      if (end !== -1) {
        parts.push(text.slice(kept, at + 1), MARK_AS_WRITTEN, String(strings.length), ":", text.slice(end, close));
        strings.push({ open: at, close });
        kept = close;
      }
    }
    at = text.indexOf('"', next);
  }
  if (!strings.length) return undefined;
  parts.push(text.slice(kept));
  return { text: parts.join(""), strings };
}

/** True when the quote at `at` is escaped: an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let run = 0;
  while (text.charCodeAt(at - 1 - run) === 92) run++;
  return run % 2 === 1;
}

/** True when the string that ended before `at` is an object key (a colon follows it). */
function isKey(text: string, at: number): boolean {
  let i = at;
  while (text[i] === " " || text[i] === "\t" || text[i] === "\r" || text[i] === "\n") i++;
  return text[i] === ":";
}

/** The first offset from `from` on where no escape can be split (no backslash in the five characters before it), or -1. */
function safeStart(text: string, from: number, close: number): number {
  for (let at = from; at < Math.min(close, from + 64); at++) if (!text.slice(at - 5, at).includes("\\")) return at;
  return -1;
}

/**
 * Puts back every cut string the format may read; the ones left out (under an unread place) are
 * checked as JSON would check them. Throws when a string is not valid JSON.
 */
function restore(obj: object, unread: [object, string | number][], strings: Cut[], text: string): void {
  const places = new Map<object, Set<string | number>>();
  for (const [node, key] of unread) {
    let keys = places.get(node);
    if (!keys) places.set(node, (keys = new Set()));
    keys.add(key);
  }
  /** The cut string a stand-in holds the place of. */
  const cutOf = (standIn: string) => strings[Number(standIn.slice(MARK.length, standIn.indexOf(":", MARK.length)))]!;
  const whole = (standIn: string) => {
    const cut = cutOf(standIn);
    return JSON.parse(text.slice(cut.open, cut.close + 1)) as string;
  };
  // Stand-ins not met yet: the walk ends with the last one, most of an entry is never visited.
  let left = strings.length;
  const check = (value: unknown): void => {
    if (typeof value === "string") {
      if (!value.startsWith(MARK)) return;
      left--;
      const cut = cutOf(value);
      if (!validJsonString(text, cut.open, cut.close)) throw new SyntaxError("not JSON");
    } else if (value !== null && typeof value === "object") for (const v of Object.values(value)) if (left > 0) check(v);
  };
  const walk = (node: any): void => {
    const unreadHere = places.get(node);
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      if (left === 0) return;
      const value = node[key];
      if (unreadHere?.has(key)) check(value);
      else if (typeof value === "string") {
        if (value.startsWith(MARK)) {
          left--;
          node[key] = whole(value);
        }
      } else if (value !== null && typeof value === "object") walk(value);
    }
  };
  walk(obj);
}
