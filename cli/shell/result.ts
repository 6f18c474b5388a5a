import { sha256Hex } from "../base/hash.ts";

// What a bash tool result says: the harness's trailer, the lines that say what went wrong, and a
// fingerprint of the failure. Pure functions: the session reader, capture, `eval --replay` and the
// failure value (failure.ts) share them, so a failure looks the same wherever rkb meets it.

// Both trailers sit on the last line that is not blank; they are looked for there only, because a
// pattern with a leading `\n*` or a trailing `[^\n]*\s*$` retries from every position of a long
// output (quadratic time on a run of newlines or spaces).
const EXIT_TRAILER = /Command exited with code (-?\d+)$/;
const OMP_WALL_TIME = "Wall time: ";
// Claude Code, and the error text the extension hands to `hook tool-failed`, lead with this line.
const EXIT_LEADER = /^Exit code (-?\d+)[ \t]*(?:\n|$)/;

/** The text up to where its last non-blank line starts, and that line. */
function lastLine(text: string): { head: string; line: string } {
  const trimmed = text.trimEnd();
  const start = trimmed.lastIndexOf("\n") + 1;
  return { head: trimmed.slice(0, start), line: trimmed.slice(start) };
}

/**
 * Removes what the harness appended to a command's output: pi's trailing `Command exited with
 * code N`, omp's `Wall time: …` (before that line, or alone after a success), and the leading
 * `Exit code N` line of Claude Code results. Returns the exit code when one was stated.
 */
export function stripHarnessTrailer(text: string): { text: string; exitCode?: number } {
  let rest = text;
  let exitCode: number | undefined;
  const leader = EXIT_LEADER.exec(rest);
  if (leader) {
    exitCode = Number(leader[1]);
    rest = rest.slice(leader[0].length);
  }
  let last = lastLine(rest);
  const trailer = EXIT_TRAILER.exec(last.line);
  if (trailer) {
    exitCode = Number(trailer[1]);
    rest = last.head + last.line.slice(0, trailer.index);
    last = lastLine(rest);
  }
  const wall = last.line.indexOf(OMP_WALL_TIME);
  if (wall !== -1) rest = last.head + last.line.slice(0, wall);
  return exitCode === undefined ? { text: rest.trimEnd() } : { text: rest.trimEnd(), exitCode };
}

// Words and phrases that say something went wrong, in the ways tools put it ("Can't operate",
// "Disk quota exceeded", "Address already in use", "is not recognized", "does not exist").
export const KEY_LINE =
  /error|fatal|failed|not found|undefined|cannot|can't|could not|couldn't|unable to|no such|invalid|unknown|unrecognized|not recognized|unexpected|illegal|denied|refused|panicked|no matches|exceeded|timed out|already in use|not permitted|does not exist|doesn't exist|no space left|out of memory|segmentation fault|incompatible|unsupported/i;

// Lines that only report that the errors above happened: the linker's exit status, make's
// `*** … Error 1`, "could not compile … due to previous error", CMake's "errors occurred",
// TeX's "Emergency stop", "compilation terminated", nginx's "configuration file … test failed",
// Gradle's "Build failed with an exception". They say nothing about which failure it was.
const AFTERMATH =
  /returned \d+ exit status|due to (?:\d+ )?previous errors?|errors? occurred|emergency stop|compilation terminated|configuration file \S+ test failed|build failed with an exception|\busage: \S+ \[/i;
// make's `*** … Error 1`, found from the first `***` (a `.*` between them retries from every `***`).
const MAKE_ERROR = /\bError \d+/;
export const isAftermath = (line: string): boolean => {
  const stars = line.indexOf("***");
  return AFTERMATH.test(line) || (stars !== -1 && MAKE_ERROR.test(line.slice(stars + 3)));
};

/**
 * The lines of an error that say what went wrong, without the aftermath lines that only count
 * the errors (unless nothing else is left); when no line matches, the last three lines.
 */
export function keyErrorLines(errorText: string): string[] {
  const lines = errorText
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("Exit code "));
  const keys = lines.filter((l) => KEY_LINE.test(l));
  const specific = keys.filter((l) => !isAftermath(l));
  return specific.length ? specific : keys.length ? keys : lines.slice(-3);
}

/**
 * What differs between two runs of the same failure: paths, hex addresses and ids, and numbers.
 * The failure signature masks these; the failure query drops them as noise.
 */
const WORD = /\S+/g;
const VOLATILE = [/\b0x[0-9a-f]+\b/gi, /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, /\b\d+(?:[.:,]\d+)*\b/g];

/** `C:\Users\ana\build.ps1`, `.\build.ps1`, `obj\Debug\App.dll`: a drive or `.` before a backslash, or two backslashes (one, as in `bash\r`, is an escape). */
function isWindowsPath(word: string): boolean {
  const first = word.indexOf("\\");
  return first !== -1 && (/^\W?(?:[A-Za-z]:|\.{1,2})\\/.test(word) || word.indexOf("\\", first + 1) !== -1);
}

export function replaceVolatile(text: string, by: string): string {
  // A path is a word holding a `/`, or a Windows path (found word by word: `\S*\/\S*` retries from every character).
  const withoutPaths = text.replace(WORD, (w) => (w.includes("/") || isWindowsPath(w) ? by : w));
  return VOLATILE.reduce((t, pattern) => t.replace(pattern, by), withoutPaths);
}

/**
 * A stable fingerprint of a failure, so the same error met in another session is recognised:
 * the program and its key error lines (keyErrorLines) with the volatile parts masked, hashed (24 hex chars).
 */
export function failureSignature(prog: string, keyLines: string[]): string {
  const basis = prog + "\n" + replaceVolatile(keyLines.join("\n"), "#");
  return sha256Hex(basis).slice(0, 24);
}
