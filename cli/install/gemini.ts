import { join } from "node:path";
import { geminiDialect } from "../agent/hooks/gemini.ts";
import { VERSION } from "../base/version.ts";
import { hookGroups } from "./hook-groups.ts";
import type { Piece } from "./pieces.ts";
import { ARGUMENTS_TOKEN, SLASH_COMMANDS, slashCommand } from "../agent/prompts.ts";
import { skillText } from "./skill.ts";

// What `rkb install gemini` writes for Gemini CLI (checked with 0.61.0): one extension folder,
// ~/.gemini/extensions/rkb ($GEMINI_CLI_HOME/.gemini when set). Gemini CLI loads every folder there
// that holds a gemini-extension.json, at its next start, with its MCP servers, hooks/hooks.json,
// skills/ and commands/; extensions are on unless the user turns one off
// (`gemini extensions disable rkb`). So rkb edits no settings file of Gemini CLI's, and uninstall
// deletes the folder's files. JSON files carry the marker in a description field.

export function geminiHome(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.GEMINI_CLI_HOME || home, ".gemini");
}

export function geminiExtensionDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(geminiHome(env, home), "extensions", "rkb");
}

export function geminiPieces(env: NodeJS.ProcessEnv, home: string, bin: string, marker: string): Piece[] {
  const dir = geminiExtensionDir(env, home);
  const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";
  const manifest = {
    name: "rkb",
    version: VERSION,
    description: `rkb, the user's lessons-learned knowledge base: tools, hooks, a skill and commands. ${marker}`,
    mcpServers: { rkb: { command: bin, args: ["mcp"], env: { RKB_HARNESS: "gemini" } } },
  };
  return [
    { kind: "file", path: join(dir, "gemini-extension.json"), text: json(manifest) },
    {
      kind: "file",
      path: join(dir, "hooks", "hooks.json"),
      text: json({ description: `rkb's hooks. ${marker}`, hooks: hookGroups(geminiDialect, bin, { harnessFlag: true, unit: "ms" }) }),
    },
    { kind: "file", path: join(dir, "skills", "rkb", "SKILL.md"), text: skillText(marker, (name) => slashCommand(name, "gemini")) },
    ...SLASH_COMMANDS.map((c) => ({
      kind: "file" as const,
      path: join(dir, "commands", `${c.name}.toml`),
      // A JSON string is a TOML basic string; Gemini CLI puts what the user typed where {{args}} stands.
      text: `# ${marker}\ndescription = ${JSON.stringify(c.description)}\nprompt = ${JSON.stringify(c.prompt.replaceAll(ARGUMENTS_TOKEN, "{{args}}"))}\n`,
    })),
  ];
}

/** The binary the installed extension's MCP server runs, for doctor. */
export function geminiTarget(manifest: string): string | undefined {
  try {
    const command = (JSON.parse(manifest) as { mcpServers?: { rkb?: { command?: unknown } } }).mcpServers?.rkb?.command;
    return typeof command === "string" ? command : undefined;
  } catch {
    return undefined;
  }
}
