import { Type, type TObject, type TSchema } from "typebox";
import { Build } from "typebox/schema";
import type { RkbCommand } from "./_shared.ts";
import { commandNames } from "./index.ts";
import { hookPayloadSchema } from "../agent/hooks/payload.ts";
import { TOOLS, type ToolSpec } from "../agent/tools/schemas.ts";

// Runs when rkb is built, and when its source is loaded (a Bun macro, called from cli/commands/inputs.ts):
// TypeBox builds every command's input schema and every agent tool's parameters, and compiles a
// check for each. rkb then holds them as data and never loads TypeBox to run a command: its module
// graph cost every process ~2.4 ms (BENCHMARKS.md). TypeBox is loaded again only to word the
// errors of an input that fails its check.

/** A check TypeBox compiled: the body of `(External, value) => boolean`, and the patterns it reads from External. */
export interface CompiledCheck {
  code: string;
  patterns: { source: string; flags: string }[];
}

export interface BuiltInput {
  /** The schema as JSON Schema data (what `rkb tools` prints and the adapters read). */
  schema: TObject;
  check: CompiledCheck;
}

/**
 * Per command and per tool, its BuiltInput as JSON text: a run parses the one it needs, where an
 * object literal of all of them would be built whole by every process (~0.5 ms).
 */
export interface BuiltInputs {
  commands: Record<string, string>;
  tools: Record<string, string>;
  /** The hook payload (agent/hooks/payload.ts). */
  hookPayload: string;
}

export function builtInputs(): BuiltInputs {
  const schemas = new Map<string, TObject>();
  const commands: Record<string, string> = {};
  for (const name of commandNames) {
    // The command table's names are its file names. A synchronous load, because a macro returns its
    // value at once; import.meta.require, because a macro's module has no `require`.
    const cmd = (import.meta.require(`./${name}.ts`) as { default: RkbCommand }).default;
    const schema = cmd.input(Type);
    schemas.set(name, schema);
    commands[name] = built(schema, `rkb ${name}`);
  }
  const tools: Record<string, string> = {};
  for (const tool of TOOLS) tools[tool.name] = built(toolParameters(tool, schemas.get(tool.command)!), tool.name);
  return { commands, tools, hookPayload: built(hookPayloadSchema(Type), "the hook payload") };
}

/** The tool's parameters: its fields picked from the command's input schema, the required ones made required. */
function toolParameters(tool: ToolSpec, input: TObject): TObject {
  const picked = (tool.pick ? Type.Pick(input, [...tool.pick]) : Type.Omit(input, [...(tool.omit ?? [])])).properties as Record<string, TSchema>;
  const required = Type.Required(Type.Pick(input, [...tool.required])).properties as Record<string, TSchema>;
  return Type.Object(Object.fromEntries((tool.pick ?? Object.keys(picked)).map((f) => [f, required[f] ?? picked[f]!])), { additionalProperties: false });
}

function built(schema: TObject, what: string): string {
  const build = Build(schema);
  if (build.External().identifier !== "External")
    throw new Error(`TypeBox names the patterns of ${what} ${build.External().identifier}; cli/inputs.ts passes them as External`);
  // The compiled code may use only the value and these patterns; a schema that needs more of
  // TypeBox at run time (formats, unevaluated properties) is refused here, when rkb is built.
  const patterns = build.External().variables.map((v) => {
    if (!(v instanceof RegExp)) throw new Error(`the input of ${what} needs ${typeof v} at run time; only patterns can be compiled`);
    return { source: v.source, flags: v.flags };
  });
  const code = [...build.Functions(), `return ${build.Entry()}`].join(";\n");
  if (build.UseUnevaluated() || /\b(?:Guard|Hashing)\./.test(code)) throw new Error(`the input of ${what} needs TypeBox at run time`);
  return JSON.stringify({ schema, check: { code, patterns } } satisfies BuiltInput);
}
