// The agent-side files rkb installs as copies of its own sources (extension/rkb.ts for pi and omp,
// extension/opencode.ts for opencode), with their placeholders filled in, and checked to parse: a
// copy that does not parse would stop the agent from loading it.
import { RkbError } from "../base/errors.ts";

/** The source with each placeholder (a string literal that occurs exactly once) replaced by its value. */
export function filled(source: string, values: Record<string, string>, what: string): string {
  let text = source;
  for (const [placeholder, value] of Object.entries(values)) {
    const quoted = JSON.stringify(placeholder);
    if (text.split(quoted).length !== 2) throw new Error(`${what} must contain ${quoted} exactly once`);
    // A JSON string is a valid TypeScript string literal, whatever the path holds.
    text = text.replace(quoted, JSON.stringify(value));
  }
  const problem = parseProblem(text);
  if (problem) throw new RkbError("internal", `${what} would not load: ${problem}`, "this is a bug in rkb; please report it");
  return text;
}

/** Why a TypeScript file would fail to parse, or undefined when it parses. */
export function parseProblem(text: string): string | undefined {
  try {
    new Bun.Transpiler({ loader: "ts" }).transformSync(text);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
