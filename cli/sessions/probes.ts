import type { Failure } from "../shell/failure.ts";
import type { Stopped } from "./entries.ts";
import { invocation, isReadOnly } from "../shell/program.ts";
import { parseShell } from "../shell/shell.ts";
import { formats, formatsLintsOrDiffs } from "../shell/task.ts";

// Failed commands that teach nothing, told apart by what the command and its output show: a
// search that found nothing, a test of a path or a program, a check that answered "no" (an empty
// output with exit 1, a `--check` run listing what differs, a formatter printing its diff), a command the user stopped or
// refused, one a harness hook blocked, a wait loop or a command that ran out of time. None of
// these becomes a draft pitfall; the failure is still counted.

export type ProbeKind = "search" | "path test" | "check" | "stopped" | "blocked" | "timed out" | "wait loop";

/** Programs that search: exit 1 with nothing printed means "no match". */
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "ugrep", "pgrep", "findstr", "select-string"]);
/** Programs that only ask whether a path, a program or a name exists. */
const PATH_TESTS = new Set(["test", "[", "[[", "ls", "stat", "which", "whereis", "type", "file", "realpath", "readlink", "find", "fd", "command"]);
/** What a tool prints when a path it was asked about is not there. */
const MISSING =
  /no such file or directory|cannot access|does not exist|doesn't exist|not found|no matches found|did not match any file|cannot find the (?:file|path)/i;
/** Harness lines for a command the user stopped, first or last in its output (pi puts it after what the command printed). */
const STOPPED_LINE = /^(?:command aborted|\[request interrupted by user[^\]]*\]|command (?:was )?killed\b.*)$/i;
/** Harness lines for a command a time limit stopped. */
const TIMED_OUT_LINE = /^command (?:was )?timed out\b.*$/i;
/** What a harness says when one of its hooks refused to run the command (Claude Code's PreToolUse hooks). */
const BLOCKED_LINE = /^(?:\S+ operation blocked by hook\b|pretooluse:\S+ hook (?:error|blocked)\b|(?:command )?blocked by (?:a |the )?(?:\S+ )?hook\b)/i;
/** Options that ask a tool whether the code already is as it should be (formatted, unchanged): a non-zero exit is its answer. */
const CHECK_FLAGS = new Set(["--check", "-check", "--exit-code", "--list-different", "--check-formatted", "--diff-exit-code"]);
/** …unless the tool did not know the option: then the flag itself was the mistake. */
const UNKNOWN_OPTION = /unknown (?:option|flag|argument)|unrecognized (?:option|argument)|unexpected argument|invalid option|no such option|usage:/i;
/** `timeout N …` killed it (124), or a signal did (SIGINT 130, SIGKILL 137, SIGTERM 143). */
const TIMEOUT_CODES = new Set([124, 130, 137, 143]);

/** Why a failed command teaches nothing, or undefined when it may. */
export function probeKind(failure: Pick<Failure, "command" | "program" | "exitCode" | "output">, stopped?: Stopped): ProbeKind | undefined {
  if (stopped) return stopped === "timeout" ? "wait loop" : "stopped";
  const { command, program, exitCode } = failure;
  const output = failure.output.trim();
  const nl = output.indexOf("\n");
  const first = nl === -1 ? output : output.slice(0, nl).trim();
  const last = output.slice(output.lastIndexOf("\n") + 1).trim();
  if (STOPPED_LINE.test(first) || STOPPED_LINE.test(last)) return "stopped";
  if (BLOCKED_LINE.test(first)) return "blocked";
  if (isWaitLoop(command) && (exitCode === undefined || TIMEOUT_CODES.has(exitCode) || output === "")) return "wait loop";
  if (TIMED_OUT_LINE.test(first) || TIMED_OUT_LINE.test(last)) return "timed out";
  const empty = output === "" || output === "(no output)";
  if (empty && exitCode === 1) return searchesLast(command) || SEARCHERS.has(program) ? "search" : "check";
  if (SEARCHERS.has(program) && (empty || MISSING.test(output))) return "search";
  if (isReadOnly(command) && (empty || onlyMissing(output))) return PATH_TESTS.has(program) ? "path test" : "check";
  if (asksToCheck(command) && !UNKNOWN_OPTION.test(output)) return "check";
  // A formatter's answer in its own words: the diff it would apply (`dune build @fmt`).
  if (formats(invocation(command, 0, true)) && DIFF.test(output)) return "check";
  return undefined;
}

/** A diff's header lines. */
const DIFF = /^(?:diff --git |--- \S|\+\+\+ \S|@@ -\d)/m;

/**
 * A formatter, linter or diff was given a check option (`terraform fmt -check`, `prettier --check
 * .`, `cargo fmt --check`, `git diff --exit-code`). Elsewhere the same option means a dry run
 * (`ansible-playbook --check`), which fails as the real run would.
 */
function asksToCheck(command: string): boolean {
  const run = invocation(command, 0, true);
  return run.args.some((a) => CHECK_FLAGS.has(a)) && formatsLintsOrDiffs(run);
}

/** A success that only says a filter found lines (`make 2>&1 | grep -v warning`): the pipeline's exit status is the filter's. */
export function filteredSuccess(command: string): boolean {
  const last = parseShell(command).at(-1);
  return last !== undefined && last.length > 1 && searchesLast(command);
}

/** Every line of the output says a path or name is missing (`ls: cannot access 'x'`, `cat: y: No such file…`). */
export function onlyMissing(output: string): boolean {
  const lines = output.split("\n").filter((l) => l.trim() !== "");
  return lines.length > 0 && lines.length <= 5 && lines.every((l) => MISSING.test(l));
}

/** The last stage of the last pipeline searches (`make 2>&1 | grep error` exits 1 when nothing matched). */
function searchesLast(command: string): boolean {
  const last = parseShell(command).at(-1)?.at(-1);
  const word = last?.words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  return word !== undefined && SEARCHERS.has(word.replace(/^.*\//, ""));
}

/** Programs that only pass time or print. */
const IDLE = new Set(["sleep", "echo", "printf", "true", ":"]);

/**
 * A command that only passes time (`sleep 5 && echo done`): stopping it ends the pause and says
 * nothing of the agent's approach. A loop waiting for something is not that: stopping it says the
 * thing will not come.
 */
export function onlyPasses(command: string): boolean {
  const programs = parseShell(command)
    .flat()
    .map((stage) => stage.words[0] ?? "");
  return programs.includes("sleep") && programs.every((p) => IDLE.has(p));
}

/** A loop that waits for something: `until …; do sleep …`, `while …`, `for … sleep`, or `timeout N` around a wait. */
function isWaitLoop(command: string): boolean {
  const words = shellWords(command, 0);
  const loop = words.some((w) => w === "until" || w === "while") || (words.includes("for") && words.includes("sleep"));
  const waits = words.some((w) => w === "sleep" || /^(?:curl|wget|nc|pg_isready|kubectl)$/.test(w));
  return (loop && waits) || (words[0] === "timeout" && waits);
}

/** Every word of a command line, the words of a `sh -c '…'` string included. */
function shellWords(command: string, depth: number): string[] {
  const words = parseShell(command)
    .flat()
    .flatMap((stage) => stage.words);
  if (depth >= 2) return words;
  return words.flatMap((w, i) => (i > 0 && /^-[a-z]*c$/.test(words[i - 1]!) && /^(?:ba|z|da|k)?sh$/.test(words[i - 2] ?? "") ? shellWords(w, depth + 1) : [w]));
}
