import { callerFrom } from "../machine/settings.ts";
import { callTool, parseToolArguments } from "../agent/tools/run.ts";
import { defineCommand } from "./_shared.ts";
import { toolHost } from "./index.ts";

// `rkb tool <name>`: what an agent tool call runs. Arguments come as one JSON object on stdin; the
// output is the matching command's TOON (or JSON), and the exit code is that command's.
export default defineCommand({
  name: "tool",
  description: "Run one agent tool with its arguments as JSON on stdin",
  examples: [`echo '{"query": "cmake zlib"}' | rkb tool rkb_search`, `echo '{"id": "7f3a9c2b41"}' | rkb tool rkb_show --format json`],
  input: (Type) =>
    Type.Object(
      {
        name: Type.String({ description: "Tool name, e.g. rkb_search (`rkb tools` lists them)" }),
        session_id: Type.Optional(Type.String({ description: "The agent session the call comes from (recorded as provenance)" })),
        session_file: Type.Optional(Type.String({ description: "That session's file; its name gives the id when --session-id is absent" })),
        cwd: Type.Optional(Type.String({ description: "The agent's working folder (decides the project)" })),
        harness: Type.Optional(Type.String({ description: "The agent: pi or omp (recorded as provenance)" })),
      },
      { additionalProperties: false },
    ),
  cli: {
    positionals: ["name"],
    flags: { session_id: { valueHint: "id" }, session_file: { valueHint: "path" }, cwd: { valueHint: "dir" }, harness: { valueHint: "pi|omp" } },
  },
  run: async (input, ctx) => {
    const format = ctx.format === "json" ? "json" : "toon";
    const args = parseToolArguments(input.name, await ctx.stdin());
    const result = await callTool(input.name, args, {
      env: ctx.env,
      cwd: input.cwd || ctx.cwd,
      format,
      place: ctx.place,
      caller: callerFrom(ctx.env, { origin: "tool", harness: input.harness, sessionId: input.session_id, sessionFile: input.session_file }),
      host: await toolHost(),
    });
    return { data: result.data, human: result.text, raw: true, exit: result.exit };
  },
});
