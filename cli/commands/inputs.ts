import type { TObject } from "typebox";
import type { BuiltInput } from "./inputs.build.ts";
import { builtInputs } from "./inputs.build.ts" with { type: "macro" };

// Every command's input schema and every agent tool's parameters, with their checks, as TypeBox
// built and compiled them when rkb was built (cli/commands/inputs.build.ts). Commands, tools and MCP read them
// here; a command module never holds its schema at run time.

const BUILT = builtInputs();

export interface CheckedInput {
  /** JSON Schema of the input. */
  schema: TObject;
  /** True when the value is a valid input. */
  check(value: unknown): boolean;
}

const ready = new Map<string, CheckedInput>();

function checked(key: string, text: string): CheckedInput {
  let input = ready.get(key);
  if (!input) {
    const entry = JSON.parse(text) as BuiltInput;
    const patterns = entry.check.patterns.map((p) => new RegExp(p.source, p.flags));
    // Code TypeBox generated from rkb's own schemas when rkb was built; nothing of the input is in it.
    const test = new Function("External", "value", entry.check.code) as (patterns: RegExp[], value: unknown) => boolean;
    input = { schema: entry.schema, check: (value) => test(patterns, value) };
    ready.set(key, input);
  }
  return input;
}

/** The input of the command `name` (a name of the command table). */
export function commandInput(name: string): CheckedInput {
  return checked(`command ${name}`, BUILT.commands[name]!);
}

/** The payload `rkb hook` reads (agent/hooks/payload.ts). */
export function hookPayloadInput(): CheckedInput {
  return checked("hook payload", BUILT.hookPayload);
}

/** The parameters of the agent tool `name` (a name of agent/tools/schemas TOOLS). */
export function toolInput(name: string): CheckedInput {
  return checked(`tool ${name}`, BUILT.tools[name]!);
}
