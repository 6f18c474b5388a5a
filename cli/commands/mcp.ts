import { defineCommand } from "./_shared.ts";
import { toolHost } from "./index.ts";
import { SKILL_DESCRIPTION } from "../install/skill.ts";
import { toolCaller } from "../agent/mcp/call.ts";
import { serve } from "../agent/mcp/server.ts";
import { VERSION } from "../base/version.ts";

// `rkb mcp`: the MCP server Claude Code (or any MCP client) starts. It reads requests until the
// client closes stdin. Bun.stdin.stream() reads fd 0 as bytes arrive without building Node's
// process.stdin; replies go out with Bun.write, one line each, in order.
export default defineCommand({
  name: "mcp",
  description: "Serve the agent tools over the Model Context Protocol (stdio, for Claude Code and other MCP clients)",
  examples: ["rkb mcp", "claude mcp add rkb -- rkb mcp"],
  input: (Type) => Type.Object({}, { additionalProperties: false }),
  run: async (_input, ctx) => {
    const input = Bun.stdin.stream() as unknown as AsyncIterable<Uint8Array>;
    const host = await toolHost();
    // The binary starts with a lazy JIT, made for one-shot calls (scripts/build.ts); a server is not one.
    Bun.unsafe.setJITPolicy(1);
    await serve(input, (line) => Bun.write(Bun.stdout, line), {
      callTool: toolCaller(ctx.env, ctx.cwd, host),
      host,
      version: VERSION,
      instructions: SKILL_DESCRIPTION,
    });
    return { data: null, human: "", raw: true };
  },
});
