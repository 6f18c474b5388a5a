import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { git, gitFailure, gitOrThrow, requireIdentity } from "../base/git.ts";
import { processAlive } from "../base/fsutil.ts";
import { randomHex } from "../base/hash.ts";
import { refuseSecrets } from "../lint/leak.ts";

// Commits on a branch that is not checked out, with git's plumbing alone: a temporary index in
// rkb's cache folder (GIT_INDEX_FILE) read from the branch's tip, blobs and trees written into
// the object store, one commit per step, and the branch moved once at the end with
// `git update-ref <ref> <new> <old>`, which git refuses when the branch is no longer at <old>.
// Neither the checked-out branch, nor its index, nor the working tree is ever touched; a kill at
// any point leaves at most unreferenced objects (git gc removes them) and a temporary index that
// the next run ignores and clears.

export interface BranchStep {
  /** Files the step writes (text) or removes (null), relative to the repository, `/`-separated. */
  files: { rel: string; text: string | null }[];
  message: string;
}

const ZERO = "0".repeat(40);

/** The commit a branch points at, or undefined when there is no such branch. */
export function branchTip(root: string, env: NodeJS.ProcessEnv, branch: string): string | undefined {
  const r = git(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`], { env });
  return r.ok ? r.stdout.trim() : undefined;
}

/** A branch name git accepts and that is not the one checked out. */
export function requireOtherBranch(root: string, env: NodeJS.ProcessEnv, branch: string): void {
  if (!git(root, ["check-ref-format", "--branch", branch], { env }).ok)
    throw new RkbError("usage", `\`${branch}\` is not a branch name git accepts`, "name the branch like rkb/proposals (letters, digits, `-`, `_`, `/`)");
  // Any worktree of the repository counts: moving a branch checked out in another one would leave
  // that worktree's files and index behind its HEAD (git itself refuses `git branch -f` there).
  const worktrees = git(root, ["worktree", "list", "--porcelain"], { env }).stdout.split("\n\n");
  const holder = worktrees.find((w) => w.split("\n").includes(`branch refs/heads/${branch}`));
  if (holder)
    throw new RkbError(
      "refused",
      `${branch} is the branch checked out in ${holder.split("\n")[0]!.replace(/^worktree /, "")}; rkb writes proposals only on a branch no worktree has checked out`,
      "check out another branch there (`git switch main`), or pass --branch with another name",
    );
}

/** Whether commit a is an ancestor of (or the same as) commit b. */
export function isAncestor(root: string, env: NodeJS.ProcessEnv, a: string, b: string): boolean {
  return git(root, ["merge-base", "--is-ancestor", a, b], { env }).ok;
}

/**
 * Builds the steps as commits on top of `parent` and moves `branch` to the last one, provided the
 * branch is still at `expected` (undefined: the branch must not exist yet). `check` sees the final
 * tree through the temporary index before the branch moves (lint); a throw there moves nothing.
 * Returns the new commits, oldest first; throws `conflict` with `extra.moved` when the branch moved.
 */
export async function commitOnBranch(opts: {
  root: string;
  env: NodeJS.ProcessEnv;
  branch: string;
  parent: string;
  expected: string | undefined;
  steps: BranchStep[];
  /** A folder of rkb's own (its cache) for the temporary index. */
  scratch: string;
  check?: (envWithIndex: NodeJS.ProcessEnv) => Promise<void>;
}): Promise<string[]> {
  const { root, branch, steps } = opts;
  requireIdentity(root, opts.env, "no proposal was written", "run rkb propose again");
  mkdirSync(opts.scratch, { recursive: true });
  clearLeftIndexes(opts.scratch);
  const index = join(opts.scratch, `index-${process.pid}-${randomHex(4)}`);
  const env = { ...opts.env, GIT_INDEX_FILE: index };
  try {
    gitOrThrow(root, ["read-tree", opts.parent], { env });
    const commits: string[] = [];
    let parent = opts.parent;
    for (const step of steps) {
      refuseSecrets(step.message, "the commit message");
      const lines = step.files.map((f) => {
        requireRepoPath(f.rel);
        if (f.text === null) return `0 ${ZERO}\t${f.rel}`;
        const blob = gitOrThrow(root, ["hash-object", "-w", "--stdin"], { env, stdin: f.text }).trim();
        return `100644 ${blob}\t${f.rel}`;
      });
      gitOrThrow(root, ["update-index", "--index-info"], { env, stdin: lines.join("\n") + "\n" });
      const tree = gitOrThrow(root, ["write-tree"], { env }).trim();
      parent = gitOrThrow(root, ["commit-tree", tree, "-p", parent, "-F", "-"], { env, stdin: step.message }).trim();
      commits.push(parent);
    }
    await opts.check?.(env);
    if (!commits.length) return commits;
    const args = ["update-ref", "-m", "rkb propose", `refs/heads/${branch}`, parent, opts.expected ?? ZERO];
    const moved = git(root, args, { env: opts.env });
    if (!moved.ok) {
      const now = branchTip(root, opts.env, branch);
      if (now !== opts.expected) {
        throw new RkbError(
          "conflict",
          `${branch} moved while rkb wrote its proposals (it is at ${now?.slice(0, 12) ?? "nothing"} now, not ${opts.expected?.slice(0, 12) ?? "nothing"})`,
          "run the command again: it builds on the branch as it is then",
          { moved: true },
        );
      }
      throw gitFailure(root, args, moved);
    }
    return commits;
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}

/** A path inside the repository: relative, no `..`, no empty part, nothing in .git. */
function requireRepoPath(rel: string): void {
  const parts = rel.split("/");
  if (rel.startsWith("/") || parts.some((p) => p === "" || p === "." || p === ".." || p === ".git") || rel.includes("\\") || rel.includes("\0"))
    throw new RkbError(
      "internal",
      `refusing to write ${JSON.stringify(rel)} on a branch: not a plain path inside the repository`,
      "report this as a bug in rkb",
    );
}

/** Removes the temporary indexes of runs that were killed (their process is gone): nothing reads them. */
export function clearLeftIndexes(scratch: string): void {
  let names: string[];
  try {
    names = readdirSync(scratch);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^index-(\d+)-[0-9a-f]+(?:\.lock)?$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const path = join(scratch, name);
    // Another host may share the cache folder: an index older than a day is left over whatever its pid.
    const old = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 86_400_000;
    if ((pid !== process.pid && !processAlive(pid)) || old) rmSync(path, { force: true });
  }
}
