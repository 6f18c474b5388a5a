import type { Failure } from "../shell/failure.ts";
import type { Stopped } from "./entries.ts";
import { isReadOnly } from "../shell/program.ts";
import { parseShell } from "../shell/shell.ts";

// Failed commands that teach nothing, told apart by what the command and its output show: a
// search that found nothing, a test of a path or a program, a check that answered "no" (an empty
// output with exit 1), a command the user stopped or refused, a wait loop that ran out of time.
// None of these becomes a draft pitfall; the failure is still counted.

export type ProbeKind = "search" | "path test" | "check" | "stopped" | "wait loop";

/** Programs that search: exit 1 with nothing printed means "no match". */
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "ugrep", "pgrep", "findstr", "select-string"]);
/** Programs that only ask whether a path, a program or a name exists. */
const PATH_TESTS = new Set(["test", "[", "[[", "ls", "stat", "which", "whereis", "type", "file", "realpath", "readlink", "find", "fd", "command"]);
/** What a tool prints when a path it was asked about is not there. */
const MISSING =
  /no such file or directory|cannot access|does not exist|doesn't exist|not found|no matches found|did not match any file|cannot find the (?:file|path)/i;
/** Harness lines for a command stopped by the user or by a time limit. */
const STOPPED_OUTPUT =
  /^(?:command aborted|\[request interrupted by user[^\]]*\]|command (?:was )?(?:timed out|killed)\b[^\n]*|command timed out after [^\n]*)$/i;
/** `timeout N …` killed it (124), or a signal did (SIGINT 130, SIGKILL 137, SIGTERM 143). */
const TIMEOUT_CODES = new Set([124, 130, 137, 143]);

/** Why a failed command teaches nothing, or undefined when it may. */
export function probeKind(failure: Pick<Failure, "command" | "program" | "exitCode" | "output">, stopped?: Stopped): ProbeKind | undefined {
  if (stopped) return stopped === "timeout" ? "wait loop" : "stopped";
  const { command, program, exitCode } = failure;
  const output = failure.output.trim();
  if (STOPPED_OUTPUT.test(output)) return "stopped";
  if (isWaitLoop(command) && (exitCode === undefined || TIMEOUT_CODES.has(exitCode) || output === "")) return "wait loop";
  const empty = output === "" || output === "(no output)";
  if (empty && exitCode === 1) return searchesLast(command) || SEARCHERS.has(program) ? "search" : "check";
  if (SEARCHERS.has(program) && (empty || MISSING.test(output))) return "search";
  if (isReadOnly(command) && (empty || onlyMissing(output))) return PATH_TESTS.has(program) ? "path test" : "check";
  return undefined;
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
