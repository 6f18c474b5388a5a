import { Database } from "bun:sqlite";
import { closeSync, existsSync, mkdirSync, openSync, readSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { holderGone } from "../lock.ts";
import { RkbError } from "../output/errors.ts";
import { stateDir } from "../paths.ts";
import type { SessionFormat, PendingCall } from "./reader.ts";
import type { OpenFailure } from "./signals.ts";

// Per session file, where rkb stopped reading: so a compaction followed by a shutdown, or a CI
// rerun over the same archive, reads only what is new and never writes the same item twice. It
// also carries what the next read needs from the old part: failures not yet fixed and tool calls
// whose result had not been written.

export interface Cursor {
  file: string;
  sessionId?: string;
  harness?: SessionFormat;
  cwd?: string;
  /** Byte offset after the last whole line read, and that line's number. */
  offset: number;
  line: number;
  lastEntryId?: string;
  openFailures: Record<string, OpenFailure>;
  pendingCalls: Record<string, PendingCall>;
  updated: number;
}

// Cursors live in one SQLite file: a CI run over thousands of sessions updates thousands of them,
// and one small write-ahead-log append each is far cheaper than a file created and renamed each.
const databases = new Map<string, Database>();

/** The cursor database; undefined when reading and none exists yet (a dry run creates nothing). */
function cursorDb(env: NodeJS.ProcessEnv, create: boolean): Database | undefined {
  const dir = stateDir(env);
  let db = databases.get(dir);
  if (!db) {
    if (!create && !existsSync(join(dir, "cursors.sqlite"))) return undefined;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    db = new Database(join(dir, "cursors.sqlite"), { create: true });
    db.run("PRAGMA busy_timeout = 10000");
    db.run("PRAGMA journal_mode = WAL");
    // WAL with synchronous=NORMAL never corrupts; a crash may drop the last cursors, which only
    // means those sessions are read again.
    db.run("PRAGMA synchronous = NORMAL");
    db.run("CREATE TABLE IF NOT EXISTS cursor (file TEXT PRIMARY KEY, data TEXT NOT NULL)");
    db.run("CREATE TABLE IF NOT EXISTS capture_lock (file TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, since INTEGER NOT NULL)");
    databases.set(dir, db);
  }
  return db;
}

export function loadCursor(env: NodeJS.ProcessEnv, file: string): Cursor | undefined {
  try {
    const row = cursorDb(env, false)?.query("SELECT data FROM cursor WHERE file = ?").get(file) as { data: string } | null | undefined;
    const c = row && JSON.parse(row.data);
    if (c && c.file === file && Number.isInteger(c.offset) && Number.isInteger(c.line)) return { openFailures: {}, pendingCalls: {}, ...c };
  } catch {
    // No cursor yet, or a damaged one: reading the whole file again is the safe answer.
  }
  return undefined;
}

export function saveCursor(env: NodeJS.ProcessEnv, cursor: Cursor): void {
  cursorDb(env, true)!.query("INSERT OR REPLACE INTO cursor (file, data) VALUES (?, ?)").run(cursor.file, JSON.stringify(cursor));
}

export interface SessionLockOptions {
  staleMs: number;
  waitMs: number;
}

/**
 * Runs fn while holding the capture lock of one session file, so a compaction hook, the
 * session-end hook and a CI run never capture the same entries twice. The lock is a row beside the
 * cursor (holder host, pid and time, stale like a lock file when its process is gone): a run over
 * an archive takes a thousand of them, and creating and removing a lock file each costs far more.
 */
export async function withSessionLock<T>(env: NodeJS.ProcessEnv, file: string, opts: SessionLockOptions, fn: () => Promise<T>): Promise<T> {
  const db = cursorDb(env, true)!;
  const host = hostname();
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    const taken = db.query("INSERT OR IGNORE INTO capture_lock (file, host, pid, since) VALUES (?, ?, ?, ?)").run(file, host, process.pid, Date.now()).changes === 1;
    if (taken) break;
    const holder = db.query("SELECT host, pid, since FROM capture_lock WHERE file = ?").get(file) as { host: string; pid: number; since: number } | null;
    if (holder && holderGone(holder.host, holder.pid, Date.now() - holder.since, opts.staleMs)) {
      db.query("DELETE FROM capture_lock WHERE file = ? AND host = ? AND pid = ? AND since = ?").run(file, holder.host, holder.pid, holder.since);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new RkbError("locked", `session file ${file} is being captured by process ${holder?.pid ?? "?"} on ${holder?.host ?? "?"}`, "wait for it to finish; a capture that died is taken over once its process is gone");
    }
    await Bun.sleep(20 + Math.random() * 60);
  }
  try {
    return await fn();
  } finally {
    db.query("DELETE FROM capture_lock WHERE file = ? AND host = ? AND pid = ?").run(file, host, process.pid);
  }
}

/**
 * The cursor still fits the file when the file is at least as long and starts the same session;
 * otherwise the file was replaced or truncated and is read from the start.
 */
export function cursorFits(cursor: Cursor, size: number, sessionId: string | undefined): boolean {
  return size >= cursor.offset && (cursor.sessionId === undefined || sessionId === undefined || cursor.sessionId === sessionId);
}

/** The session id from the first lines of a session file, without reading the rest. */
export function peekSessionId(path: string): string | undefined {
  const buf = Buffer.alloc(64 * 1024);
  let n = 0;
  const fd = openSync(path, "r");
  try {
    n = readSync(fd, buf, 0, buf.length, 0);
  } finally {
    closeSync(fd);
  }
  for (const line of buf.subarray(0, n).toString("utf8").split("\n").slice(0, 5)) {
    try {
      const obj = JSON.parse(line);
      if (obj?.type === "session" && typeof obj.id === "string") return obj.id;
      if (typeof obj?.sessionId === "string") return obj.sessionId;
    } catch {}
  }
  return undefined;
}
