import { sha256Hex } from "../hash.ts";

// What a bash tool result says. Pure functions: the hooks, `eval --replay` and the failure query
// share them, so a failure looks the same wherever rkb meets it.

const EXIT_TRAILER = /\n*Command exited with code (-?\d+)\s*$/;
const OMP_WALL_TIME = /\n*Wall time: [^\n]*\s*$/;
// Claude Code, and the error text the extension hands to `hook tool-failed`, lead with this line.
const EXIT_LEADER = /^Exit code (-?\d+)[ \t]*(?:\n|$)/;

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
  const trailer = EXIT_TRAILER.exec(rest);
  if (trailer) {
    exitCode = Number(trailer[1]);
    rest = rest.slice(0, trailer.index);
  }
  const wall = OMP_WALL_TIME.exec(rest);
  if (wall) rest = rest.slice(0, wall.index);
  return exitCode === undefined ? { text: rest.trimEnd() } : { text: rest.trimEnd(), exitCode };
}

/**
 * The program a command runs: the first word that is not a `VAR=value` assignment, without
 * quotes or a subshell parenthesis, and without its directory (`CC=gcc /usr/bin/make -j8` → `make`).
 */
export function program(command: string): string {
  for (const raw of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(raw)) continue;
    const word = raw.replace(/^[('"]+|[)'"]+$/g, "");
    if (!word) continue;
    const slash = word.lastIndexOf("/");
    return slash >= 0 && slash < word.length - 1 ? word.slice(slash + 1) : word;
  }
  return "";
}

const KEY_LINE =
  /error|fatal|failed|not found|undefined|cannot|could not|no such|invalid|unknown|unrecognized|unexpected|illegal|denied|refused|panicked|no matches/i;

// Lines that only report that the errors above happened: the linker's exit status, make's
// `*** … Error 1`, "could not compile … due to previous error", CMake's "errors occurred",
// TeX's "Emergency stop", "compilation terminated". They say nothing about which failure it was.
const AFTERMATH =
  /returned \d+ exit status|\*\*\*.*\bError \d+|due to (?:\d+ )?previous errors?|errors? occurred|emergency stop|compilation terminated/i;

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
  const specific = keys.filter((l) => !AFTERMATH.test(l));
  return specific.length ? specific : keys.length ? keys : lines.slice(-3);
}

/**
 * What differs between two runs of the same failure: paths, hex addresses and ids, and numbers.
 * The failure signature masks these; the failure query drops them as noise.
 */
const VOLATILE = [/\S*\/\S*/g, /\b0x[0-9a-f]+\b/gi, /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, /\b\d+(?:[.:,]\d+)*\b/g];

export function replaceVolatile(text: string, by: string): string {
  return VOLATILE.reduce((t, pattern) => t.replace(pattern, by), text);
}

/**
 * A stable fingerprint of a failure, so the same error met in another session is recognised:
 * the program and its key error lines with the volatile parts masked, hashed (24 hex chars).
 */
export function failureSignature(prog: string, errorText: string): string {
  const basis = prog + "\n" + replaceVolatile(keyErrorLines(errorText).join("\n"), "#");
  return sha256Hex(basis).slice(0, 24);
}
