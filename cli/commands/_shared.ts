import type { ArgsDef, ParsedArgs } from "citty";
import type { Format, Output } from "../output/render.ts";
import { usageError } from "../output/errors.ts";

/** Flags every command accepts. */
export const globalArgs = {
  format: { type: "string", description: "Output format: human, json or toon", valueHint: "human|json|toon" },
  toon: { type: "boolean", description: "Same as --format toon (for agents)" },
  project: { type: "string", description: "Treat the current place as this project (also RKB_PROJECT)" },
  system: { type: "string", description: "Treat the current place as this system (also RKB_SYSTEM)" },
  with: { type: "string", description: "Add a fact for `when` checks, key=value (repeatable)", valueHint: "key=value" },
} as const satisfies ArgsDef;

export interface PlaceOptions {
  project?: string;
  system?: string;
  with: Record<string, string>;
}

export interface RunContext<A extends ArgsDef> {
  args: ParsedArgs<A & typeof globalArgs>;
  rawArgs: string[];
  format: Format;
  place: PlaceOptions;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Standard input as text ("" when it is a terminal or closed). */
  stdin: () => Promise<string>;
  /** True when standard input is a terminal (nothing was piped in). */
  stdinIsTTY: boolean;
}

export interface RkbCommand<A extends ArgsDef = ArgsDef> {
  name: string;
  description: string;
  /** Shown under "Example:" in --help. */
  examples: string[];
  args: A;
  run: (ctx: RunContext<A>) => Promise<Output> | Output;
}

export function defineRkbCommand<const A extends ArgsDef>(cmd: RkbCommand<A>): RkbCommand<A> {
  return cmd;
}

/** A repeatable `--<name> key=value` flag: `--with a=b --with c=d` → {a: "b", c: "d"}; a value without `=` is a usage error. */
export function keyValues(rawArgs: string[], name: string, example: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const v of repeated(rawArgs, name)) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw usageError(`--${name} ${v} has no \`=\``, `write --${name} key=value, e.g. --${name} ${example}`);
    pairs[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return pairs;
}

/** Reads a repeatable string flag from raw argv (citty keeps only the last value). */
export function repeated(rawArgs: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === `--${name}` && i + 1 < rawArgs.length) values.push(rawArgs[++i]!);
    else if (a.startsWith(`--${name}=`)) values.push(a.slice(name.length + 3));
  }
  return values;
}
