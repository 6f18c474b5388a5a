import { defineCommand } from "./_shared.ts";
import { toolHost } from "./index.ts";
import { ARGUMENTS_TOKEN, SLASH_COMMANDS } from "../agent/prompts.ts";
import { TOOLS, toolDefinition } from "../agent/tools/schemas.ts";

// Everything the pi/omp extension registers comes from here, so the extension never holds a copy.
export default defineCommand({
  name: "tools",
  description: "Print the agent tool definitions (JSON Schema) and the slash commands for agent extensions",
  examples: ["rkb tools --format json", "rkb tools --toon"],
  input: (Type) => Type.Object({}, { additionalProperties: false }),
  run: async () => {
    const host = await toolHost();
    const tools = TOOLS.map((t) => toolDefinition(t, host));
    const data = {
      tools,
      commands: SLASH_COMMANDS.map((c) => ({ ...c, arguments_token: ARGUMENTS_TOKEN })),
      help: ["Run a tool with `rkb tool <name>` and its arguments as one JSON object on stdin"],
    };
    const human = [
      "Tools (run with `rkb tool <name>`, arguments as JSON on stdin):",
      ...tools.map((t) => `  ${t.name.padEnd(12)} ${t.snippet}`),
      "",
      "Slash commands (pi and omp):",
      ...SLASH_COMMANDS.map((c) => `  /${c.name.padEnd(12)} ${c.description}`),
    ].join("\n");
    return { data, human };
  },
});
