import { callerFrom } from "../../machine/settings.ts";
import { callTool } from "../tools/run.ts";
import type { ToolHost } from "../tools/schemas.ts";
import type { CallTool } from "./server.ts";

// How `rkb mcp` runs a tool: callTool, the same in-process path as `rkb tool`, in TOON. The one seam
// between the protocol and the tool handlers. The arguments are checked against the tool's schema
// as they are, never serialized first: a value nested a million deep fails the check at once
// instead of overflowing the stack in JSON.stringify.
export function toolCaller(env: NodeJS.ProcessEnv, cwd: string, host: ToolHost): CallTool {
  const caller = callerFrom(env, { origin: "tool" });
  return async (name, args) => {
    const out = await callTool(name, args, { env, cwd, format: "toon", caller, host });
    return { exit: out.exit, text: out.text.trimEnd() };
  };
}
