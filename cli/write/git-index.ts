import { readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { git, gitFailure } from "../base/git.ts";
import { findRepo, type Repo } from "../place/repo.ts";

// git's own locks: `.git/index.lock`, which git takes for every change to the index, and the ref
// locks a commit takes (`HEAD.lock`, the branch's `refs/heads/<b>.lock`, `packed-refs.lock`); git
// removes each when done. One left by a git that was killed blocks every commit. rkb removes one
// only when its own killed write left it (a person may be running git there otherwise); else it
// says so and names the command that fixes it.

export interface GitLock {
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

/** The first of git's locks that a commit needs and that is held now, if any. */
export function gitLock(root: string): GitLock | undefined {
  const repo = findRepo(root);
  if (!repo) return undefined;
  for (const path of commitLockPaths(repo)) {
    let ageMs: number;
    try {
      ageMs = Date.now() - statSync(path).mtimeMs;
    } catch {
      continue;
    }
    const running = gitRunningIn(repo.top);
    const stale = running === undefined ? ageMs > STALE_BLIND_MS : !running && ageMs > STALE_AFTER_MS;
    return { path, ageMs, stale, gitRunning: running };
  }
  return undefined;
}

/** The lock files a commit on the current branch takes. */
function commitLockPaths(repo: Repo): string[] {
  const paths = [join(repo.gitDir, "index.lock"), join(repo.gitDir, "HEAD.lock"), join(repo.commonDir, "packed-refs.lock")];
  try {
    const ref = /^ref: (refs\/heads\/\S+)\s*$/.exec(readFileSync(join(repo.gitDir, "HEAD"), "utf8"))?.[1];
    if (ref && !ref.split("/").includes("..")) paths.push(join(repo.commonDir, `${ref}.lock`));
  } catch {}
  return paths;
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

export function staleGitLockError(lock: GitLock): RkbError {
  return new RkbError(
    "locked",
    `${lock.path} is left over from a git process that is gone (${Math.round(lock.ageMs / 1000)} s old, no git runs there), so git cannot commit`,
    `remove it: rm ${lock.path}  (\`rkb doctor\` checks for it); nothing was written`,
  );
}

/**
 * Waits for git to release the locks a commit needs; throws when one is stale or outlasts waitMs.
 * The one lock rkb removes itself is its own: `leftByKilledWrite` says the lock was taken by the git
 * of an rkb write that was killed (its whole process group, git included) and no git runs there now.
 */
export async function waitForGitLocks(root: string, waitMs: number, leftByKilledWrite: (lock: GitLock) => boolean = () => false): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = gitLock(root);
    if (!lock) return;
    if (lock.gitRunning === false && leftByKilledWrite(lock)) {
      rmSync(lock.path, { force: true });
      continue;
    }
    if (lock.stale) throw staleGitLockError(lock);
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
 * Runs a git command that takes the index or ref locks. The git child of a write killed with SIGKILL
 * (not its whole group) lives on and may take a lock just after the check before this write: then
 * wait for it to finish and try again, instead of failing a write that has done nothing wrong.
 */
export async function gitOnIndex(root: string, args: string[], env: NodeJS.ProcessEnv, waitMs: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const r = git(root, args, { env });
    if (r.ok) return r.stdout;
    if (attempt >= 3 || !/\.lock'?: File exists/.test(r.stderr)) throw gitFailure(root, args, r);
    await waitForGitLocks(root, waitMs);
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
