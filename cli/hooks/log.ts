import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../fsutil.ts";
import { stateDir } from "../paths.ts";

// Hooks never fail in front of the agent; what went wrong goes here for `rkb doctor` and people.

export const hookErrorsPath = (env: NodeJS.ProcessEnv) => join(stateDir(env), "hook-errors.log");

export function logHookError(env: NodeJS.ProcessEnv, event: string, error: unknown): void {
  try {
    mkdirSync(stateDir(env), { recursive: true });
    const message = error instanceof Error ? error.message : String(error);
    appendFileSync(hookErrorsPath(env), JSON.stringify({ time: new Date().toISOString(), event, error: message }) + "\n");
  } catch {
    // nowhere left to report to; the hook still must not fail
  }
}

/** When each harness last called a hook, so `rkb doctor` can tell an installed extension that runs. */
export function touchHeartbeat(env: NodeJS.ProcessEnv, harness: string): void {
  writeAtomic(join(stateDir(env), "heartbeat", harness.replace(/[^A-Za-z0-9_-]/g, "") || "unknown"), `${Math.floor(Date.now() / 1000)}\n`);
}
