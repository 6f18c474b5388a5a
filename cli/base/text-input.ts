import { RkbError, usageError } from "./errors.ts";
import { shown } from "./fsutil.ts";

// One rule for the text a write takes, whatever path it comes by (stdin, a word on the command line,
// a tool call's field, a file `rkb import` reads): at most 1 MiB of UTF-8 text without a NUL byte.
// A lesson fits on a screen and a note is short; what is larger, binary or in another encoding was
// never meant for one, and storing it would cost the knowledge base and its search index that much.
// Where it is told: a word or a field is a bad argument (usage, exit 2, with the value shown);
// stdin's size and encoding are refused as it is read (exit 1); a NUL in a text that becomes a
// lesson is an invalid lesson naming its line (plan/changes), in a note the note's refusal.

export const MAX_INPUT_BYTES = 1024 * 1024;

export interface TextProblem {
  /** What the input is, to follow "<its name> is": "larger than 1 MiB (5000000 bytes)". */
  reason: string;
  fix: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Too large; `bytes` when the whole was counted (a pipe is not read past the limit). */
export const tooLarge = (bytes?: number): TextProblem => ({
  reason: `larger than 1 MiB${bytes === undefined ? "" : ` (${bytes} bytes)`}`,
  fix: "a lesson or a note fits on a screen: split it, and quote the key lines of long output instead of all of it",
});
export const BINARY: TextProblem = { reason: "binary: it holds a NUL byte", fix: "give text: lessons and notes are Markdown" };
const notUtf8: TextProblem = { reason: "not UTF-8 text", fix: "convert it to UTF-8 first (e.g. `iconv -f latin1 -t utf-8`)" };

/** Bytes as text: at most 1 MiB of UTF-8 (a NUL too, unless `keepNul`: the reader of the text tells its line), or why not. */
export function decodeInput(bytes: Uint8Array, keepNul = false): string | TextProblem {
  if (bytes.length > MAX_INPUT_BYTES) return tooLarge(bytes.length);
  if (!keepNul && bytes.includes(0)) return BINARY;
  try {
    return utf8.decode(bytes);
  } catch {
    return notUtf8;
  }
}

/**
 * Why a text already decoded (a word on the command line, a tool call's field) is refused, or
 * undefined. U+FFFD is what the process was handed for bytes that were not UTF-8.
 */
export function textProblem(text: string): TextProblem | undefined {
  if (text.includes("\0")) return BINARY;
  if (text.includes("\uFFFD")) return { ...notUtf8, reason: "not UTF-8 text (it holds U+FFFD, the mark of bytes that were not)" };
  // Most text is ASCII: the byte count is needed only past a quarter of the limit.
  if (text.length > MAX_INPUT_BYTES / 4) {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > MAX_INPUT_BYTES) return tooLarge(bytes);
  }
  return undefined;
}

/**
 * The usage error for the first string of an input (a field, a list's item, a map's value) the
 * rule refuses; `name` says the field as the caller wrote it (`--statement`, `` `text` of rkb_note ``).
 */
export function inputTextError(input: Record<string, unknown>, name: (field: string) => string): RkbError | undefined {
  for (const [field, value] of Object.entries(input)) {
    const texts = typeof value === "string" ? [value] : Array.isArray(value) ? value : value && typeof value === "object" ? Object.entries(value).flat() : [];
    for (const text of texts) {
      const problem = typeof text === "string" ? textProblem(text) : undefined;
      if (problem) return usageError(`${name(field)} ${shown(String(text), 40)} is ${problem.reason}`, problem.fix);
    }
  }
  return undefined;
}

/** The refusal of a text the rule does not take, named as its caller knows it (`the text on stdin`, `the note`). */
export function refusedInput(name: string, problem: TextProblem): RkbError {
  return new RkbError("refused", `${name} is ${problem.reason}`, problem.fix);
}
