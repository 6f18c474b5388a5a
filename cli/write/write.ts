import { existsSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { missingFolders, pathInside, readIfExists, removeEmptyFolders, writeAtomic } from "../base/fsutil.ts";
import { RkbError } from "../base/errors.ts";
import type { Caller } from "../machine/settings.ts";
import { burstQuestion, graceKey, openGrace } from "./burst.ts";
import { gitOrThrow } from "../base/git.ts";
import { underWriteLock } from "./entry.ts";
import { gitOnIndex } from "./git-index.ts";
import { closeJournal, entryBefore, headCommit, openJournal, rollBack, type Journal } from "./journal.ts";
import type { Finding } from "../lesson/finding.ts";
import { refuseSecrets } from "../lint/leak.ts";
import { lintKb } from "../lint/lint.ts";
import { needsUser, saveRequest, type NeedsUser, type PendingRequest, type StoredWrite } from "./requests.ts";
import { loadKb, type Kb } from "../kb/store.ts";
import type { InboxEntry } from "../inbox/inbox.ts";

// The one write path: under the knowledge base's lock, undo a write that was killed half-way, plan
// the change from the current files, check its paths stay inside, lint it, write atomically and
// commit exactly its own paths. Any failure, and a kill, puts the files back as they were.

export interface Change {
  /** Path relative to the knowledge base. */
  rel: string;
  /** New content, or null to delete. */
  text: string | null;
  /** Set for a file that is not text (an image a move carries along): `text` holds its bytes in base64. */
  encoding?: "base64";
}

/** What a change writes: text, bytes, or null to delete. */
function content(c: Change): string | Uint8Array | null {
  return c.text !== null && c.encoding === "base64" ? Buffer.from(c.text, "base64") : c.text;
}

export interface Plan<R> {
  changes: Change[];
  /** Commit subject, e.g. `add(general/git): Title [id]`. */
  message: string;
  result: R;
  /** A write the user must allow first (e.g. archiving a whole folder): the question and the option that allows it. */
  ask?: { question: string; option: string };
  /** Inbox items made after the commit (an import's plain notes), already masked; asked about with the write. */
  inbox?: InboxEntry[];
  /** Files changed only in passing (a link rewritten by a move): errors they had before do not stop the write. */
  incidental?: string[];
  /** The file made from a text the caller gave (`rkb add < lesson.md`): its errors are told on that text, its name and its lines. */
  given?: { rel: string; asGiven: (f: Finding) => Finding };
}

export interface Written<R> {
  result: R;
  commit: string;
  diff: string[];
  /** Ids of the plan's inbox items, in its order. */
  inbox?: string[];
  /** Lint's warnings on the files written (they do not stop a write; the writer tells them). */
  warnings?: Finding[];
}

/** A write is made, or waits for the user's yes (`rkb confirm`), with nothing written. */
export type WriteOutcome<R> = Written<R> | NeedsUser;

export function waitsForUser<R>(outcome: WriteOutcome<R>): outcome is NeedsUser {
  return (outcome as NeedsUser).status === "needs_user";
}

const DIFF_LINES = 80;

/** Who writes: the environment the write runs in and its caller (an agent's writes have a burst limit). */
export interface Writer {
  env: NodeJS.ProcessEnv;
  caller: Caller;
}

export async function transact<R>(root: string, { env, caller }: Writer, plan: (kb: Kb) => Plan<R> | Promise<Plan<R>>): Promise<WriteOutcome<R>> {
  return underWriteLock(root, env, async (config) => {
    const planned = await plan(loadKb(root));
    // A plan with no changes (an edit to the same text) has nothing to lint or commit; `git commit`
    // with no paths would fail on an empty message.
    if (!planned.changes.length) return { result: planned.result, commit: "", diff: [], inbox: await addInboxEntries(env, planned.inbox) };
    const warnings = check(root, env, planned.changes, planned.message, planned.incidental, planned.given);
    // After the checks, so an invalid write never asks the user.
    const burst = burstQuestion(root, env, caller, config);
    const ask = planned.ask ?? (burst ? { question: burst, option: "continue" } : undefined);
    if (ask) {
      const before = Object.fromEntries(planned.changes.map((c) => [c.rel, readIfExists(pathInside(root, c.rel)) ?? null]));
      const write: StoredWrite = {
        root,
        changes: planned.changes,
        before,
        message: planned.message,
        result: planned.result,
        inbox: planned.inbox,
        incidental: planned.incidental,
      };
      return needsUser(saveRequest(env, { question: ask.question, options: [ask.option, "cancel"], session: graceKey(caller), write }));
    }
    const written = await applyAndCommit(root, env, planned, config.lock.waitMs);
    return { ...written, inbox: await addInboxEntries(env, planned.inbox), warnings };
  });
}

/** Makes a plan's inbox items, after its commit: a write that failed leaves none. */
async function addInboxEntries(env: NodeJS.ProcessEnv, entries: InboxEntry[] | undefined): Promise<string[] | undefined> {
  if (!entries?.length) return undefined;
  // Loaded only here: most writes make no inbox item.
  const { addItem } = await import("../inbox/inbox.ts");
  return entries.map((e) => addItem(env, e.meta, e.body));
}

/** Makes a write the user allowed with `rkb confirm`, if its files are still as they were when it was asked. */
export async function applyAllowed(req: PendingRequest, choice: string, env: NodeJS.ProcessEnv): Promise<Written<unknown>> {
  const { write } = req;
  return underWriteLock(write.root, env, async (config) => {
    for (const c of write.changes) {
      if ((readIfExists(pathInside(write.root, c.rel)) ?? null) !== write.before[c.rel]) {
        throw new RkbError("conflict", `${c.rel} changed since the request was made`, "run the command again; nothing was written");
      }
    }
    check(write.root, env, write.changes, write.message, write.incidental);
    if (choice === "continue") openGrace(write.root, env, req.session, config);
    const written = await applyAndCommit(write.root, env, { changes: write.changes, message: write.message, result: write.result }, config.lock.waitMs);
    return { ...written, inbox: await addInboxEntries(env, write.inbox) };
  });
}

/** Every path stays inside the knowledge base (checked before anything is created) and every lesson passes lint; returns the warnings of the files written. */
function check(root: string, env: NodeJS.ProcessEnv, changes: Change[], message: string, incidental: string[] = [], given?: Plan<unknown>["given"]): Finding[] {
  // git takes a file with a NUL byte for binary, and no process argument (the commit message) can hold one.
  const nul = changes.find((c) => c.encoding === undefined && c.text?.includes("\0"));
  if (nul || message.includes("\0"))
    throw new RkbError(
      "invalid_lesson",
      `${nul ? nul.rel : "the commit message"} holds a NUL byte`,
      "remove it: lessons and reasons are text; nothing was written",
    );
  for (const c of changes) pathInside(root, c.rel);
  const overrides = new Map(changes.map((c) => [c.rel, content(c)]));
  // Only errors stop a write, so the whole-tree comparison behind the near-duplicate warning is skipped.
  const lint = (opts: { overrides?: typeof overrides; only: string[] }) => lintKb(root, { ...opts, env, nearDuplicates: false });
  const lintErrors = (opts: { overrides?: typeof overrides; only: string[] }) => lint(opts).filter((f) => f.severity === "error");
  const key = (f: Finding) => `${f.path}\0${f.rule}\0${f.message}`;
  const had = new Set(incidental.length ? lintErrors({ only: incidental }).map(key) : []);
  // The files written are judged, and the folders the write creates (a topic named like another topic's alias).
  const created = new Set(
    changes
      .filter((c) => c.text !== null)
      .flatMap((c) =>
        c.rel
          .split("/")
          .slice(0, -1)
          .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
      )
      .filter((folder) => !existsSync(join(root, folder))),
  );
  const written = changes.filter((c) => c.text !== null).map((c) => c.rel);
  const findings = lint({ overrides, only: written });
  const errors = findings.filter((f) => f.severity === "error" && (overrides.has(f.path) || created.has(f.path)) && !had.has(key(f)));
  if (errors.length)
    throw invalid(
      errors.map((f) => (given && f.path === given.rel ? given.asGiven(f) : f)).sort((a, b) => a.path.localeCompare(b.path) || (a.line ?? 0) - (b.line ?? 0)),
    );
  refuseSecrets(message, "the commit message");
  return findings.filter((f) => f.severity === "warning" && overrides.has(f.path) && !incidental.includes(f.path));
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

/** Use records and recorded replays this machine and others appended since the last commit: rkb's own files, which ride along with a write. */
export function useRecordPaths(root: string): string[] {
  const paths: string[] = [];
  for (const rel of [".rkb/.gitignore", ...listUsage(root)]) {
    try {
      pathInside(root, rel);
      if (existsSync(join(root, rel))) paths.push(rel);
    } catch {
      // A use-record path that is a symlink or not a file is never committed.
    }
  }
  return paths;
}

function listUsage(root: string): string[] {
  return ["usage", "replays"].flatMap((folder) => {
    try {
      if (!lstatSync(join(root, ".rkb", folder)).isDirectory()) return [];
      return readdirSync(join(root, ".rkb", folder))
        .filter((n) => n.endsWith(".jsonl"))
        .map((n) => `.rkb/${folder}/${n}`);
    } catch {
      return [];
    }
  });
}

/** The folders that held the files a write deleted, outermost first (below the knowledge base's root). */
function emptiedFolders(root: string, changes: Change[]): string[] {
  const folders = new Set<string>();
  for (const c of changes) {
    if (c.text !== null) continue;
    const parts = c.rel.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(join(root, ...parts.slice(0, i)));
  }
  return [...folders].sort((a, b) => a.split("/").length - b.split("/").length);
}

async function applyAndCommit<R>(root: string, env: NodeJS.ProcessEnv, planned: Plan<R>, waitMs: number): Promise<Written<R>> {
  const journal: Journal = {
    head: headCommit(root, env),
    entries: planned.changes.map((c) => entryBefore(pathInside(root, c.rel), c.rel)),
    created: [...new Set(planned.changes.flatMap((c) => missingFolders(root, c.rel)))],
  };
  openJournal(root, journal);
  try {
    for (const c of planned.changes) {
      const abs = pathInside(root, c.rel);
      const next = content(c);
      if (next === null) rmSync(abs, { force: true });
      else writeAtomic(abs, next);
    }
    // Exactly this write's paths, plus rkb's own use records: never anything else in the tree.
    const paths = [...planned.changes.map((c) => c.rel), ...useRecordPaths(root)];
    await gitOnIndex(root, ["add", "-A", "--", ...paths], env, waitMs);
    await gitOnIndex(root, ["commit", "-q", "--no-verify", "-m", planned.message, "--", ...paths], env, waitMs);
  } catch (e) {
    rollBack(root, env, journal);
    closeJournal(root);
    throw e;
  }
  closeJournal(root);
  // A move leaves its old folders behind; an empty folder is nothing git keeps, so neither does rkb.
  removeEmptyFolders(emptiedFolders(root, planned.changes));
  const commit = gitOrThrow(root, ["rev-parse", "--short", "HEAD"], { env }).trim();
  const show = gitOrThrow(root, ["show", "--format=%h %s", commit], { env }).split("\n");
  const diff = show.length > DIFF_LINES ? [...show.slice(0, DIFF_LINES), `... [${show.length} lines; run \`git -C ${root} show ${commit}\` for all]`] : show;
  return { result: planned.result, commit, diff };
}
