import { chmodSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../fsutil.ts";
import { RkbError } from "../output/errors.ts";
import { DEFAULT_KB_TOML } from "./config.ts";
import { git, gitIdentity, gitOrThrow } from "./git.ts";

// Creating and cloning knowledge bases, and the per-clone setup both need.

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

function requireIdentity(cwd: string, env: NodeJS.ProcessEnv): void {
  const { name, email } = gitIdentity(cwd, env);
  if (!name || !email) {
    throw new RkbError(
      "git_identity",
      "git has no user name or email, so rkb cannot commit",
      'run `git config --global user.name "Your Name"` and `git config --global user.email you@example.com`',
    );
  }
}

export function initKb(root: string, env: NodeJS.ProcessEnv): string {
  mkdirSync(root, { recursive: true });
  requireIdentity(root, env);
  try {
    gitOrThrow(root, ["init", "-q"], { env });
    setupClone(root, env);
    writeAtomic(join(root, "kb.toml"), DEFAULT_KB_TOML);
    for (const scope of ["general", "projects", "systems"]) writeAtomic(join(root, scope, ".gitkeep"), "");
    gitOrThrow(root, ["add", "kb.toml", "general/.gitkeep", "projects/.gitkeep", "systems/.gitkeep"], { env });
    gitOrThrow(root, ["commit", "-q", "--no-verify", "-m", "init: create knowledge base"], { env });
    return gitOrThrow(root, ["rev-parse", "--short", "HEAD"], { env }).trim();
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
}

/** Clones url (a relative path is taken from cwd) into root. */
export function cloneKb(root: string, url: string, env: NodeJS.ProcessEnv, cwd: string): void {
  const r = git(cwd, ["clone", "-q", url, root], { env });
  if (!r.ok)
    throw new RkbError("git", `cloning ${url} failed: ${r.stderr.trim().split("\n").pop()}`, "check the URL and that you can reach it (`git ls-remote <url>`)");
  if (!existsSync(join(root, "kb.toml"))) {
    rmSync(root, { recursive: true, force: true });
    throw new RkbError("refused", `${url} is not a knowledge base: it has no kb.toml`, "clone the right repository, or run `rkb init` for a new one");
  }
  setupClone(root, env);
}
