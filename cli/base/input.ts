import type { TSchema } from "typebox";
import type { CheckedInput } from "../commands/inputs.ts";

// Checks an input with the check TypeBox compiled for its schema (cli/commands/inputs.ts) and, when it fails,
// reduces TypeBox's errors to the one problem worth telling: an unknown field, then a missing one,
// then a wrong value. Each adapter (command line, tool call) turns the problem into words its caller
// understands.

export type InputProblem = { kind: "unknown"; field: string } | { kind: "missing"; field: string } | { kind: "invalid"; field: string; schema: TSchema };

export async function inputProblem({ schema, check }: CheckedInput, input: Record<string, unknown>): Promise<InputProblem | undefined> {
  if (check(input)) return undefined;
  // TypeBox's checker, loaded only to word a failed check (the same schema engine compiled the check).
  const { Errors } = await import("typebox/schema");
  const [, errors] = Errors(schema, input);
  for (const e of errors) {
    if (e.keyword === "additionalProperties" && e.instancePath === "")
      return { kind: "unknown", field: String((e.params as { additionalProperties: string[] }).additionalProperties[0]) };
  }
  for (const e of errors) {
    if (e.keyword === "required" && e.instancePath === "")
      return { kind: "missing", field: String((e.params as { requiredProperties: string[] }).requiredProperties[0]) };
  }
  const field = errors.map((e) => e.instancePath.split("/")[1]).find((f): f is string => Boolean(f)) ?? "";
  return { kind: "invalid", field, schema: (schema.properties as Record<string, TSchema>)[field] ?? schema };
}

interface SchemaShape {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

/** What a value of this schema looks like, for "must be …" in a tool call's error. */
export function expectedValue(schema: TSchema): string {
  const s = schema as SchemaShape;
  if (s.enum) return `one of ${s.enum.join(", ")}`;
  switch (s.type) {
    case "boolean":
      return "true or false";
    case "integer":
      return s.maximum !== undefined ? `an integer from ${s.minimum} to ${s.maximum}` : `an integer ≥ ${s.minimum ?? 0}`;
    case "number":
      if (s.minimum !== undefined && s.maximum !== undefined) return `a number from ${s.minimum} to ${s.maximum}`;
      return s.minimum !== undefined ? `a number ≥ ${s.minimum}` : "a number";
    case "array":
      return "a list of strings";
    case "object":
      return 'an object of strings, e.g. {"project": "name"}';
  }
  return "a string";
}

/** The same for a command-line value, in the words `--help` uses: "a whole number ≥ 1", "1, 2 or 3". */
export function expectedWord(schema: TSchema): string {
  const s = schema as SchemaShape;
  if (s.type === "integer" && s.minimum !== undefined && s.maximum !== undefined && s.maximum - s.minimum <= 4) {
    const values = Array.from({ length: s.maximum - s.minimum + 1 }, (_, i) => String(s.minimum! + i));
    return `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
  }
  if (s.type === "integer") return `a whole number ≥ ${s.minimum ?? 0}`;
  return expectedValue(schema);
}
