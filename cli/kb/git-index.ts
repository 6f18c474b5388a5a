import { readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../output/errors.ts";
import { git, gitFailure } from "./git.ts";
import { findRepo } from "./repo.ts";

// git's own lock, `.git/index.lock`: git takes it for every change to the index and removes it when
// done. One left by a git that was killed blocks every commit. rkb removes it only when its own
// killed write left it (a person may be running git there otherwise); else it says so and names
// the command that fixes it.

export interface IndexLock {
  path: string;
  ageMs: number;
  /** No git process works in the repository and the lock is older than any git command takes. */
  stale: boolean;
  /** Whether a git process works in the repository (undefined: processes cannot be listed). */
  gitRunning: boolean | undefined;
}

/** Older than this and no git at work in the repository: the lock was left by a git that died. */
const STALE_AFTER_MS = 10_000;
/** Where running processes cannot be listed (no /proc), only the age tells. */
const STALE_BLIND_MS = 120_000;

export function indexLock(root: string): IndexLock | undefined {
  const repo = findRepo(root);
  if (!repo) return undefined;
  const path = join(repo.gitDir, "index.lock");
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  const running = gitRunningIn(repo.top);
  const stale = running === undefined ? ageMs > STALE_BLIND_MS : !running && ageMs > STALE_AFTER_MS;
  return { path, ageMs, stale, gitRunning: running };
}

/** Whether a git process runs with its working folder inside top; undefined when processes cannot be listed. */
function gitRunningIn(top: string): boolean | undefined {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const real = realpathSync(top);
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("git")) continue;
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === real || cwd.startsWith(real + "/")) return true;
    } catch {}
  }
  return false;
}

export function staleIndexLockError(lock: IndexLock): RkbError {
  return new RkbError(
    "locked",
    `${lock.path} is left over from a git process that is gone (${Math.round(lock.ageMs / 1000)} s old, no git runs there), so git cannot commit`,
    `remove it: rm ${lock.path}  (\`rkb doctor\` checks for it); nothing was written`,
  );
}

/**
 * Waits for git to release its index lock; throws when it is stale or outlasts waitMs. The one lock
 * rkb removes itself is its own: `leftByKilledWrite` says the lock was taken by the git of an rkb
 * write that was killed (its whole process group, git included) and no git runs there now.
 */
export async function waitForGitIndex(root: string, waitMs: number, leftByKilledWrite: (lock: IndexLock) => boolean = () => false): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = indexLock(root);
    if (!lock) return;
    if (lock.gitRunning === false && leftByKilledWrite(lock)) {
      rmSync(lock.path, { force: true });
      continue;
    }
    if (lock.stale) throw staleIndexLockError(lock);
    if (Date.now() >= deadline) {
      throw new RkbError(
        "locked",
        `git is working in the knowledge base: ${lock.path} has been held for ${Math.round(lock.ageMs / 1000)} s`,
        "wait for that git command to finish and try again; nothing was written",
      );
    }
    await Bun.sleep(50);
  }
}

/**
 * Runs a git command that takes the index lock. The git child of a write killed with SIGKILL (not
 * its whole group) lives on and may take the lock just after the check before this write: then
 * wait for it to finish and try again, instead of failing a write that has done nothing wrong.
 */
export async function gitOnIndex(root: string, args: string[], env: NodeJS.ProcessEnv, waitMs: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const r = git(root, args, { env });
    if (r.ok) return r.stdout;
    if (attempt >= 3 || !r.stderr.includes("index.lock")) throw gitFailure(root, args, r);
    await waitForGitIndex(root, waitMs);
  }
}

/**
 * Waits, at most waitMs, until no git process works in the repository. A write killed with SIGKILL
 * alone leaves its git child running: its commit may still land, so the write must not be judged
 * (undone or kept) before that git is done.
 */
export async function waitForGitToFinish(root: string, waitMs: number): Promise<void> {
  const repo = findRepo(root);
  if (!repo) return;
  const deadline = Date.now() + waitMs;
  while (gitRunningIn(repo.top) && Date.now() < deadline) await Bun.sleep(50);
}
