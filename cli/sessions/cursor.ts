import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
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

function key(file: string): string {
  return createHash("sha256").update(file).digest("hex").slice(0, 24);
}

export const sessionLockPath = (env: NodeJS.ProcessEnv, file: string) => join(stateDir(env), "locks", `session-${key(file)}.lock`);

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
