import { parseArgs, type ArgsDef } from "citty";
import { fstatSync } from "node:fs";
import { commandNames, loadCommand } from "./commands/index.ts";
import { globalArgs, keyValues, type RkbCommand } from "./commands/_shared.ts";
import { RkbError, usageError } from "./output/errors.ts";
import { renderError, renderOutput, resolveFormat, type Format } from "./output/render.ts";
import { VERSION_LINE } from "./version.ts";
import { editDistance } from "./distance.ts";

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
    if (implicit && wantsHelp) return { stdout: await overviewHelp(), stderr: "", exit: 0 };
    const cmd = await loadCommand(name);
    if (!cmd) throw unknownCommand(name);
    if (wantsHelp) return { stdout: helpText(cmd), stderr: "", exit: 0 };
    checkFlags(cmd, rest);
    const allArgs = { ...cmd.args, ...globalArgs } as ArgsDef;
    let args: any;
    try {
      args = parseArgs(rest, allArgs);
    } catch (e) {
      throw usageError(`${(e as Error).message} for \`rkb ${cmd.name}\``, `see \`rkb ${cmd.name} --help\``);
    }
    for (const [key, def] of Object.entries(cmd.args)) {
      if ((def as any).required && (args[key] === undefined || args[key] === "")) {
        throw usageError(`\`rkb ${cmd.name}\` needs ${(def as any).type === "positional" ? `<${key}>` : `--${key}`}`, `see \`rkb ${cmd.name} --help\``);
      }
    }
    const place = {
      project: args.project || env.RKB_PROJECT || undefined,
      system: args.system || env.RKB_SYSTEM || undefined,
      with: keyValues(rest, "with", "hdf5=1.14.3"),
    };
    // A terminal is a character device (so is /dev/null, which reads as empty anyway). Not
    // process.stdin.isTTY: touching process.stdin builds a Node stream, which is slow to start.
    const stdinIsTTY = io.stdin === undefined && stdinIsTerminal();
    const out = await cmd.run({
      args,
      rawArgs: rest,
      format,
      place,
      env,
      cwd: io.cwd ?? process.cwd(),
      stdinIsTTY,
      stdin: async () => (io.stdin !== undefined ? io.stdin : stdinIsTTY ? "" : await Bun.stdin.text()),
    });
    return renderOutput(out, format);
  } catch (e) {
    if (e instanceof RkbError) return renderError(e, format);
    const message = e instanceof Error ? e.message : String(e);
    if (env.RKB_DEBUG) console.error(e);
    return renderError(new RkbError("io", message, "this is a bug in rkb if it persists; rerun with RKB_DEBUG=1 and report the output"), format);
  }
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

function unknownCommand(name: string): RkbError {
  const close = commandNames.filter((c) => editDistance(c, name) <= 2);
  return usageError(
    `\`${name}\` is not an rkb command`,
    close.length ? `did you mean \`rkb ${close[0]}\`? (\`rkb --help\` lists the commands)` : `run \`rkb --help\` for the commands`,
  );
}

function checkFlags(cmd: RkbCommand, rest: string[]): void {
  const known = new Map<string, ArgsDefEntry>();
  for (const [key, def] of Object.entries({ ...cmd.args, ...globalArgs })) {
    if ((def as any).type === "positional") continue;
    known.set(key, def as ArgsDefEntry);
    for (const alias of [(def as any).alias ?? []].flat()) known.set(alias, def as ArgsDefEntry);
  }
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "--") break;
    if (!a.startsWith("-") || a === "-") continue;
    const name = a.replace(/^--?/, "").split("=")[0]!;
    const def = known.get(name) ?? (name.startsWith("no-") ? known.get(name.slice(3)) : undefined);
    if (!def) {
      const own = Object.entries(cmd.args).filter(([, d]) => (d as any).type !== "positional").map(([k]) => `--${k}`);
      throw usageError(
        `\`${a}\` is not a flag of \`rkb ${cmd.name}\``,
        `valid for \`rkb ${cmd.name}\`: ${own.join(", ") || "(none)"}; on every command: --format, --toon, --project, --system, --with, --help`,
      );
    }
    if (def.type === "string" && !a.includes("=")) {
      const value = rest[i + 1];
      if (value === undefined) throw usageError(`\`${a}\` needs a value`, `see \`rkb ${cmd.name} --help\``);
      i++;
    }
  }
}
type ArgsDefEntry = { type?: string };

async function overviewHelp(): Promise<string> {
  const lines = [`${VERSION_LINE}: lessons learned, for the pi and omp coding agents`, "", "Usage: rkb [command] [flags]   (no command: where rkb runs and what it holds)", "", "Commands:"];
  for (const name of commandNames) lines.push(`  ${name.padEnd(12)} ${(await loadCommand(name))!.description}`);
  lines.push("", "Every command takes --format human|json|toon (or --toon) and --help.", "", "Example:", '  rkb search "could not find zlib"', "");
  return lines.join("\n");
}

function helpText(cmd: RkbCommand): string {
  const lines = [`rkb ${cmd.name} — ${cmd.description}`, "", "Usage:"];
  const positionals = Object.entries(cmd.args).filter(([, d]) => (d as any).type === "positional");
  lines.push(`  rkb ${cmd.name}${positionals.map(([k, d]) => ((d as any).required ? ` <${k}>` : ` [${k}]`)).join("")} [flags]`);
  const flagLines = (defs: ArgsDef) =>
    Object.entries(defs)
      .filter(([, d]) => (d as any).type !== "positional")
      .map(([k, d]) => {
        const hint = (d as any).type === "string" ? ` <${(d as any).valueHint ?? "value"}>` : "";
        return `  --${k}${hint}`.padEnd(30) + ` ${(d as any).description ?? ""}`;
      });
  if (positionals.length) {
    lines.push("", "Arguments:");
    for (const [k, d] of positionals) lines.push(`  ${k}`.padEnd(30) + ` ${(d as any).description ?? ""}`);
  }
  const own = flagLines(cmd.args);
  if (own.length) lines.push("", "Flags:", ...own);
  lines.push("", "Global flags:", ...flagLines(globalArgs), "  --help".padEnd(30) + " Show this help");
  lines.push("", "Example:", ...cmd.examples.map((e) => "  " + e), "");
  return lines.join("\n");
}
