import { isAgent, type Caller } from "../machine/settings.ts";
import { burstGrace, openBurstGrace } from "../machine/state.ts";
import type { KbConfig } from "../lesson/config.ts";
import { git } from "../base/git.ts";

// The burst limit on agent writes: an agent in a loop must not rewrite the knowledge base faster
// than a person can review it. Past `writes.burst` commits in the last ten minutes, an agent write
// asks the user first (`continue`), which opens a grace window for that agent session (kept in the
// state database).
//
// Which writes are the agent's: those made through a tool call (`rkb tool`, MCP) or in an agent's
// environment (the pi/omp extension sets RKB_HARNESS for every rkb it starts, Claude Code sets
// CLAUDECODE=1 in its shell), which covers an agent that runs `rkb add` through its shell tool:
// machine/settings.ts `isAgent` of the caller. A person's own terminal has neither. This is a
// guard against runaway loops, not against a hostile agent, which could edit the files directly.

export const BURST_WINDOW_MS = 10 * 60_000;

/** Whose grace window a write counts against: the agent session, or the machine. */
export function graceKey(caller: Caller): string {
  return caller.sessionId ?? "machine";
}

function commitsSince(root: string, env: NodeJS.ProcessEnv, args: string[]): number {
  return Number(git(root, ["rev-list", "--count", ...args, "HEAD"], { env }).stdout.trim()) || 0;
}

/** The question to ask before this write, when it is an agent write past the burst limit; undefined otherwise. */
export function burstQuestion(root: string, env: NodeJS.ProcessEnv, caller: Caller, config: KbConfig): string | undefined {
  if (!isAgent(caller)) return undefined;
  const recent = commitsSince(root, env, [`--since=${Math.round(BURST_WINDOW_MS / 1000)}.seconds.ago`]);
  if (recent < config.writes.burst) return undefined;
  const grace = burstGrace(env, graceKey(caller));
  if (grace && commitsSince(root, env, [`^${grace.head}`]) <= config.writes.burst) return undefined;
  return `the agent has made ${recent} writes to the knowledge base in the last ${BURST_WINDOW_MS / 60_000} minutes, the limit is ${config.writes.burst}; allow it to continue for ${Math.round(config.writes.graceMs / 60_000)} minutes?`;
}

/** Opens the grace window for a session after the user answered `continue`. */
export function openGrace(root: string, env: NodeJS.ProcessEnv, session: string, config: KbConfig): void {
  openBurstGrace(env, session, { until: Date.now() + config.writes.graceMs, head: git(root, ["rev-parse", "HEAD"], { env }).stdout.trim() });
}
