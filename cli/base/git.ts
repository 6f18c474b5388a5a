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

/** The name and e-mail git commits with, from its config or the environment ("" when unset). */
export function gitIdentity(cwd: string, env: NodeJS.ProcessEnv): { name: string; email: string } {
  return {
    name: git(cwd, ["config", "user.name"], { env }).stdout.trim() || env.GIT_AUTHOR_NAME || "",
    email: git(cwd, ["config", "user.email"], { env }).stdout.trim() || env.GIT_AUTHOR_EMAIL || "",
  };
}

/** Runs git and turns a failure into an rkb error naming the command. */
export function gitOrThrow(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): string {
  const r = git(cwd, args, opts);
  if (!r.ok) throw gitFailure(cwd, args, r);
  return r.stdout;
}

/** The rkb error for a git command that failed, naming the command and git's last words. */
export function gitFailure(cwd: string, args: string[], r: GitResult): RkbError {
  const detail = (r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ");
  return new RkbError(
    "git",
    `\`git ${args.join(" ")}\` failed in ${cwd}: ${detail}`,
    "check the repository with `git status` there; `rkb doctor` lists common problems",
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
