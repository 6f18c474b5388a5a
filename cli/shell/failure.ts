import { tokenize } from "../text/tokenize.ts";
import { errorShaped, joinBoxed, joinContinued, lineSpeaker, SEVERITY } from "./error-lines.ts";
import { invocation, launchedProgram, type Invocation } from "./program.ts";
import { failureSignature, isAftermath, keyErrorLines, replaceVolatile, stripHarnessTrailer } from "./result.ts";

// A failed command, read once: what it runs, its exit code, and its error as tools print it
// (colours, log prefixes, wrapped lines and chains of causes undone), its key lines, error codes
// and the programs that speak in it. The hook, capture, `eval --failures` / `--replay` and
// `--explain` build one per failed command and hand it on; the failure rule (search/failure.ts)
// decides on it and never reads the raw strings again. Each part is worked out the first time it
// is asked for, so capture, which needs the program and the key lines, pays for nothing else.

/** A failed command, read once. */
export interface Failure {
  command: string;
  /** The program the command runs (shell/program.ts `program`: past wrappers like `sudo`, `npx`, `uv run`). */
  program: string;
  /** What a remote launcher (`docker exec`, `kubectl exec`, `ssh`) that is the program runs elsewhere, or "". */
  launched: string;
  /** The program's arguments: the names this run is about (the package installed, the unit started). */
  args: string[];
  exitCode?: number;
  /** The output without the harness's trailer. */
  output: string;
  /** The key lines of the output as printed: what a signature, a draft and `add --from` keep. */
  readonly outputLines: string[];
  /** The failure's fingerprint (shell/result.ts failureSignature). */
  readonly signature: string;
  /** The error as the failure rule reads it: no colour codes or log prefixes, typographic quotes plain, wrapped sentences joined. */
  readonly text: string;
  /** The key lines of that text. */
  readonly keyLines: string[];
  /** Those lines and the lines tools print as errors without an error word (make's `***`, `curl: (60) …`), cleaned of noise (locations, paths, ids, numbers), a chain's root cause before its line, each once: what the query and the quote matching read. */
  readonly lines: string[];
  /** Every line of the text, cleaned of noise, each once (the first ones): what a lesson's quoted symptom is held against. */
  readonly textLines: string[];
  /** The error codes of the text (`E0382`, `EACCES`, `ERR_REQUIRE_ESM`), lowercased. */
  readonly codes: string[];
  /** The program, the launched one, and the names that start key lines (`nginx:`, `npm ERR!`), lowercased, each once. */
  readonly programs: string[];
}

/** A failure from a command's result as the harness hands it over (its `Exit code N` leader or trailer still in). */
export function readFailure(command: string, result: string): Failure {
  const { text, exitCode } = stripHarnessTrailer(result);
  return failureOf(command, text, exitCode);
}

/**
 * A failure from output already without the harness's trailer (a session event, as the reader
 * gives it); `run` is the command already read, when the caller has read it.
 */
export function failureOf(command: string, output: string, exitCode?: number, run: Invocation = invocation(command)): Failure {
  const program = run.program;
  const launched = launchedProgram(run);
  let outputLines: string[] | undefined;
  let signature: string | undefined;
  let text: string | undefined;
  let keyLines: string[] | undefined;
  let lines: string[] | undefined;
  let textLines: string[] | undefined;
  let codes: string[] | undefined;
  let programs: string[] | undefined;
  return {
    command,
    program,
    launched,
    args: run.args,
    ...(exitCode === undefined ? {} : { exitCode }),
    output,
    get outputLines() {
      return (outputLines ??= keyErrorLines(output));
    },
    get signature() {
      return (signature ??= failureSignature(program, this.outputLines));
    },
    get text() {
      return (text ??= cleanText(output));
    },
    get keyLines() {
      return (keyLines ??= keyErrorLines(this.text));
    },
    get lines() {
      return (lines ??= queryLines(errorLines(this.text, this.keyLines)));
    },
    get textLines() {
      return (textLines ??= cleanLines(this.text));
    },
    get codes() {
      return (codes ??= errorCodes(this.text));
    },
    get programs() {
      return (programs ??= speakingPrograms([program, launched], this.keyLines));
    },
  };
}

/** A place in a file or input (`line 1:`, `column 7`): where the error is, not which error. */
const LOCATION = /\b(?:line|column|col)\s+\d+/gi;

/** A file and line (`Makefile:14:`, `main.go:4:2`, `CMakeLists.txt:3`): where the error is; found from a token's start only. */
const FILE_LOCATION = /(?<![^\s([])[A-Za-z_][\w.+-]*:\d+(?::\d+)*/g;

/** A UUID (`ac37f2bc-8d81-4cac-8430-5155da5cdbf6`): an id of this run, whose short groups are no hex id on their own. */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** A quoted string that starts with a path or address (`'https://host/repo stable Release'`): one name of this run, quotes and all. */
const QUOTED_PATH = /(['"])[^'"\s]*[/\\][^'"\n]{0,200}\1/g;

/** A key error line without the parts that only add noise to a query (locations, paths, ids, numbers). */
export function withoutNoise(line: string): string {
  const located = line.replace(QUOTED_PATH, " ").replace(LOCATION, " ").replace(FILE_LOCATION, " ").replace(UUID, " ");
  return replaceVolatile(located, " ").replace(/\s+/g, " ").trim();
}

/** Terminal colour and cursor codes (`ESC[1;31m`): how a tool paints its output, not what it says. */
const ANSI = /\x1b\[[0-9;?]{0,32}[A-Za-z]/g;

/**
 * Prefixes a line gets from where it was logged, which say when and where, not what: a journal or
 * syslog stamp (`Nov 02 11:03:44 web1 systemd[1]: `, its process kept as the line's speaker), an
 * ISO time, klog's `E1128 10:02:11.123456 48213 memcache.go:265] `, and the box terraform draws
 * round a message (`│ `). Each is anchored at the line's start.
 */
const LOG_PREFIXES: [RegExp, string][] = [
  [/^[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)? \S+ ([\w.@-]+)(?:\[\d+\])?: /, "$1: "],
  [/^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+/, ""],
  [/^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.-]+:\d+\] /, ""],
  [/^[│┃╷╵][ \t]?/, ""],
];

/**
 * A sentence a tool wrapped over several lines: a line of at least this many characters that
 * stops after a word or a comma, followed by one at the same indentation that starts with a plain
 * lower-case word (not `collect2:`, `fatal:` or `npm ERR!`, which start another message).
 */
const WRAP_MIN_CHARS = 50;

function continuesOnNext(line: string, next: string): boolean {
  const indent = (l: string) => l.length - l.trimStart().length;
  return (
    line.trim().length >= WRAP_MIN_CHARS &&
    /[A-Za-z,]$/.test(line.trimEnd()) &&
    /^[a-z][a-z'-]*(?:[\s,.]|$)/.test(next.trimStart()) &&
    lineSpeaker(next) === undefined &&
    indent(line) === indent(next)
  );
}

/** Lines with each wrapped sentence put back on one line, so a key line holds the whole message. */
export function joinWrapped(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.length < MAX_FAILURE_LINE_CHARS && continuesOnNext(prev, line)) out[out.length - 1] = `${prev.trimEnd()} ${line.trim()}`;
    else out.push(line);
  }
  return out;
}

function withoutLogPrefix(line: string): string {
  for (const [prefix, by] of LOG_PREFIXES) line = line.replace(prefix, by);
  return line;
}

/** An error as the rule reads it: without colour codes and log prefixes, terraform's boxed paragraphs, wrapped sentences and error headers with their blocks joined. */
function cleanText(output: string): string {
  const lines = joinBoxed(plainQuotes(output.replace(ANSI, "")).split("\n"));
  return joinContinued(joinWrapped(lines.map(withoutLogPrefix))).join("\n");
}

/** Typographic quotes as ASCII ones: GNU tools in a UTF-8 locale print ‘bash\r’ where a lesson may quote 'bash\r'. */
export function plainQuotes(text: string): string {
  return text.replace(/[‘’‚‛]/g, "'").replace(/[“”„]/g, '"');
}

/**
 * A failure is judged on its first key lines, each cut to a length real error lines stay under:
 * a 10 MB log line or a hundred thousand error lines would otherwise make each hook as slow as
 * the output is long, for no better match.
 */
const MAX_FAILURE_LINES = 32;
const MAX_FAILURE_LINE_CHARS = 1_000;

/**
 * The key lines, then the lines tools print as errors without an error word (make's `***`,
 * `curl: (60) …`, `/usr/bin/ld: …: multiple definition of …`), leaving out the aftermath lines
 * when anything else is left.
 */
function errorLines(text: string, keyLines: string[]): string[] {
  const known = new Set(keyLines);
  const shaped = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => errorShaped(l) && !isAftermath(l) && !known.has(l));
  const specific = keyLines.filter((l) => !isAftermath(l));
  return specific.length || !shaped.length ? [...keyLines, ...shaped] : shaped;
}

/** Lines of the text a lesson's quotes are held against: the first ones, each cut to a line's length. */
const MAX_TEXT_LINES = 48;

function cleanLines(text: string): string[] {
  const out = new Set<string>();
  for (const l of text.split("\n")) {
    if (out.size >= MAX_TEXT_LINES) break;
    const line = withoutNoise(l.slice(0, MAX_FAILURE_LINE_CHARS));
    if (line) out.add(line);
  }
  return [...out];
}

/** The key lines of an error, cleaned of noise, each once. */
function queryLines(keyLines: string[]): string[] {
  const lines = keyLines.slice(0, MAX_FAILURE_LINES).flatMap((l) => {
    const line = withoutNoise(l.slice(0, MAX_FAILURE_LINE_CHARS));
    const cause = rootCause(line);
    return cause ? [cause, line] : [line];
  });
  return [...new Set(lines.filter((l) => tokenize(l).length > 0))];
}

/** A line chaining at least this many messages with `: ` and this many words is a chain of causes… */
const CHAIN_MIN_CLAUSES = 3;
const CHAIN_MIN_TERMS = 24;
/** …whose last messages, up to this many words, are the root cause. */
const ROOT_CAUSE_MAX_TERMS = 16;

/**
 * The root cause at the end of a long line that wraps each error in the one that caused it
 * (Maven's "Failed to execute goal …: Could not resolve dependencies …: … : PKIX path building
 * failed: …"; Go's and Java's chains read the same way): its last messages, read as a key line of
 * their own before the whole line, which says mostly what was being done.
 */
function rootCause(line: string): string | undefined {
  const clauses = line.split(": ");
  if (clauses.length < CHAIN_MIN_CLAUSES || tokenize(line).length < CHAIN_MIN_TERMS) return undefined;
  let from = clauses.length - 1;
  let terms = tokenize(clauses[from]!).length;
  while (from > 1 && terms + tokenize(clauses[from - 1]!).length <= ROOT_CAUSE_MAX_TERMS) terms += tokenize(clauses[--from]!).length;
  return clauses.slice(from).join(": ");
}

/** An error code names one error (`E0382`, `NU1101`, `EACCES`, `ERR_REQUIRE_ESM`, `203/EXEC`); read from the raw text, where case still tells. */
const ERROR_CODE = /(?<![\w/-])(?:[A-Z]{1,8}\d{3,6}|E[A-Z]{4,}|ERR_[A-Z0-9_]+|\d{3}\/[A-Z]{3,})(?![\w/-])/g;

/** The error codes a text names, lowercased, each once (a lesson's quotes are read the same way). */
export function errorCodes(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(ERROR_CODE)) if (!SEVERITY.has(m[0].toLowerCase())) out.add(m[0].toLowerCase());
  return [...out];
}

/**
 * The names that print an error's lines: the command's programs and a word that starts a key line
 * before a colon or `ERR!` (`nginx:`, `/usr/bin/ld:`, `npm ERR!`, `go:`), lowercased, each once.
 */
export function speakingPrograms(commandPrograms: string[], rawLines: string[]): string[] {
  const names = [...commandPrograms];
  for (const line of rawLines) {
    const name = lineSpeaker(line);
    if (name) names.push(name);
  }
  return [...new Set(names.map((n) => n.toLowerCase()).filter((n) => n && !SEVERITY.has(n)))];
}
