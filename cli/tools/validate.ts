import { usageError } from "../output/errors.ts";
import { TOOL_NAMES, type ToolSpec } from "./schemas.ts";

// Checks a tool call's arguments against the tool's schema and says exactly what is wrong, so the
// model can correct the call. Covers the JSON-Schema subset the tool schemas use.

interface Schema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
}

export function parseToolInput(tool: string, text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw usageError(`the arguments of ${tool} are not valid JSON: ${(e as Error).message}`, `pass one JSON object on stdin, e.g. {"query": "cmake zlib"}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw usageError(`the arguments of ${tool} must be a JSON object`, `pass one JSON object on stdin, e.g. {"query": "cmake zlib"}`);
  }
  return value as Record<string, unknown>;
}

export function unknownTool(name: string): Error {
  return usageError(`\`${name}\` is not an rkb tool`, `the tools are ${TOOL_NAMES.join(", ")}; \`rkb tools --toon\` shows their arguments`);
}

export function checkArguments(tool: ToolSpec, args: Record<string, unknown>): void {
  const schema = tool.parameters as unknown as Schema;
  const fix = `run \`rkb tools --toon\` to see the arguments of ${tool.name}`;
  const props = schema.properties ?? {};
  for (const key of Object.keys(args)) {
    if (!(key in props)) throw usageError(`\`${key}\` is not an argument of ${tool.name}`, `${fix}; its arguments are ${Object.keys(props).join(", ")}`);
  }
  for (const key of schema.required ?? []) {
    if (args[key] === undefined || args[key] === null) throw usageError(`${tool.name} needs \`${key}\``, fix);
  }
  for (const [key, value] of Object.entries(args)) {
    if (value === null && !(schema.required ?? []).includes(key)) continue;
    const problem = mismatch(props[key]!, value);
    if (problem) throw usageError(`\`${key}\` of ${tool.name} must be ${problem}`, fix);
  }
}

/** Describes what the value should have been, or undefined when it fits. */
function mismatch(s: Schema, v: unknown): string | undefined {
  if (s.enum) return typeof v === "string" && s.enum.includes(v) ? undefined : `one of ${s.enum.join(", ")}`;
  switch (s.type) {
    case "string":
      return typeof v === "string" ? undefined : "a string";
    case "boolean":
      return typeof v === "boolean" ? undefined : "true or false";
    case "integer": {
      const range = s.maximum !== undefined ? `an integer from ${s.minimum} to ${s.maximum}` : `an integer ≥ ${s.minimum ?? 0}`;
      if (typeof v !== "number" || !Number.isInteger(v)) return range;
      if ((s.minimum !== undefined && v < s.minimum) || (s.maximum !== undefined && v > s.maximum)) return range;
      return undefined;
    }
    case "array":
      return Array.isArray(v) && v.every((item) => mismatch(s.items!, item) === undefined) ? undefined : "a list of strings";
    case "object": {
      const ok = v !== null && typeof v === "object" && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");
      return ok ? undefined : 'an object of strings, e.g. {"project": "name"}';
    }
  }
  return undefined;
}
