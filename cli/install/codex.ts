import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { codexDialect } from "../agent/hooks/codex.ts";
import { obj } from "../agent/hooks/dialect.ts";
import { FORWARDED_ENV, tildify } from "../machine/settings.ts";
import { type HookGroup, hookGroups, isRkbGroup } from "./hook-groups.ts";
import { parseJsonc, setAt, valueAt } from "./jsonc.ts";
import type { OwnedEntry, Piece } from "./pieces.ts";
import { ARGUMENTS_TOKEN, SLASH_COMMANDS, slashCommand } from "../agent/prompts.ts";
import { skillText } from "./skill.ts";
import { editTable, renderTable, tableIn } from "./toml-table.ts";

// What `rkb install codex` writes for Codex CLI (checked with 0.171.0), all under ~/.codex
// ($CODEX_HOME when set):
// - `[mcp_servers.rkb]` in config.toml: `rkb mcp`. Codex starts MCP servers with a filtered
//   environment, so the entry lists rkb's settings in `env_vars` for Codex to pass on.
// - rkb's groups in hooks.json (Claude Code's shape): session start, prompt, every Bash command,
//   stop, compaction and session end, each `rkb hook <event> --harness codex`. Codex runs a hook only
//   once the user trusted it (it asks at the next start, or under /hooks); `codex exec` skips
//   untrusted hooks without a word.
// - the skill (skills/rkb/SKILL.md, the text every harness gets), and the slash-command prompts as
//   skills of their own (skills/rkb-retro/…), which Codex users call as `$rkb-retro`.
// The user's other settings, servers and hooks stay as they are, comments and order included.

const MCP_TABLE = ["mcp_servers", "rkb"];

export function codexDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.CODEX_HOME || join(home, ".codex");
}

export function codexPieces(env: NodeJS.ProcessEnv, home: string, bin: string, marker: string): Piece[] {
  const dir = codexDir(env, home);
  const command = (name: string) => slashCommand(name, "codex");
  return [
    mcpEntry(join(dir, "config.toml"), bin, marker),
    hooksEntry(join(dir, "hooks.json"), bin),
    { kind: "file", path: join(dir, "skills", "rkb", "SKILL.md"), text: skillText(marker, command) },
    ...SLASH_COMMANDS.map((c) => ({
      kind: "file" as const,
      path: join(dir, "skills", c.name, "SKILL.md"),
      // A skill has no arguments: what the user wrote with `$rkb-retro` comes with it in the message.
      text: `---\nname: ${c.name}\ndescription: ${c.description}\n---\n<!-- ${marker} -->\n\n${c.prompt.replaceAll(ARGUMENTS_TOKEN, "the words that came with this request")}\n`,
    })),
  ];
}

/** The binary the installed MCP entry runs, for doctor (undefined when there is none). */
export function codexTarget(text: string): string | undefined {
  const table = tableIn(text, MCP_TABLE) as { command?: unknown } | undefined;
  return typeof table?.command === "string" ? table.command : undefined;
}

/**
 * rkb's hooks that Codex will not run yet: Codex keeps the user's trust in config.toml as
 * `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"` (the hash is
 * its own, so a hook trusted once and changed since still counts as trusted here).
 */
export function codexUntrusted(env: NodeJS.ProcessEnv, home: string): string[] {
  const dir = codexDir(env, home);
  const hooksPath = join(dir, "hooks.json");
  const configPath = join(dir, "config.toml");
  if (!existsSync(hooksPath)) return [];
  const hooks = obj(valueAt(parseJsonc(readFileSync(hooksPath, "utf8"), tildify(hooksPath)), ["hooks"]));
  const state = obj(tableIn(existsSync(configPath) ? readFileSync(configPath, "utf8") : "", ["hooks", "state"], tildify(configPath)));
  const snake = (event: string) => event.replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase());
  return Object.entries(hooks).flatMap(([event, groups]) =>
    (Array.isArray(groups) ? groups : []).flatMap((g, i) =>
      isRkbGroup(g, "codex") && typeof obj(state[`${hooksPath}:${snake(event)}:${i}:0`]).trusted_hash !== "string" ? [event] : [],
    ),
  );
}

/** An MCP server entry runs rkb's server when it runs `<…rkb…> mcp`: then it is rkb's to change. */
export const runsRkbMcp = (command: unknown, args: unknown) =>
  typeof command === "string" && basename(command).startsWith("rkb") && isDeepStrictEqual(args, ["mcp"]);

function mcpEntry(path: string, bin: string, marker: string): OwnedEntry {
  const block = renderTable(MCP_TABLE, { command: bin, args: ["mcp"], env_vars: [...FORWARDED_ENV], env: { RKB_HARNESS: "codex" } }, marker);
  const wanted = tableIn(block, MCP_TABLE);
  return {
    kind: "entry",
    path,
    label: "[mcp_servers.rkb]",
    foreign: "it does not run `rkb mcp`",
    state(text) {
      const table = tableIn(text, MCP_TABLE, tildify(path)) as Record<string, unknown> | undefined;
      if (table === undefined) return "absent";
      if (!runsRkbMcp(table.command, table.args)) return "foreign";
      return isDeepStrictEqual(table, wanted) ? "current" : "differs";
    },
    set: (text) => editTable(text, MCP_TABLE, block, tildify(path)),
    remove(text) {
      const next = editTable(text, MCP_TABLE, undefined, tildify(path));
      return next.trim() ? next : undefined;
    },
  };
}

function hooksEntry(path: string, bin: string): OwnedEntry {
  const file = tildify(path);
  const wanted = hookGroups(codexDialect, bin, { harnessFlag: true, unit: "s" });
  /** For each event, the indexes of rkb's groups in it. */
  const ours = (doc: unknown) =>
    Object.entries(obj(valueAt(doc, ["hooks"]))).map(([event, groups]) => ({
      event,
      at: (Array.isArray(groups) ? groups : []).flatMap((g, i) => (isRkbGroup(g, "codex") ? [i] : [])),
    }));
  const without = (text: string) => {
    let next = text;
    for (const { event, at } of ours(parseJsonc(text, file))) {
      for (const i of [...at].reverse()) next = setAt(next, ["hooks", event, i], undefined, file);
      const left = valueAt(parseJsonc(next, file), ["hooks", event]);
      if (at.length && Array.isArray(left) && left.length === 0) next = setAt(next, ["hooks", event], undefined, file);
    }
    return next;
  };
  return {
    kind: "entry",
    path,
    label: "rkb's hooks",
    state(text) {
      const doc = parseJsonc(text, file);
      const found = ours(doc).filter((e) => e.at.length);
      if (!found.length) return "absent";
      const current = Object.entries(wanted).every(([event, [group]]) => {
        const mine = found.find((e) => e.event === event);
        return mine?.at.length === 1 && isDeepStrictEqual(valueAt(doc, ["hooks", event, mine.at[0]!]), group);
      });
      return current && found.length === Object.keys(wanted).length ? "current" : "differs";
    },
    set(text) {
      if (text.trim() && this.state(text) === "current") return text;
      let next = text.trim() ? without(text) : '{\n  "hooks": {}\n}\n';
      for (const [event, [group]] of Object.entries(wanted)) next = setAt(next, ["hooks", event, -1], group as HookGroup, file);
      return next;
    },
    remove(text) {
      const next = without(text);
      const doc = parseJsonc(next, file) as Record<string, unknown>;
      const empty = Object.keys(doc).every((k) => k === "hooks") && Object.keys(obj(doc.hooks)).length === 0;
      return empty ? undefined : next;
    },
  };
}
