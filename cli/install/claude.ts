import { join } from "node:path";
import { CLAUDE_HOOKS } from "../agent/hooks/claude.ts";
import { VERSION } from "../base/version.ts";
import { ARGUMENTS_TOKEN, claudeCommandName, SLASH_COMMANDS, slashCommand } from "../agent/prompts.ts";
import { skillText } from "./skill.ts";

// What `rkb install claude` writes: one plugin folder, ~/.claude/skills/rkb. Claude Code 2.1.332
// loads every folder under ~/.claude/skills that holds a .claude-plugin/plugin.json as the plugin
// `<name>@skills-dir` at the next session (`claude plugin init` scaffolds exactly that), with its
// hooks/hooks.json, .mcp.json, skills and commands. So rkb needs no marketplace, no `claude plugin
// install`, and never edits settings.json or ~/.claude.json, which Claude Code itself rewrites while
// it runs. Uninstall deletes the files, and a user's settings stay as they were, byte for byte.
// Plugin names are namespaced: the MCP tools are mcp__plugin_rkb_rkb__<tool>, and the commands
// /rkb:retro, /rkb:distill, /rkb:curate (the skill, named like the plugin, is /rkb).

export function claudePluginDir(home: string): string {
  return join(home, ".claude", "skills", "rkb");
}

/** A command or path as one POSIX shell word: Claude Code runs hook commands with the shell. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** How hooks that capture the session may take: reading only new bytes, a large transcript still takes a while. */
const HOOK_SECONDS = 5;
const CAPTURE_SECONDS = 10;

/** Every file of the plugin, with its text; `marker` goes into each (JSON files: their description). */
export function claudePluginFiles(home: string, bin: string, marker: string): { path: string; text: string }[] {
  const dir = claudePluginDir(home);
  const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";
  const hooks: Record<string, unknown[]> = {};
  for (const h of CLAUDE_HOOKS) {
    const timeout = h.rkb === "pre-compact" || h.rkb === "session-end" ? CAPTURE_SECONDS : HOOK_SECONDS;
    hooks[h.claude] = [{ ...(h.matcher ? { matcher: h.matcher } : {}), hooks: [{ type: "command", command: `${shellWord(bin)} hook ${h.rkb}`, timeout }] }];
  }
  const commands = SLASH_COMMANDS.map((c) => ({
    path: join(dir, "commands", `${claudeCommandName(c.name)}.md`),
    // Claude Code puts what the user typed after the command where $ARGUMENTS stands, as pi does.
    text: `---\ndescription: ${c.description}\nargument-hint: [focus]\n---\n<!-- ${marker} -->\n\n${c.prompt.replaceAll(ARGUMENTS_TOKEN, "$ARGUMENTS")}\n`,
  }));
  return [
    {
      path: join(dir, ".claude-plugin", "plugin.json"),
      text: json({
        name: "rkb",
        version: VERSION,
        description: `rkb, the user's lessons-learned knowledge base: tools, hooks, a skill and commands. ${marker}`,
        skills: ["./"],
      }),
    },
    { path: join(dir, ".mcp.json"), text: json({ mcpServers: { rkb: { command: bin, args: ["mcp"] } } }) },
    { path: join(dir, "hooks", "hooks.json"), text: json({ description: `rkb's hooks. ${marker}`, hooks }) },
    { path: join(dir, "SKILL.md"), text: skillText(marker, (name) => slashCommand(name, "claude-code")) },
    ...commands,
  ];
}
