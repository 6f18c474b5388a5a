import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic } from "../fsutil.ts";
import { withLock } from "../lock.ts";
import { RkbError } from "../output/errors.ts";
import { loadKbConfig } from "./config.ts";
import { git, gitOrThrow } from "./git.ts";
import { requireWritableKb } from "./layout.ts";
import type { Finding } from "./finding.ts";
import { lintKb } from "./lint.ts";
import { loadKb, type Kb } from "./store.ts";

// The one write path: under the knowledge base's lock, plan the change from the current files,
// lint it, write atomically, commit. Any failure puts the files back as they were.

export interface Change {
  /** Path relative to the knowledge base. */
  rel: string;
  /** New content, or null to delete. */
  text: string | null;
}

export interface Plan<R> {
  changes: Change[];
  /** Commit subject, e.g. `add(general/git): Title [id]`. */
  message: string;
  result: R;
}

export interface Written<R> {
  result: R;
  commit: string;
  diff: string[];
}

const DIFF_LINES = 80;

export function lockPath(root: string): string {
  const dotGit = join(root, ".git");
  return statSync(dotGit).isDirectory() ? join(dotGit, "rkb.lock") : join(root, ".rkb-write.lock");
}

export async function transact<R>(root: string, env: NodeJS.ProcessEnv, plan: (kb: Kb) => Plan<R> | Promise<Plan<R>>): Promise<Written<R>> {
  requireWritableKb(root);
  const config = loadKbConfig(root);
  return withLock(lockPath(root), { staleMs: config.lock.staleMs, waitMs: config.lock.waitMs, what: "the knowledge base" }, async () => {
    const planned = await plan(loadKb(root));
    // A plan with no changes (an edit to the same text) has nothing to lint or commit; `git commit`
    // with no paths would fail on an empty message.
    if (!planned.changes.length) return { result: planned.result, commit: "", diff: [] };
    const overrides = new Map(planned.changes.map((c) => [c.rel, c.text]));
    const errors = lintKb(root, { overrides, only: planned.changes.filter((c) => c.text !== null).map((c) => c.rel), env }).filter(
      (f) => f.severity === "error" && overrides.has(f.path),
    );
    if (errors.length) throw invalid(errors);
    return applyAndCommit(root, env, planned);
  });
}

function invalid(findings: Finding[]): RkbError {
  const first = findings[0]!;
  return new RkbError(
    "invalid_lesson",
    `${first.path}${first.line ? ":" + first.line : ""}: ${first.message}${findings.length > 1 ? ` (and ${findings.length - 1} more)` : ""}`,
    "fix the lesson and try again; nothing was written",
    { findings },
  );
}

function applyAndCommit<R>(root: string, env: NodeJS.ProcessEnv, planned: Plan<R>): Written<R> {
  const before = new Map<string, string | null>();
  for (const c of planned.changes) {
    const abs = join(root, c.rel);
    before.set(c.rel, existsSync(abs) ? readFileSync(abs, "utf8") : null);
  }
  const restore = () => {
    for (const [rel, text] of before) {
      const abs = join(root, rel);
      if (text === null) rmSync(abs, { force: true });
      else writeAtomic(abs, text);
    }
    git(root, ["reset", "-q", "--", ...before.keys()], { env });
  };
  try {
    for (const c of planned.changes) {
      if (c.text === null) rmSync(join(root, c.rel), { force: true });
      else writeAtomic(join(root, c.rel), c.text);
    }
    const paths = planned.changes.map((c) => c.rel);
    // Use records written since the last commit ride along with this one.
    if (existsSync(join(root, ".rkb"))) paths.push(".rkb");
    gitOrThrow(root, ["add", "-A", "--", ...paths], { env });
    gitOrThrow(root, ["commit", "-q", "--no-verify", "-m", planned.message, "--", ...paths], { env });
  } catch (e) {
    restore();
    throw e;
  }
  const commit = gitOrThrow(root, ["rev-parse", "--short", "HEAD"], { env }).trim();
  const show = gitOrThrow(root, ["show", "--format=%h %s", commit], { env }).split("\n");
  const diff = show.length > DIFF_LINES ? [...show.slice(0, DIFF_LINES), `... [${show.length} lines; run \`git -C ${root} show ${commit}\` for all]`] : show;
  return { result: planned.result, commit, diff };
}
