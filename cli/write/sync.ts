import { RkbError } from "../base/errors.ts";
import { git, gitReason, identityError, lacksIdentity } from "../base/git.ts";
import type { Finding } from "../lesson/finding.ts";
import { lintKb } from "../lint/lint.ts";
import { refuseSecretsInCommits } from "../lint/history.ts";
import { underWriteLock } from "./entry.ts";
import { gitOnIndex } from "./git-index.ts";
import { useRecordPaths } from "./write.ts";

// Keeping a knowledge base in step with a git remote: commit use records, pull with rebase, lint,
// push only when lint is clean. A conflict is reported with its files, never resolved for the user.

export interface Commit {
  hash: string;
  subject: string;
}

export type SyncResult =
  | { status: "done"; remote: string; branch: string; pulled: Commit[]; pushed: Commit[] }
  | { status: "not_pushed"; remote: string; branch: string; pulled: Commit[]; errors: number; findings: Finding[] };

function commits(root: string, range: string, env: NodeJS.ProcessEnv): Commit[] {
  const out = git(root, ["log", "--format=%h %s", range], { env });
  return out.ok
    ? out.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => ({ hash: l.slice(0, l.indexOf(" ")), subject: l.slice(l.indexOf(" ") + 1) }))
    : [];
}

/**
 * Commits the use records rkb appended since the last write, and nothing else: anything else left in
 * the tree is the person's, and the clean-tree check below names it. They are linted here like the
 * pre-commit hook would (which may not find rkb on PATH), so a failing file is never committed.
 */
async function commitUseRecords(root: string, env: NodeJS.ProcessEnv, waitMs: number): Promise<void> {
  const records = useRecordPaths(root);
  if (!records.length) return;
  await gitOnIndex(root, ["add", "-A", "--", ...records], env, waitMs);
  if (git(root, ["diff", "--cached", "--quiet", "--", ...records], { env }).ok) return;
  const errors = lintKb(root, { only: records, env }).filter((f) => f.severity === "error" && records.includes(f.path));
  if (errors.length) {
    git(root, ["reset", "-q", "--", ...records], { env });
    throw new RkbError("invalid_lesson", `${errors[0]!.path}: ${errors[0]!.message}`, "fix the file and run `rkb sync` again; nothing was committed", {
      findings: errors,
    });
  }
  await gitOnIndex(root, ["commit", "-q", "--no-verify", "-m", "usage: record lesson use", "--", ...records], env, waitMs);
}

export async function syncKb(root: string, env: NodeJS.ProcessEnv, remoteFlag?: string): Promise<SyncResult> {
  return underWriteLock(root, env, async (config) => {
    const branch = git(root, ["symbolic-ref", "--short", "-q", "HEAD"], { env }).stdout.trim();
    if (!branch) throw new RkbError("refused", "the knowledge base is on a detached HEAD", `check out a branch: \`git -C ${root} switch main\``);
    await commitUseRecords(root, env, config.lock.waitMs);
    const dirty = git(root, ["status", "--porcelain"], { env }).stdout.split("\n").filter(Boolean);
    if (dirty.length) {
      throw new RkbError(
        "refused",
        `the knowledge base has uncommitted changes: ${dirty
          .slice(0, 10)
          .map((l) => l.slice(3))
          .join(", ")}`,
        `commit or discard them first (\`git -C ${root} status\`)`,
        { files: dirty.slice(0, 10).map((l) => l.slice(3)) },
      );
    }
    const remotes = git(root, ["remote"], { env }).stdout.split("\n").filter(Boolean);
    const upstream = git(root, ["config", `branch.${branch}.remote`], { env }).stdout.trim();
    const remote = remoteFlag || upstream || "origin";
    if (!remotes.includes(remote)) {
      throw new RkbError(
        "not_found",
        `the knowledge base has no remote \`${remote}\``,
        remotes.length ? `use --remote with one of: ${remotes.join(", ")}` : `add one: \`git -C ${root} remote add origin <url>\``,
        { remotes },
      );
    }
    const fetched = git(root, ["fetch", "-q", remote, branch], { env });
    const remoteHasBranch = fetched.ok;
    if (!fetched.ok && !/couldn't find remote ref|not our ref|no such ref/i.test(fetched.stderr)) {
      throw new RkbError("git", `fetching ${remote} failed: ${gitReason(fetched)}`, `check the remote: \`git -C ${root} remote -v\``);
    }
    let pulled: Commit[] = [];
    if (remoteHasBranch) {
      if (!git(root, ["merge-base", "HEAD", "FETCH_HEAD"], { env }).ok) {
        throw new RkbError("refused", `${remote}/${branch} has an unrelated history`, "make sure the remote is a clone of this knowledge base");
      }
      pulled = commits(root, "HEAD..FETCH_HEAD", env);
      const rebase = git(root, ["rebase", "-q", "FETCH_HEAD"], { env });
      if (!rebase.ok && lacksIdentity(rebase)) {
        git(root, ["rebase", "--abort"], { env });
        throw identityError("nothing was pulled or pushed", "`rkb sync` again");
      }
      if (!rebase.ok) {
        const files = git(root, ["diff", "--name-only", "--diff-filter=U"], { env }).stdout.split("\n").filter(Boolean);
        throw new RkbError(
          "conflict",
          `pulling ${remote}/${branch} conflicts with local changes in ${files.join(", ") || "the knowledge base"}`,
          `resolve it by hand in ${root}: edit the files, \`git add\` them and run \`git rebase --continue\`, then \`rkb sync\` again; or undo with \`git rebase --abort\``,
          { files },
        );
      }
    }
    const findings = lintKb(root, { env });
    const errors = findings.filter((f) => f.severity === "error").length;
    if (errors) return { status: "not_pushed", remote, branch, pulled, errors, findings };
    const range = remoteHasBranch ? "FETCH_HEAD..HEAD" : "HEAD";
    const ahead = commits(root, range, env);
    // Lint judged the tree; the remote keeps every commit, so each one pushed is scanned too.
    const base = remoteHasBranch ? git(root, ["rev-parse", "--short", "FETCH_HEAD"], { env }).stdout.trim() : undefined;
    if (ahead.length) refuseSecretsInCommits(root, range, base, env, config.leak.allow);
    if (ahead.length || !remoteHasBranch) {
      const push = git(root, ["push", "-q", ...(remoteHasBranch ? [] : ["-u"]), remote, branch], { env });
      if (!push.ok)
        throw new RkbError("git", `pushing to ${remote} failed: ${gitReason(push)}`, "pull again with `rkb sync`, or check that you may push to the remote");
    }
    return { status: "done", remote, branch, pulled, pushed: ahead };
  });
}
