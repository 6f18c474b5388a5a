import { parseArgs, type ArgsDef } from "citty";
import type { TSchema } from "typebox";
import type { RkbCommand } from "./commands/_shared.ts";
import { expectedWord, inputProblem } from "./base/input.ts";
import { commandInput } from "./commands/inputs.ts";
import { usageError } from "./base/errors.ts";
import { inputTextError } from "./base/text-input.ts";
import { VERSION_LINE } from "./base/version.ts";

// The command-line adapter: turns argv into a command's input, checked by the command's one TypeBox
// schema, and writes `--help` from that schema. A property `some_name` is the flag `--some-name`
// unless the command's CliShape says otherwise.

/** Flags every command accepts; the dispatcher reads them, they are not part of any input. */
export const globalArgs = {
  format: { type: "string", description: "Output format: human, json or toon", valueHint: "human|json|toon" },
  toon: { type: "boolean", description: "Same as --format toon (for agents)" },
  project: { type: "string", description: "Treat the current place as this project (also RKB_PROJECT)" },
  system: { type: "string", description: "Treat the current place as this system (also RKB_SYSTEM)" },
  with: { type: "string", description: "Add a fact for `when` checks, key=value (repeatable)", valueHint: "key=value" },
} as const satisfies ArgsDef;

type FlagKind = "string" | "number" | "boolean" | "list" | "pairs" | "choice";

interface Flag {
  prop: string;
  flag: string;
  kind: FlagKind;
  description: string;
  valueHint?: string;
  example?: string;
  /** For a choice flag: the value it sets. */
  value?: string;
}

interface SchemaShape {
  type?: string;
  description?: string;
}

const props = (cmd: RkbCommand) => commandInput(cmd.name).schema.properties as Record<string, TSchema>;
const isRequired = (cmd: RkbCommand, prop: string) => (commandInput(cmd.name).schema.required ?? []).includes(prop);

function kindOf(schema: TSchema): FlagKind {
  switch ((schema as SchemaShape).type) {
    case "boolean":
      return "boolean";
    case "integer":
    case "number":
      return "number";
    case "array":
      return "list";
    case "object":
      return "pairs";
  }
  return "string";
}

const flagsRead = new WeakMap<RkbCommand, Flag[]>();

/** The command's flags, in the order of its schema (worked out once per command: a command line reads them several times). */
function flagsOf(cmd: RkbCommand): Flag[] {
  let flags = flagsRead.get(cmd);
  if (!flags) flagsRead.set(cmd, (flags = readFlags(cmd)));
  return flags;
}

function readFlags(cmd: RkbCommand): Flag[] {
  const shape = cmd.cli ?? {};
  const words = new Set([...(shape.positionals ?? []), ...(shape.variadic ? [shape.variadic] : []), ...(shape.stdin ? [shape.stdin] : [])]);
  const flags: Flag[] = [];
  for (const [prop, schema] of Object.entries(props(cmd))) {
    if (words.has(prop)) continue;
    const choices = shape.choices?.[prop];
    if (choices) {
      for (const [value, description] of Object.entries(choices)) flags.push({ prop, flag: value, kind: "choice", value, description });
      continue;
    }
    const own = shape.flags?.[prop];
    flags.push({
      prop,
      flag: own?.flag ?? prop.replace(/_/g, "-"),
      kind: kindOf(schema),
      description: (schema as SchemaShape).description ?? "",
      valueHint: own?.valueHint,
      example: own?.example,
    });
  }
  return flags;
}

function positionalsOf(cmd: RkbCommand): string[] {
  const shape = cmd.cli ?? {};
  return [...(shape.positionals ?? []), ...(shape.variadic ? [shape.variadic] : [])];
}

/** citty's view of the command's flags (it parses the command line). */
function argsDef(cmd: RkbCommand): ArgsDef {
  const def: ArgsDef = {};
  for (const p of positionalsOf(cmd)) def[p] = { type: "positional", required: false, description: (props(cmd)[p] as SchemaShape).description ?? "" };
  for (const f of flagsOf(cmd)) def[f.flag] = { type: f.kind === "boolean" || f.kind === "choice" ? "boolean" : "string", description: f.description };
  return { ...def, ...globalArgs };
}

export interface CommandLine {
  input: Record<string, unknown>;
  project?: string;
  system?: string;
  with: Record<string, string>;
}

/** Reads a command line into the command's input; a usage error names the flag and the fix. */
export async function readCommandLine(cmd: RkbCommand, rest: string[]): Promise<CommandLine> {
  const def = argsDef(cmd);
  checkFlags(cmd, def, rest);
  const help = `see \`rkb ${cmd.name} --help\``;
  let args: Record<string, unknown> & { _: string[] };
  try {
    // citty answers with a proxy that tries two other spellings of every name it lacks (~0.4 ms
    // over a command's flags in a fresh process); its own keys, copied once, are all we read.
    args = { ...parseArgs(rest, def) } as typeof args;
  } catch (e) {
    throw usageError(`${(e as Error).message} for \`rkb ${cmd.name}\``, help);
  }
  const input: Record<string, unknown> = {};
  const raw: Record<string, string> = {};
  const words = args._.map(String);
  const shape = cmd.cli ?? {};
  (shape.positionals ?? []).forEach((p, i) => {
    if (words[i] !== undefined && words[i] !== "") input[p] = raw[p] = words[i]!;
  });
  if (shape.variadic) {
    const restWords = words.slice(shape.positionals?.length ?? 0);
    if (restWords.length) input[shape.variadic] = kindOf(props(cmd)[shape.variadic]!) === "list" ? restWords : restWords.join(" ");
  } else if (words.length > (shape.positionals?.length ?? 0)) {
    // A word no argument takes would be dropped silently: `rkb lint general/git` linting everything.
    const extra = words[shape.positionals?.length ?? 0]!;
    const takes = shape.positionals?.length ? `takes ${shape.positionals.map((p) => `<${p}>`).join(" ")} only` : "takes no word, only flags";
    throw usageError(`\`rkb ${cmd.name}\` ${takes}; ${JSON.stringify(extra)} is one word too many`, help);
  }
  const choices = new Map<string, string[]>();
  for (const f of flagsOf(cmd)) {
    const value = args[f.flag];
    switch (f.kind) {
      case "choice":
        if (value) choices.set(f.prop, [...(choices.get(f.prop) ?? []), f.value!]);
        break;
      case "boolean":
        if (value !== undefined) input[f.prop] = Boolean(value);
        break;
      case "list": {
        const values = repeated(rest, f.flag);
        if (values.length) input[f.prop] = values;
        break;
      }
      case "pairs": {
        const pairs = keyValues(rest, f.flag, f.example ?? "key=value");
        if (Object.keys(pairs).length) input[f.prop] = pairs;
        break;
      }
      case "number":
        if (value !== undefined) {
          raw[f.prop] = String(value);
          const n = Number(value);
          input[f.prop] = String(value).trim() !== "" && Number.isFinite(n) ? n : String(value);
        }
        break;
      default:
        if (value !== undefined) input[f.prop] = raw[f.prop] = String(value);
    }
  }
  for (const [prop, values] of Object.entries(shape.choices ?? {})) {
    const chosen = choices.get(prop) ?? [];
    if (chosen.length === 1) input[prop] = chosen[0];
    else if (chosen.length > 1 || isRequired(cmd, prop)) {
      const names = Object.keys(values).map((v) => `--${v}`);
      throw usageError(
        `say exactly one of ${names.slice(0, -1).join(", ")} or ${names.at(-1)}`,
        `e.g. rkb ${cmd.name} ${(shape.positionals ?? []).map((p) => `<${p}> `).join("")}${names[0]}`,
      );
    }
  }
  const problem = await inputProblem(commandInput(cmd.name), input);
  if (problem) {
    const positional = positionalsOf(cmd).includes(problem.field);
    const name = positional ? `<${problem.field}>` : `--${flagsOf(cmd).find((f) => f.prop === problem.field)?.flag ?? problem.field}`;
    if (problem.kind === "invalid") {
      const given = [positional ? "" : name, raw[problem.field] ?? ""].filter(Boolean).join(" ");
      throw usageError(`${given} is not ${expectedWord(problem.schema)}`, help);
    }
    throw usageError(`\`rkb ${cmd.name}\` needs ${name}`, help);
  }
  const textError = inputTextError(input, (field) =>
    positionalsOf(cmd).includes(field) ? `<${field}>` : `--${flagsOf(cmd).find((f) => f.prop === field)?.flag ?? field}`,
  );
  if (textError) throw textError;
  return {
    input,
    project: typeof args.project === "string" && args.project ? args.project : undefined,
    system: typeof args.system === "string" && args.system ? args.system : undefined,
    with: keyValues(rest, "with", "hdf5=1.14.3"),
  };
}

/** Every flag must be one of the command's or a global one, and a value flag needs its value. */
function checkFlags(cmd: RkbCommand, args: ArgsDef, rest: string[]): void {
  const known = new Map<string, { type?: string }>();
  for (const [key, def] of Object.entries(args)) {
    if (def.type !== "positional") known.set(key, def);
  }
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "--") break;
    if (!a.startsWith("-") || a === "-") continue;
    const name = a.replace(/^--?/, "").split("=")[0]!;
    const def = known.get(name) ?? (name.startsWith("no-") ? known.get(name.slice(3)) : undefined);
    if (!def) {
      const own = flagsOf(cmd).map((f) => `--${f.flag}`);
      throw usageError(
        `\`${a}\` is not a flag of \`rkb ${cmd.name}\``,
        `valid for \`rkb ${cmd.name}\`: ${own.join(", ") || "(none)"}; on every command: --format, --toon, --project, --system, --with, --help`,
      );
    }
    if (def.type === "string" && !a.includes("=")) {
      if (rest[i + 1] === undefined) throw usageError(`\`${a}\` needs a value`, `see \`rkb ${cmd.name} --help\``);
      i++;
    }
  }
}

/** A repeatable `--<name> key=value` flag: `--with a=b --with c=d` → {a: "b", c: "d"}; a value without `=` is a usage error. */
function keyValues(rawArgs: string[], name: string, example: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const v of repeated(rawArgs, name)) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw usageError(`--${name} ${v} has no \`=\``, `write --${name} key=value, e.g. --${name} ${example}`);
    const [key, value] = [v.slice(0, eq), v.slice(eq + 1)];
    // The last would win silently: `--when hdf5=1.12:1.14 --when hdf5=1.10` is one key with two values.
    if (key in pairs && pairs[key] !== value)
      throw usageError(`--${name} ${key} is given twice (${pairs[key]} and ${value})`, `give each key once; a range is one value, e.g. --${name} ${example}`);
    pairs[key] = value;
  }
  return pairs;
}

/** A repeatable string flag, read from raw argv (citty keeps only the last value). */
function repeated(rawArgs: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === "--") break;
    if (a === `--${name}` && i + 1 < rawArgs.length) values.push(rawArgs[++i]!);
    else if (a.startsWith(`--${name}=`)) values.push(a.slice(name.length + 3));
  }
  return values;
}

/** `rkb <command> --help`, written from the command's schema. */
export function helpText(cmd: RkbCommand): string {
  const lines = [`rkb ${cmd.name} — ${cmd.description}`, "", "Usage:"];
  const positionals = positionalsOf(cmd);
  const word = (p: string) => (isRequired(cmd, p) ? ` <${p}>` : ` [${p}]`);
  lines.push(`  rkb ${cmd.name}${positionals.map(word).join("")} [flags]`);
  const row = (name: string, description: string) => `  ${name}`.padEnd(30) + ` ${description}`;
  if (positionals.length) {
    lines.push("", "Arguments:");
    for (const p of positionals) lines.push(row(p, (props(cmd)[p] as SchemaShape).description ?? ""));
  }
  const valueHint = (f: Flag) => (f.kind === "boolean" || f.kind === "choice" ? "" : ` <${f.valueHint ?? "value"}>`);
  const repeatable = (f: Flag) => (f.kind === "list" || f.kind === "pairs" ? " (repeatable)" : "");
  const own = flagsOf(cmd).map((f) => row(`--${f.flag}${valueHint(f)}`, f.description + repeatable(f)));
  if (own.length) lines.push("", "Flags:", ...own);
  const globals = Object.entries(globalArgs).map(([k, d]) =>
    row(`--${k}${d.type === "string" ? ` <${"valueHint" in d ? d.valueHint : "value"}>` : ""}`, d.description),
  );
  lines.push("", "Global flags:", ...globals, row("--help", "Show this help"));
  lines.push("", "Example:", ...cmd.examples.map((e) => "  " + e), "");
  return lines.join("\n");
}

export async function overviewHelp(names: string[], load: (name: string) => Promise<RkbCommand | undefined>): Promise<string> {
  const lines = [
    `${VERSION_LINE}: lessons learned, for the pi and omp coding agents`,
    "",
    "Usage: rkb [command] [flags]   (no command: where rkb runs and what it holds)",
    "",
    "Commands:",
  ];
  for (const name of names) lines.push(`  ${name.padEnd(12)} ${(await load(name))!.description}`);
  lines.push(
    "",
    "Every command takes --format human|json|toon (or --toon) and --help (also `rkb help <command>`).",
    "",
    "Example:",
    '  rkb search "could not find zlib"',
    "",
  );
  return lines.join("\n");
}
