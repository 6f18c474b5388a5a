import { RkbError } from "./errors.ts";

// One rule for the text a write takes, whatever path it comes by (stdin, a word on the command line,
// a tool call's field, a file `rkb import` reads): at most 1 MiB of UTF-8 text without a NUL byte.
// A lesson fits on a screen and a note is short; what is larger, binary or in another encoding was
// never meant for one, and storing it would cost the knowledge base and its search index that much.
// A text the rule refuses is a `refused` error (exit 1) on every path, naming the input and the fix.

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
const binary: TextProblem = { reason: "binary: it holds a NUL byte", fix: "give text: lessons and notes are Markdown" };
const notUtf8: TextProblem = { reason: "not UTF-8 text", fix: "convert it to UTF-8 first (e.g. `iconv -f latin1 -t utf-8`)" };

/** Bytes as text under the rule, or why they are refused. */
export function decodeInput(bytes: Uint8Array): string | TextProblem {
  if (bytes.length > MAX_INPUT_BYTES) return tooLarge(bytes.length);
  if (bytes.includes(0)) return binary;
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
  if (text.includes("\0")) return binary;
  if (text.includes("\uFFFD")) return { ...notUtf8, reason: "not UTF-8 text (it holds U+FFFD, the mark of bytes that were not)" };
  // Most text is ASCII: the byte count is needed only past a quarter of the limit.
  if (text.length > MAX_INPUT_BYTES / 4) {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > MAX_INPUT_BYTES) return tooLarge(bytes);
  }
  return undefined;
}

/** The first string in an input (a field, a list's item, a map's value) the rule refuses, with its field. */
export function inputTextProblem(input: Record<string, unknown>): { field: string; problem: TextProblem } | undefined {
  for (const [field, value] of Object.entries(input)) {
    const texts = typeof value === "string" ? [value] : Array.isArray(value) ? value : value && typeof value === "object" ? Object.entries(value).flat() : [];
    for (const text of texts) {
      const problem = typeof text === "string" ? textProblem(text) : undefined;
      if (problem) return { field, problem };
    }
  }
  return undefined;
}

/** The refusal of an input the rule does not take, named as its caller knows it (`the text on stdin`, `--statement`). */
export function refusedInput(name: string, problem: TextProblem): RkbError {
  return new RkbError("refused", `${name} is ${problem.reason}`, problem.fix);
}
