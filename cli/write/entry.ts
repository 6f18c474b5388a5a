import { statSync } from "node:fs";
import { join } from "node:path";
import { refuseWhileStopped } from "../base/git.ts";
import { withLock } from "../base/lock.ts";
import { loadKbConfig, type KbConfig } from "../lesson/config.ts";
import { requireWritableKb } from "../lesson/layout.ts";
import { waitForGitLocks } from "./git-index.ts";
import { lockLeftByKilledWrite, recoverKilledWrite } from "./journal.ts";

// The one way into the knowledge base's write lock, for every writer (a lesson write, a confirmed
// request, `rkb sync`, `rkb lint --fix`): never while a rebase or merge stopped half-way, then the
// lock, git's index and ref locks free, a write killed half-way undone, and only then the writer's
// own work.

export function lockPath(root: string): string {
  const dotGit = join(root, ".git");
  return statSync(dotGit).isDirectory() ? join(dotGit, "rkb.lock") : join(root, ".rkb-write.lock");
}

/** Runs fn under the write lock, once git's index is free and a write killed half-way is undone. */
export async function underWriteLock<T>(root: string, env: NodeJS.ProcessEnv, fn: (config: KbConfig) => Promise<T> | T): Promise<T> {
  requireWritableKb(root);
  // A commit in the middle of a rebase or merge would become part of it.
  refuseWhileStopped(root);
  const config = loadKbConfig(root);
  return withLock(lockPath(root), { staleMs: config.lock.staleMs, waitMs: config.lock.waitMs, what: "the knowledge base" }, async () => {
    await waitForGitLocks(root, config.lock.waitMs, (lock) => lockLeftByKilledWrite(root, lock.path));
    await recoverKilledWrite(root, env, config.lock.waitMs);
    return fn(config);
  });
}
