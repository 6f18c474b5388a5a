import type { CommandContext } from "../../commands/_shared.ts";
import { expectedValue, inputProblem } from "../../base/input.ts";
import { inputTextError } from "../../base/text-input.ts";
import type { CheckedInput } from "../../commands/inputs.ts";
import type { PlaceOptions } from "../../place/place.ts";
import { asRkbError, usageError, type RkbError } from "../../base/errors.ts";
import { frame } from "../../output/frame.ts";
import { renderError, renderOutput } from "../../output/render.ts";
import { debugFromEnv, type Caller } from "../../machine/settings.ts";
import { findTool, loadTool, TOOL_NAMES, type ToolHost, type ToolSpec } from "./schemas.ts";

// The tool-call adapter: an agent's JSON arguments, checked against the tool's schema (a pick of the
// command's input schema), become the command's input, and the command's handler runs in this
// process. `rkb tool` and an MCP server both call callTool.

export interface ToolCall {
  env: NodeJS.ProcessEnv;
  /** The agent's working folder: it decides the project. */
  cwd: string;
  /** How `text` is written: TOON (default, for agents) or JSON. */
  format?: "toon" | "json";
  /** --project, --system and --with as the caller gives them. */
  place?: PlaceOptions;
  /** The agent that calls (origin "tool"), recorded as the provenance of what the tool writes. */
  caller: Caller;
  /** The commands behind the tools, passed in by the command that runs the tool (schemas.ts `ToolHost`). */
  host: ToolHost;
}

export interface ToolResult {
  /** The command's exit code: 0 ok, 1 error, 2 bad arguments, 3 needs the user. */
  exit: number;
  /** The command's data, or the error record `{error: {code, message, fix}}`. */
  data: unknown;
  /** `data` written for the model (TOON) or a script (JSON). */
  text: string;
}

const TOOL_ADVICE = "Lessons can be wrong or out of date: check that one fits before you act on it.";

/** Runs the tool `name` with `args` (one JSON object) and returns what it answers; never throws. */
export async function callTool(name: string, args: unknown, call: ToolCall): Promise<ToolResult> {
  const format = call.format ?? "toon";
  try {
    const tool = findTool(name);
    if (!tool) throw unknownTool(name);
    const { cmd, parameters, commandSchema } = await loadTool(tool, call.host);
    const input = await checkedArguments(tool, parameters, args);
    // Provenance: the session goes to the commands that record one, the harness to all of them.
    if ("session" in commandSchema.properties && call.caller.sessionId) input.session = call.caller.sessionId;
    const ctx: CommandContext = {
      env: call.env,
      cwd: call.cwd,
      format,
      place: call.place ?? { with: {} },
      stdin: async () => "",
      stdinPayload: async () => "",
      stdinIsTTY: false,
      // The command runs as the agent's: agent writes have a burst limit (write/burst.ts).
      caller: { ...call.caller, origin: "tool" },
    };
    const out = await cmd.run(input as never, ctx);
    const rendered = await renderOutput(out, format);
    // For the model, lesson text is data inside the one lesson frame; a script's JSON stays as it is.
    const text =
      tool.framed && format === "toon" && rendered.exit === 0 ? frame({ tool: tool.name }, rendered.stdout.trimEnd(), TOOL_ADVICE) + "\n" : rendered.stdout;
    return { exit: rendered.exit, data: out.data, text };
  } catch (e) {
    const err = asRkbError(e, debugFromEnv(call.env));
    const rendered = await renderError(err, format);
    return { exit: rendered.exit, data: err.toRecord(), text: rendered.stdout };
  }
}

/** A tool's arguments as the text `rkb tool` reads on stdin: empty is {}, anything but one JSON object is a usage error. */
export function parseToolArguments(tool: string, text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw usageError(`the arguments of ${tool} are not valid JSON: ${(e as Error).message}`, `pass one JSON object on stdin, e.g. {"query": "cmake zlib"}`);
  }
  return asObject(tool, value);
}

function asObject(tool: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw usageError(`the arguments of ${tool} must be a JSON object`, `pass one JSON object on stdin, e.g. {"query": "cmake zlib"}`);
  }
  return value as Record<string, unknown>;
}

export function unknownTool(name: string): RkbError {
  return usageError(`\`${name}\` is not an rkb tool`, `the tools are ${TOOL_NAMES.join(", ")}; \`rkb tools --toon\` shows their arguments`);
}

/** The arguments checked against the tool's schema (null counts as absent); a usage error says exactly what is wrong, so the model can correct the call. */
export async function checkedArguments(tool: ToolSpec, parameters: CheckedInput, args: unknown): Promise<Record<string, unknown>> {
  const given = Object.fromEntries(Object.entries(asObject(tool.name, args)).filter(([, v]) => v !== null));
  const problem = await inputProblem(parameters, given);
  if (!problem) {
    const textError = inputTextError(given, (field) => `\`${field}\` of ${tool.name}`);
    if (textError) throw textError;
    return given;
  }
  const fix = `run \`rkb tools --toon\` to see the arguments of ${tool.name}`;
  if (problem.kind === "unknown")
    throw usageError(
      `\`${problem.field}\` is not an argument of ${tool.name}`,
      `${fix}; its arguments are ${Object.keys(parameters.schema.properties).join(", ")}`,
    );
  if (problem.kind === "missing") throw usageError(`${tool.name} needs \`${problem.field}\``, fix);
  throw usageError(`\`${problem.field}\` of ${tool.name} must be ${expectedValue(problem.schema)}`, fix);
}
