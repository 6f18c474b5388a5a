import { fstatSync } from "node:fs";
import { commandNames, loadCommand } from "./commands/index.ts";
import type { CommandContext } from "./commands/_shared.ts";
import { helpText, overviewHelp, readCommandLine } from "./flags.ts";
import { asRkbError, RkbError, usageError } from "./base/errors.ts";
import { renderError, renderOutput, resolveFormat, type Format, type Output } from "./output/render.ts";
import { callerFrom, debugFromEnv, isAgent, stdinTimeoutMs, type Caller } from "./machine/settings.ts";
import { decodeInput, MAX_INPUT_BYTES, refusedInput, tooLarge } from "./base/text-input.ts";
import { VERSION_LINE } from "./base/version.ts";
import { editDistance } from "./text/distance.ts";

export interface CliResult {
  stdout: string;
  stderr: string;
  exit: number;
}

export interface CliIO {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Text to use as standard input; when absent, the process's stdin is read. */
  stdin?: string;
}

/** Runs one rkb invocation and returns what it prints; never throws. */
export async function runCli(argv: string[], io: CliIO = {}): Promise<CliResult> {
  const env = io.env ?? process.env;
  let format: Format = "human";
  try {
    format = resolveFormat(peekFormat(argv), env);
  } catch (e) {
    if (e instanceof RkbError) return renderError(e, peekFormat(argv).toon ? "toon" : "human");
  }
  try {
    if (argv[0] === "-v" || argv[0] === "-V" || argv[0] === "--version") return { stdout: VERSION_LINE + "\n", stderr: "", exit: 0 };
    const { name, rest, implicit } = splitCommand(argv);
    const wantsHelp = rest.includes("--help") || rest.includes("-h");
    if (name === "help") return { stdout: await helpFor(rest.find((a) => !a.startsWith("-"))), stderr: "", exit: 0 };
    if (implicit && wantsHelp) return { stdout: await overviewHelp(commandNames, loadCommand), stderr: "", exit: 0 };
    const cmd = await loadCommand(name);
    if (!cmd) throw unknownCommand(name);
    if (wantsHelp) return { stdout: helpText(cmd), stderr: "", exit: 0 };
    const line = await readCommandLine(cmd, rest);
    // A terminal is a character device (so is /dev/null, which reads as empty anyway). Not
    // process.stdin.isTTY: touching process.stdin builds a Node stream, which is slow to start.
    const stdinIsTTY = io.stdin === undefined && stdinIsTerminal();
    const ctx: CommandContext = {
      env,
      cwd: io.cwd ?? process.cwd(),
      format,
      place: { project: line.project, system: line.system, with: line.with },
      stdinIsTTY,
      stdin: async () => (io.stdin !== undefined ? checkedText(io.stdin) : stdinIsTTY ? "" : await stdinInput(env)),
      stdinPayload: async () => (io.stdin !== undefined ? io.stdin : stdinIsTTY ? "" : await Bun.stdin.text()),
      caller: callerFrom(env, { origin: "cli" }),
    };
    const out = await cmd.run(line.input, ctx);
    if (out.ask && format === "human" && io.stdin === undefined) {
      const answered = await answerHere(out.ask, env, ctx.caller);
      if (answered) return answered;
    }
    return renderOutput(out, format);
  } catch (e) {
    return renderError(asRkbError(e, debugFromEnv(env)), format);
  }
}

/**
 * A person who ran a write that asks, in their own terminal (stdin and stdout a terminal, no agent's
 * environment), answers at once from a menu instead of running `rkb confirm` after. Loaded only
 * here: the menu and the terminal check cost nothing on any other path.
 */
async function answerHere(asked: NonNullable<Output["ask"]>, env: NodeJS.ProcessEnv, caller: Caller): Promise<CliResult | undefined> {
  const [{ isatty }, { answerAtTerminal }, { askTerminal }, { confirmedOutput }] = await Promise.all([
    import("node:tty"),
    import("./write/confirm.ts"),
    import("./base/terminal.ts"),
    import("./output/written.ts"),
  ]);
  if (!isatty(0) || !isatty(1) || isAgent(caller)) return undefined;
  const done = await answerAtTerminal(env, asked, askTerminal);
  return done && renderOutput(confirmedOutput(done), "human");
}

const STDIN = "the text on stdin";

/** Text handed in as stdin (runCli's caller): decoded already, so only its size is left to check. */
function checkedText(text: string): string {
  if (text.length > MAX_INPUT_BYTES / 4 && Buffer.byteLength(text, "utf8") > MAX_INPUT_BYTES) throw refusedInput(STDIN, tooLarge());
  return text;
}

/**
 * Standard input under the input rule, read as it arrives: never more than 1 MiB of it, and an error
 * (not a hang) when a pipe stays open and silent: an agent's shell may hand rkb one that never closes.
 */
async function stdinInput(env: NodeJS.ProcessEnv): Promise<string> {
  const idleMs = stdinTimeoutMs(env);
  const reader = (Bun.stdin.stream() as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const silent = new Promise<"silent">((done) => (timer = setTimeout(() => done("silent"), idleMs)));
      const next = await Promise.race([reader.read(), silent]);
      clearTimeout(timer);
      if (next === "silent")
        throw usageError(
          `nothing arrived on stdin for ${idleMs / 1000} s, and the pipe stayed open`,
          "pipe the text in and close the pipe (`rkb add --topic git < lesson.md`), give it as words or flags, or set RKB_STDIN_TIMEOUT to wait longer",
        );
      if (next.done) break;
      size += next.value.length;
      if (size > MAX_INPUT_BYTES) throw refusedInput(STDIN, tooLarge());
      chunks.push(next.value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  // A NUL is left for the command to tell: a lesson's names its line.
  const text = decodeInput(Buffer.concat(chunks), true);
  if (typeof text !== "string") throw refusedInput(STDIN, text);
  return text;
}

function stdinIsTerminal(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true; // no stdin at all: nothing to read
  }
}

function peekFormat(argv: string[]): { format?: string; toon?: boolean } {
  const flags: { format?: string; toon?: boolean } = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--toon") flags.toon = true;
    else if (argv[i] === "--format") flags.format = argv[i + 1];
    else if (argv[i]!.startsWith("--format=")) flags.format = argv[i]!.slice(9);
  }
  return flags;
}

const globalValueFlags = new Set(["--format", "--project", "--system", "--with"]);

/** The command is the first word that is not a flag or a global flag's value; none → status. */
function splitCommand(argv: string[]): { name: string; rest: string[]; implicit: boolean } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (globalValueFlags.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith("-")) continue;
    return { name: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)], implicit: false };
  }
  return { name: "status", rest: argv, implicit: true };
}

/** `rkb help` is `rkb --help`; `rkb help <command>` is `rkb <command> --help`. */
async function helpFor(topic: string | undefined): Promise<string> {
  if (!topic) return overviewHelp(commandNames, loadCommand);
  const cmd = await loadCommand(topic);
  if (!cmd) throw unknownCommand(topic);
  return helpText(cmd);
}

function unknownCommand(name: string): RkbError {
  // The closest first: `lsit` is `list` (one swap), not `init` (two changes).
  const close = commandNames
    .map((c) => ({ c, d: editDistance(c, name) }))
    .filter(({ d }) => d <= 2)
    .sort((a, b) => a.d - b.d)
    .map(({ c }) => c);
  return usageError(
    `\`${name}\` is not an rkb command`,
    close.length ? `did you mean \`rkb ${close[0]}\`? (\`rkb --help\` lists the commands)` : `run \`rkb --help\` for the commands`,
  );
}
