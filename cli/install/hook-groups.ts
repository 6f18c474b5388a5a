// The hook settings rkb writes for the programs that run hooks from Claude Code's JSON shape
// (`{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}`):
// Claude Code's plugin, Codex's ~/.codex/hooks.json and the Gemini CLI extension, one group per
// binding of the program's dialect.
import type { HookDialect } from "../agent/hooks/dialect.ts";
import type { HookEvent } from "../agent/hooks/events.ts";

export interface HookGroup {
  matcher?: string;
  hooks: { type: "command"; command: string; timeout: number }[];
}

/** A command or path as one POSIX shell word: the programs run hook commands with the shell. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** How long a hook may take: capturing reads only new bytes, but a large session still takes a while. */
export const hookSeconds = (event: HookEvent) => (event === "pre-compact" || event === "session-end" ? 10 : 5);

/** The command a binding runs; `harness` names the payload's dialect for `rkb hook` (Claude Code's is the default). */
export function hookCommand(bin: string, event: HookEvent, harness?: string): string {
  return `${shellWord(bin)} hook ${event}${harness ? ` --harness ${harness}` : ""}`;
}

/** Each of the dialect's events with its one group; timeouts in seconds, or milliseconds for Gemini CLI. */
export function hookGroups(dialect: HookDialect, bin: string, opts: { harnessFlag: boolean; unit: "s" | "ms" }): Record<string, HookGroup[]> {
  const groups: Record<string, HookGroup[]> = {};
  for (const b of dialect.bindings) {
    const timeout = hookSeconds(b.rkb) * (opts.unit === "ms" ? 1000 : 1);
    const command = hookCommand(bin, b.rkb, opts.harnessFlag ? dialect.harness : undefined);
    groups[b.event] = [{ ...(b.matcher ? { matcher: b.matcher } : {}), hooks: [{ type: "command", command, timeout }] }];
  }
  return groups;
}

/** Whether a group is one rkb wrote for this dialect: every command of it is `… hook <event> --harness <harness>`. */
export function isRkbGroup(group: unknown, harness: string): boolean {
  const hooks = (group as HookGroup | undefined)?.hooks;
  const tail = new RegExp(` hook [a-z-]+ --harness ${harness}$`);
  return Array.isArray(hooks) && hooks.length > 0 && hooks.every((h) => typeof h?.command === "string" && tail.test(h.command));
}
