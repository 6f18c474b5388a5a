import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeAtomic } from "../base/fsutil.ts";
import { RkbError } from "../base/errors.ts";
import { DEFAULT_KB_TOML } from "../lesson/config.ts";
import { git, gitOrThrow, gitReason, requireIdentity } from "../base/git.ts";

// Creating and cloning knowledge bases, and the per-clone setup both need. Either one succeeds
// whole or leaves nothing behind: the folders it made are removed, a folder that was there (empty)
// is emptied again.

export const PRE_COMMIT_HOOK = `#!/bin/sh
# Installed by rkb: lint staged lessons before every commit.
command -v rkb >/dev/null 2>&1 || { echo "rkb is not on PATH; install it or commit with --no-verify" >&2; exit 1; }
RKB_HOME="$(git rev-parse --show-toplevel)" exec rkb lint --staged
`;

/** The setup every clone needs: pushes to it update its work tree, and lint runs before commits. */
export function setupClone(root: string, env: NodeJS.ProcessEnv): void {
  gitOrThrow(root, ["config", "receive.denyCurrentBranch", "updateInstead"], { env });
  const hook = join(root, ".git", "hooks", "pre-commit");
  writeAtomic(hook, PRE_COMMIT_HOOK, 0o755);
  chmodSync(hook, 0o755);
}

/** The nearest folder at or above path that exists (a file in the way is skipped: mkdir reports it). */
function existingFolder(path: string): string {
  let dir = path;
  while (!(existsSync(dir) && statSync(dir).isDirectory()) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Makes root (and its missing parents) and runs make in it; when anything fails, removes what was
 * made before the error goes on: the topmost folder it created, or the contents of a root that
 * existed (empty, as init requires) before.
 */
function leavingNothingBehind<T>(root: string, make: () => T): T {
  const existed = existsSync(root);
  let topCreated: string | undefined;
  try {
    topCreated = mkdirSync(root, { recursive: true }) ?? undefined;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new RkbError(
      "io",
      `cannot create the folder ${root}: ${err.code === "EACCES" || err.code === "EPERM" ? "permission denied" : err.code === "ENOTDIR" ? "a part of the path is a file" : err.message}; nothing was created`,
      "set RKB_HOME to a folder you can write (its parent must exist or be creatable), then `rkb init` again",
    );
  }
  try {
    return make();
  } catch (e) {
    if (existed) for (const entry of readdirSync(root)) rmSync(join(root, entry), { recursive: true, force: true });
    else if (topCreated) rmSync(topCreated, { recursive: true, force: true });
    if (e instanceof RkbError && e.code === "git") throw new RkbError("git", `${e.message}; nothing was left behind`, e.fix, e.extra);
    throw e;
  }
}

export function initKb(root: string, env: NodeJS.ProcessEnv): string {
  // Asked before anything exists: a missing identity must not leave a folder behind.
  requireIdentity(existingFolder(root), env, "nothing was created", "`rkb init` again");
  return leavingNothingBehind(root, () => {
    gitOrThrow(root, ["init", "-q"], { env });
    setupClone(root, env);
    return firstCommit(root, env);
  });
}

/** kb.toml and the three scope folders, committed: the first commit of every knowledge base. */
function firstCommit(root: string, env: NodeJS.ProcessEnv): string {
  writeAtomic(join(root, "kb.toml"), DEFAULT_KB_TOML);
  for (const scope of ["general", "projects", "systems"]) writeAtomic(join(root, scope, ".gitkeep"), "");
  gitOrThrow(root, ["add", "kb.toml", "general/.gitkeep", "projects/.gitkeep", "systems/.gitkeep"], { env });
  gitOrThrow(root, ["commit", "-q", "--no-verify", "-m", "init: create knowledge base"], { env });
  return gitOrThrow(root, ["rev-parse", "--short", "HEAD"], { env }).trim();
}

/**
 * Clones url (a relative path is taken from cwd) into root. An empty repository (a team's new remote)
 * becomes the knowledge base: its first commit is made and pushed; the commit is returned then.
 */
export function cloneKb(root: string, url: string, env: NodeJS.ProcessEnv, cwd: string): { created?: string } {
  // Every write to the clone commits: without an identity it would be a knowledge base nothing can be added to.
  requireIdentity(existingFolder(root), env, "nothing was cloned", "`rkb init --clone` again");
  return leavingNothingBehind(root, () => {
    const r = git(cwd, ["clone", "-q", url, root], { env });
    if (!r.ok) throw new RkbError("git", `cloning ${url} failed: ${gitReason(r)}`, "check the URL and that you can reach it (`git ls-remote <url>`)");
    if (!git(root, ["rev-parse", "--verify", "-q", "HEAD"], { env }).ok) {
      setupClone(root, env);
      const commit = firstCommit(root, env);
      const push = git(root, ["push", "-q", "-u", "origin", "HEAD"], { env });
      if (!push.ok)
        throw new RkbError(
          "git",
          `${url} is empty, and pushing the new knowledge base to it failed: ${gitReason(push)}`,
          "check that you may push to it (`git push` from a clone), then `rkb init --clone` again",
        );
      return { created: commit };
    }
    if (!existsSync(join(root, "kb.toml"))) {
      throw new RkbError(
        "refused",
        `${url} is not a knowledge base: it has no kb.toml; nothing was left behind`,
        "clone the right repository, or run `rkb init` for a new one",
      );
    }
    setupClone(root, env);
    return {};
  });
}
