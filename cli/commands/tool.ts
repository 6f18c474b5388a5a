import { harnessFromEnv } from "../agent-env.ts";
import { basename } from "node:path";
import { defineRkbCommand } from "./_shared.ts";
import { runTool } from "../tools/run.ts";

// `rkb tool <name>`: what an agent tool call runs. Arguments come as one JSON object on stdin; the
// output is the matching command's TOON (or JSON), and the exit code is that command's.
export default defineRkbCommand({
  name: "tool",
  description: "Run one agent tool with its arguments as JSON on stdin",
  examples: [`echo '{"query": "cmake zlib"}' | rkb tool rkb_search`, `echo '{"id": "p-1a2b3c"}' | rkb tool rkb_show --format json`],
  args: {
    name: { type: "positional", required: true, description: "Tool name, e.g. rkb_search (`rkb tools` lists them)" },
    "session-id": { type: "string", description: "The agent session the call comes from (recorded as provenance)", valueHint: "id" },
    "session-file": { type: "string", description: "That session's file; its name gives the id when --session-id is absent", valueHint: "path" },
    cwd: { type: "string", description: "The agent's working folder (decides the project)", valueHint: "dir" },
    harness: { type: "string", description: "The agent: pi or omp (recorded as provenance)", valueHint: "pi|omp" },
  },
  run: async (ctx) => {
    const a = ctx.args;
    const sessionFile = a["session-file"] || undefined;
    // pi and omp name session files `<time>_<session id>.jsonl`.
    const sessionId = a["session-id"] || (sessionFile ? basename(sessionFile, ".jsonl").split("_").pop() : undefined) || undefined;
    const placeArgs = [
      ...(ctx.args.project ? ["--project", ctx.args.project] : []),
      ...(ctx.args.system ? ["--system", ctx.args.system] : []),
      ...Object.entries(ctx.place.with).flatMap(([k, v]) => ["--with", `${k}=${v}`]),
    ];
    const format = ctx.format === "json" ? "json" : "toon";
    const input = await ctx.stdin();
    const out = await runTool(a.name, input, { env: ctx.env, cwd: a.cwd || ctx.cwd, format, sessionId, harness: a.harness || harnessFromEnv(ctx.env), placeArgs });
    const text = out.stdout || out.stderr;
    let data: unknown = null;
    if (format === "json") {
      try {
        data = JSON.parse(out.stdout);
      } catch {
        data = { output: text };
      }
    }
    return { data, human: text, raw: true, exit: out.exit };
  },
});
