import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathInside, readIfExists, removeEmptyFolders, removeLeftTemps, writeAtomic } from "../base/fsutil.ts";
import { git } from "../base/git.ts";
import { findRepo } from "../place/repo.ts";
import { waitForGitToFinish } from "./git-index.ts";

// What a write is about to do, kept in the git folder until its commit lands, so a write killed
// half-way is undone by the next one. Undone, not completed: the killed command never reported
// success, so whoever ran it will run it again, and completing it too would add the lesson twice.
// A journal whose commit landed (HEAD moved) has nothing left to undo.

export interface JournalEntry {
  rel: string;
  /** The file's text before the write, or null when it did not exist. */
  before: string | null;
  /** Set when the file was not text (an image a move carries along): `before` holds its bytes in base64. */
  encoding?: "base64";
}

export interface Journal {
  head: string;
  entries: JournalEntry[];
  /** Folders the write creates (absolute), removed again if they end up empty. */
  created: string[];
}

function journalPath(root: string): string {
  const repo = findRepo(root);
  return join(repo?.gitDir ?? join(root, ".git"), "rkb-journal.json");
}

export function headCommit(root: string, env: NodeJS.ProcessEnv): string {
  return git(root, ["rev-parse", "-q", "--verify", "HEAD"], { env }).stdout.trim();
}

/** What a file is before a write touches it: its text, its bytes in base64 when it is not UTF-8 text, or null when missing. */
export function entryBefore(abs: string, rel: string): JournalEntry {
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch (e: any) {
    if (e?.code === "ENOENT") return { rel, before: null };
    throw e;
  }
  const text = bytes.toString("utf8");
  return Buffer.from(text).equals(bytes) ? { rel, before: text } : { rel, before: bytes.toString("base64"), encoding: "base64" };
}

export function openJournal(root: string, journal: Journal): void {
  writeAtomic(journalPath(root), JSON.stringify(journal));
}

export function closeJournal(root: string): void {
  rmSync(journalPath(root), { force: true });
}

/**
 * Whether one of git's locks was left by the git of a write killed half-way: a journal is still open
 * (its write had started, and its process is gone, since the caller holds the write lock now) and
 * the lock was taken after it. Call under the write lock.
 */
export function lockLeftByKilledWrite(root: string, lockPath: string): boolean {
  try {
    return statSync(lockPath).mtimeMs >= statSync(journalPath(root)).mtimeMs - 1000;
  } catch {
    return false;
  }
}

/** Puts the files of a write back as they were and unstages them. */
export function rollBack(root: string, env: NodeJS.ProcessEnv, journal: Journal): void {
  for (const { rel, before, encoding } of journal.entries) {
    const abs = pathInside(root, rel);
    if (before === null) rmSync(abs, { force: true });
    else writeAtomic(abs, encoding === "base64" ? Buffer.from(before, "base64") : before);
    removeLeftTemps(abs);
  }
  if (journal.entries.length) git(root, ["reset", "-q", "--", ...journal.entries.map((e) => e.rel)], { env });
  removeEmptyFolders(journal.created);
}

/** Undoes a write that was killed before its commit; returns what it did, for a note. Call under the write lock. */
export async function recoverKilledWrite(root: string, env: NodeJS.ProcessEnv, waitMs: number): Promise<string | undefined> {
  removeLeftTemps(journalPath(root));
  const text = readIfExists(journalPath(root));
  if (text === undefined) return undefined;
  let journal: Journal;
  try {
    journal = JSON.parse(text);
  } catch {
    // Torn before it was complete: the write had not touched a file yet.
    closeJournal(root);
    return undefined;
  }
  await waitForGitToFinish(root, waitMs);
  if (headCommit(root, env) !== journal.head) {
    closeJournal(root);
    return undefined;
  }
  rollBack(root, env, journal);
  closeJournal(root);
  return `undid an earlier write that was killed before its commit (${journal.entries.map((e) => e.rel).join(", ")})`;
}
