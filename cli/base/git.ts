import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "./errors.ts";

// A thin wrapper over the git command line: rkb keeps no git state of its own.

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  code: number;
}

export function git(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): GitResult {
  const run = () =>
    Bun.spawnSync(["git", ...args], {
      cwd,
      env: { ...(opts.env ?? process.env), GIT_TERMINAL_PROMPT: "0" },
      stdin: opts.stdin !== undefined ? Buffer.from(opts.stdin) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
  let proc: ReturnType<typeof run>;
  try {
    proc = run();
  } catch (e) {
    // Bun throws when the program cannot be started at all (no git on PATH, cwd gone).
    const missing = /not found/i.test((e as Error).message);
    throw new RkbError(
      "git",
      `cannot run \`git ${args[0] ?? ""}\` in ${cwd}: ${(e as Error).message}`,
      missing ? "install git and make sure it is on PATH (`git --version` should work)" : `check that ${cwd} is a folder you can enter`,
    );
  }
  return { ok: proc.exitCode === 0, stdout: proc.stdout.toString(), stderr: proc.stderr.toString(), code: proc.exitCode ?? 1 };
}

/**
 * The name git commits with, or "" when git cannot commit for want of an identity: git itself decides
 * (`git var`), from its config, GIT_AUTHOR_*, GIT_COMMITTER_* or EMAIL.
 */
export function gitIdentity(cwd: string, env: NodeJS.ProcessEnv): string {
  const author = git(cwd, ["var", "GIT_AUTHOR_IDENT"], { env });
  if (!author.ok || !git(cwd, ["var", "GIT_COMMITTER_IDENT"], { env }).ok) return "";
  return author.stdout.replace(/ <.*$/s, "").trim();
}

const IDENTITY_FIX = 'run `git config --global user.name "Your Name"` and `git config --global user.email you@example.com`';

/** The error for a write git cannot commit: no user name or e-mail. `done` says what was left, `again` what to run after. */
export function identityError(done: string, again: string): RkbError {
  return new RkbError("git_identity", `git has no user name or email, so rkb cannot commit; ${done}`, `${IDENTITY_FIX}, then ${again}`);
}

/** Refuses before anything is done when git could not commit what rkb is about to make. */
export function requireIdentity(cwd: string, env: NodeJS.ProcessEnv, done: string, again: string): void {
  if (!gitIdentity(cwd, env)) throw identityError(done, again);
}

/** Runs git and turns a failure into an rkb error naming the command. */
export function gitOrThrow(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): string {
  const r = git(cwd, args, opts);
  if (!r.ok) throw gitFailure(cwd, args, r);
  return r.stdout;
}

// git's advice after a remote failed, the same whatever the cause: it says nothing of why.
const ADVICE = /^(?:Please make sure you have the correct access rights|and the repository exists\.?|hint:.*)$/;

/** What git's error output says of why a command failed: its lines (the cause first), without the generic advice. */
export function gitReason(r: GitResult): string {
  const lines = (r.stderr || r.stdout)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !ADVICE.test(l));
  const reason = lines.slice(0, 4).join(" / ");
  return reason.length > 600 ? `${reason.slice(0, 599)}…` : reason || `git exited with ${r.code}`;
}

/** git refused to commit for want of an identity (its words when it cannot tell who you are). */
export function lacksIdentity(r: GitResult): boolean {
  return /Please tell me who you are|unable to auto-detect email address|empty ident name/.test(r.stderr);
}

/** The rkb error for a git command that failed, naming the command and git's last words. */
export function gitFailure(cwd: string, args: string[], r: GitResult): RkbError {
  if (lacksIdentity(r)) return identityError("nothing was written", "run the command again");
  const detail = (r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ");
  return new RkbError(
    "git",
    `\`git ${args.join(" ")}\` failed in ${cwd}: ${detail}`,
    "check the repository with `git status` there; `rkb doctor` lists common problems",
  );
}

/** The git operation that stopped half-way in a repository (on a conflict), with the commands that finish it. */
export interface StoppedOperation {
  /** "a rebase", "a merge", … */
  what: string;
  /** The commands that go on or undo it, e.g. `git rebase --continue` or `git rebase --abort`. */
  finish: string;
}

const STOPPED: [string, string, string][] = [
  ["rebase-merge", "a rebase", "rebase"],
  ["rebase-apply", "a rebase", "rebase"],
  ["MERGE_HEAD", "a merge", "merge"],
  ["CHERRY_PICK_HEAD", "a cherry-pick", "cherry-pick"],
  ["REVERT_HEAD", "a revert", "revert"],
];

/** A rebase, merge, cherry-pick or revert in progress in the repository at root, or undefined. */
export function stoppedOperation(root: string): StoppedOperation | undefined {
  const gitDir = join(root, ".git");
  if (!existsSync(gitDir) || !statSync(gitDir).isDirectory()) return undefined;
  const found = STOPPED.find(([file]) => existsSync(join(gitDir, file)));
  if (!found) return undefined;
  const [, what, verb] = found;
  return { what, finish: `\`git -C ${root} status\`, then \`git ${verb} --continue\` once the conflicts are resolved and added, or \`git ${verb} --abort\`` };
}

/** The refusal of a write or a sync while an operation stopped half-way: rkb must not commit in the middle of it. */
export function refuseWhileStopped(root: string): void {
  const stopped = stoppedOperation(root);
  if (stopped)
    throw new RkbError(
      "refused",
      `${stopped.what} is in progress in the knowledge base; rkb writes nothing until it is finished`,
      `finish it first: ${stopped.finish}`,
    );
}

/** The contents of git objects (`<oid>`, `<commit>:<path>`), in order, read with one `git cat-file --batch`; each must exist. */
export function catBlobs(root: string, env: NodeJS.ProcessEnv, oids: string[]): Buffer[] {
  if (!oids.length) return [];
  const proc = Bun.spawnSync(["git", "cat-file", "--batch"], { cwd: root, env, stdin: Buffer.from(oids.join("\n") + "\n"), stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) {
    throw new RkbError(
      "git",
      `\`git cat-file --batch\` failed in ${root}: ${proc.stderr.toString().trim()}`,
      "check the repository with `git status` there; `rkb doctor` lists common problems",
    );
  }
  const out = proc.stdout;
  const blobs: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < oids.length; i++) {
    const headerEnd = out.indexOf(10, at);
    const size = Number(out.subarray(at, headerEnd).toString().split(" ")[2]);
    blobs.push(out.subarray(headerEnd + 1, headerEnd + 1 + size));
    at = headerEnd + 1 + size + 1;
  }
  return blobs;
}
