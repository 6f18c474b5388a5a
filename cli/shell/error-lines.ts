import { tokenize } from "../text/tokenize.ts";
import { KEY_LINE } from "./result.ts";

// How tools lay out an error, beyond the words that say something failed: the lines they start with
// their own name (`curl: (60) …`, `/usr/bin/ld: …`), make's `***` lines, and a message whose header
// ends with a colon and goes on in the indented lines below it (CMake's `CMake Error at …:`, conda's
// `… not available from current channels:` and its list). Read once per error, before any lesson.

/** Severity labels name no failure: "CMake Error", "npm ERR!", "nginx: [emerg]" and "fatal: …" start many different ones. */
export const SEVERITY = new Set(tokenize("error errors err fatal warning warn failed failure emerg crit alert"));

/**
 * The program a line comes from, when it starts with one (`nginx: [emerg] …`, `/usr/bin/ld: …`,
 * `npm ERR! …`). Tools print their name as it is invoked, in lower case: a capitalised label
 * (`Active:`, `Caused by:`, `DETAIL:`) is a field of the message, and an exception's class
 * (`ModuleNotFoundError:`) or a severity names the error, not who printed it.
 */
export function lineSpeaker(line: string): string | undefined {
  const m = /^\s*(?:\S*\/)?([a-z][\w.+-]*)(?::\s| ERR!)/.exec(line);
  const name = m?.[1];
  if (!name || name.length < 2 || SEVERITY.has(name) || /(?:error|exception|warning)$/i.test(name)) return undefined;
  return name;
}

/**
 * Lines a failed command's tools print as errors that carry no word the key-line filter knows:
 * make's `***` messages (`Makefile:14: *** missing separator.  Stop.`) and the lines a program
 * starts with its own name (`curl: (60) SSL certificate problem: …`, `/usr/bin/ld: …: multiple
 * definition of …`). The caller leaves out the aftermath lines (`make: *** […] Error 1`).
 */
export function errorShaped(line: string): boolean {
  return line.includes("***") || lineSpeaker(line) !== undefined;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/** A header this long at most: a long line ending in a colon is a sentence, not a title over a block. */
const MAX_HEADER_CHARS = 160;
/** Lines of a header's block read with it: the first paragraph says what the header is about. */
const MAX_BLOCK_LINES = 6;

/**
 * Lines with each error header put together with the block it introduces: a key line ending in `:` followed
 * (after blank lines) by lines indented deeper than it, up to the next blank line. CMake's
 * `CMake Error at CMakeLists.txt:1 (cmake_minimum_required):` is then one line with its message,
 * and conda's `PackagesNotFoundError: … current channels:` one line with the packages it lists.
 */
export function joinContinued(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const header = lines[i]!;
    const trimmed = header.trimEnd();
    // Only an error's header: `Traceback (most recent call last):` or `Lock Info:` introduce what led to it, line by line.
    if (!trimmed.endsWith(":") || trimmed.length > MAX_HEADER_CHARS || !KEY_LINE.test(trimmed)) {
      out.push(header);
      continue;
    }
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === "" && j - i <= 2) j++;
    const block: string[] = [];
    while (j < lines.length && block.length < MAX_BLOCK_LINES && lines[j]!.trim() !== "" && indentOf(lines[j]!) > indentOf(header))
      block.push(lines[j++]!.trim());
    if (!block.length) {
      out.push(header);
      continue;
    }
    out.push(`${trimmed} ${block.join(" ")}`);
    i = j - 1;
  }
  return out;
}

/** The box terraform draws round a diagnostic, at a line's start. */
const BOX = /^[│┃][ \t]?/;

/**
 * Lines with each paragraph inside terraform's box put on one line: it wraps its messages at the
 * box's width wherever a word ends (`… for provider` / `acme/widgets: the …`), so a
 * paragraph between two blank box lines is one message.
 */
export function joinBoxed(lines: string[]): string[] {
  const out: string[] = [];
  let open = false;
  for (const line of lines) {
    const boxed = BOX.test(line);
    const text = line.replace(BOX, "");
    if (boxed && open && text.trim() && out.length) out[out.length - 1] = `${out[out.length - 1]!.trimEnd()} ${text.trim()}`;
    else out.push(line);
    open = boxed && text.trim() !== "";
  }
  return out;
}
