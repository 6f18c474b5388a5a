import { defineCommand } from "./_shared.ts";
import { SKILL_DESCRIPTION } from "../install/skill.ts";
import { toolCaller } from "../mcp/call.ts";
import { serve } from "../mcp/server.ts";
import { VERSION } from "../version.ts";

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
    await serve(input, (line) => Bun.write(Bun.stdout, line), { callTool: toolCaller(ctx.env, ctx.cwd), version: VERSION, instructions: SKILL_DESCRIPTION });
    return { data: null, human: "", raw: true };
  },
});
