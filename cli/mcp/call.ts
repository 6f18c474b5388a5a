import { harnessFromEnv, sessionFromEnv } from "../agent-env.ts";
import { RkbError } from "../output/errors.ts";
import { renderError } from "../output/render.ts";
import { runTool } from "../tools/run.ts";
import { findTool } from "../tools/schemas.ts";
import { checkArguments } from "../tools/validate.ts";
import type { CallTool } from "./server.ts";

// How `rkb mcp` runs a tool: the same in-process path as `rkb tool`, in TOON. The one seam between
// the protocol and the tool handlers.
export function toolCaller(env: NodeJS.ProcessEnv, cwd: string): CallTool {
  const provenance = { sessionId: sessionFromEnv(env), harness: harnessFromEnv(env) };
  return async (name, args) => {
    try {
      // Checked before it is serialized: the schemas are flat, so a value nested a million deep
      // fails here at once instead of overflowing the stack in JSON.stringify.
      checkArguments(findTool(name)!, args);
      const out = await runTool(name, JSON.stringify(args), { env, cwd, format: "toon", placeArgs: [], ...provenance });
      return { exit: out.exit, text: (out.stdout || out.stderr).trimEnd() };
    } catch (e) {
      // Arguments that do not fit the schema: the model reads what is wrong and corrects the call.
      if (!(e instanceof RkbError)) throw e;
      const out = await renderError(e, "toon");
      return { exit: out.exit, text: out.stdout.trimEnd() };
    }
  };
}
