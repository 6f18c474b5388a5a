import { existsSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { tildify } from "../machine/settings.ts";
import { runsRkbMcp } from "./codex.ts";
import { parseJsonc, setAt, valueAt } from "./jsonc.ts";
import pluginSource from "./opencode-text.js";
import type { OwnedEntry, Piece } from "./pieces.ts";
import { SLASH_COMMANDS, slashCommand } from "../agent/prompts.ts";
import { skillText } from "./skill.ts";
import { filled } from "./source.ts";

// What `rkb install opencode` writes for opencode (checked with 1.18.33), in its config folder
// (~/.config/opencode, or $XDG_CONFIG_HOME/opencode):
// - `mcp.rkb` in the user's opencode.jsonc / opencode.json / config.json (the first that exists, else
//   a new opencode.json): `rkb mcp`, edited in place, comments and order kept.
// - plugins/rkb.ts, a copy of extension/opencode.ts: session-start context and prompt recall with the
//   user's message, the matching lesson after a failed bash command, capture when a run ends.
// - skills/rkb/SKILL.md (the text every harness gets) and commands/rkb-retro.md, … (/rkb-retro).

const CONFIG_NAMES = ["opencode.jsonc", "opencode.json", "config.json"];
const MCP_PATH = ["mcp", "rkb"];

export function opencodeDir(configHome: string): string {
  return join(configHome, "opencode");
}

/** The settings file rkb's entry goes in: the first of opencode's config files that exists. */
export function opencodeConfigFile(configHome: string): string {
  const dir = opencodeDir(configHome);
  return CONFIG_NAMES.map((n) => join(dir, n)).find(existsSync) ?? join(dir, "opencode.json");
}

export function opencodePieces(configHome: string, bin: string, marker: string): Piece[] {
  const dir = opencodeDir(configHome);
  return [
    mcpEntry(opencodeConfigFile(configHome), bin),
    { kind: "file", path: join(dir, "plugins", "rkb.ts"), text: `// ${marker}\n${filled(pluginSource, { __RKB_BIN__: bin }, "the opencode plugin")}` },
    { kind: "file", path: join(dir, "skills", "rkb", "SKILL.md"), text: skillText(marker, (name) => slashCommand(name, "opencode")) },
    ...SLASH_COMMANDS.map((c) => ({
      kind: "file" as const,
      path: join(dir, "commands", `${c.name}.md`),
      // opencode puts what the user typed after the command where $ARGUMENTS stands, as pi does.
      text: `---\ndescription: ${c.description}\n---\n<!-- ${marker} -->\n\n${c.prompt}\n`,
    })),
  ];
}

/** The binary the installed MCP entry runs, for doctor. */
export function opencodeTarget(text: string): string | undefined {
  try {
    const command = valueAt(parseJsonc(text, "opencode's config"), [...MCP_PATH, "command", 0]);
    return typeof command === "string" ? command : undefined;
  } catch {
    return undefined;
  }
}

function mcpEntry(path: string, bin: string): OwnedEntry {
  const file = tildify(path);
  const wanted = { type: "local", command: [bin, "mcp"], enabled: true, environment: { RKB_HARNESS: "opencode" } };
  return {
    kind: "entry",
    path,
    label: "mcp.rkb",
    foreign: "it does not run `rkb mcp`",
    state(text) {
      if (!text.trim()) return "absent";
      const entry = valueAt(parseJsonc(text, file), MCP_PATH) as { command?: unknown[] } | undefined;
      if (entry === undefined) return "absent";
      if (!Array.isArray(entry.command) || !runsRkbMcp(entry.command[0], entry.command.slice(1))) return "foreign";
      return isDeepStrictEqual(entry, wanted) ? "current" : "differs";
    },
    set(text) {
      if (this.state(text) === "current") return text;
      return setAt(text.trim() ? text : '{\n  "$schema": "https://opencode.ai/config.json"\n}\n', MCP_PATH, wanted, file);
    },
    remove(text) {
      let next = setAt(text, MCP_PATH, undefined, file);
      const doc = parseJsonc(next, file) as Record<string, unknown>;
      const mcp = doc.mcp;
      if (mcp && typeof mcp === "object" && Object.keys(mcp).length === 0) next = setAt(next, ["mcp"], undefined, file);
      // A file rkb made holds nothing of the user's once the entry is gone.
      const left = Object.keys(parseJsonc(next, file) as Record<string, unknown>).filter((k) => k !== "$schema");
      return left.length ? next : undefined;
    },
  };
}
