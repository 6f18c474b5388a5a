import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { namesIn } from "../base/fsutil.ts";
import { sha256Hex } from "../base/hash.ts";
import { stateDir } from "./settings.ts";
import { maskSecrets } from "../text/secrets.ts";
import { personalMasker, tildePath } from "../text/paths.ts";

// Everything rkb keeps per machine besides the inbox, in one SQLite file (`<state>/cursors.sqlite`):
// capture cursors and locks, what the hooks remember per session, failure signatures, the distill
// log, hook errors, the last hook call per harness, the writes waiting for the user's yes and the
// grace windows the user opened for an agent's burst of writes.
// Transactions replace lock files; each kind expires with one DELETE. Session text is masked before it is stored, and deleted rows are
// overwritten (secure_delete, then the write-ahead log is truncated), so an expired secret that
// masking missed does not linger in the file's free pages.

const SCHEMA_VERSION = 4;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS cursor (file TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cursor_carry (file TEXT PRIMARY KEY, data TEXT NOT NULL, updated INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS cursor_carry_updated ON cursor_carry (updated);
CREATE TABLE IF NOT EXISTS capture_lock (file TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, since INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS session_record (id INTEGER PRIMARY KEY, session TEXT NOT NULL, time INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS session_record_session ON session_record (session, id);
CREATE TABLE IF NOT EXISTS failure_signature (sig TEXT NOT NULL, session TEXT NOT NULL, time INTEGER NOT NULL, PRIMARY KEY (sig, session)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS failure_signature_time ON failure_signature (time);
CREATE TABLE IF NOT EXISTS distilled (id INTEGER PRIMARY KEY, time INTEGER NOT NULL, item TEXT NOT NULL, kind TEXT NOT NULL, signals TEXT NOT NULL, candidate INTEGER, op TEXT NOT NULL, lesson TEXT);
CREATE INDEX IF NOT EXISTS distilled_time ON distilled (time);
CREATE TABLE IF NOT EXISTS hook_error (id INTEGER PRIMARY KEY, time INTEGER NOT NULL, event TEXT NOT NULL, harness TEXT, error TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hook_call (harness TEXT PRIMARY KEY, time INTEGER NOT NULL, event TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS request (id TEXT PRIMARY KEY, created INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS burst_grace (session TEXT PRIMARY KEY, until_ms INTEGER NOT NULL, head TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS captured (span TEXT PRIMARY KEY, time INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS captured_time ON captured (time);
`;

/** What an older rkb kept in files beside the database; removed once, when the schema is created. */
const LEGACY_FILES = ["sessions", "signatures.jsonl", "signatures.jsonl.lock", "distilled.jsonl", "distilled.jsonl.lock", "hook-errors.log", "heartbeat"];

const DAY = 86400;
/** How long each kind is kept, in seconds since it was last written. */
export const KEEP = {
  sessionRecords: 14 * DAY,
  cursorCarry: 14 * DAY,
  signatures: 90 * DAY,
  /** The parts of sessions already captured, so a copy of one is not captured again. */
  captured: 90 * DAY,
  distilled: 90 * DAY,
  hookErrors: 30 * DAY,
  hookCalls: 90 * DAY,
  /** A write waiting for the user's yes expires after an hour. */
  requests: 3600,
};
const MAX_HOOK_ERRORS = 100;
/** A hook error quoting a huge payload keeps its start only. */
const MAX_ERROR_CHARS = 500;

const databases = new Map<string, Database>();
export const statePath = (env: NodeJS.ProcessEnv) => join(stateDir(env), "cursors.sqlite");
const now = () => Math.floor(Date.now() / 1000);

/**
 * The state database, opened on first use (every hook is a new process; commands that never touch
 * state never pay for it). With create false and no file yet it is undefined: readers and dry runs
 * create nothing.
 */
export function stateDb(env: NodeJS.ProcessEnv, create = true): Database | undefined {
  const dir = stateDir(env);
  let db = databases.get(dir);
  if (db) return db;
  const path = join(dir, "cursors.sqlite");
  if (!create && !existsSync(path)) return undefined;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Created empty with mode 600 first (it holds what sessions said); SQLite gives the -wal and -shm
  // files the same mode.
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch {}
  db = new Database(path, { create: true });
  db.run("PRAGMA busy_timeout = 10000");
  db.run("PRAGMA journal_mode = WAL");
  // WAL with synchronous=NORMAL never corrupts and commits without an fsync; a crash may drop the
  // last writes, which only means a session is read again or a hook call is not shown.
  db.run("PRAGMA synchronous = NORMAL");
  db.run("PRAGMA secure_delete = ON");
  if (userVersion(db) < SCHEMA_VERSION) migrate(db, dir, env.HOME);
  databases.set(dir, db);
  return db;
}

const userVersion = (db: Database) => (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;

function migrate(db: Database, dir: string, home: string | undefined): void {
  let from = SCHEMA_VERSION;
  let olderRkb = false;
  db.transaction(() => {
    // Read again under the write lock: processes that open a new database at once (hooks of one
    // session) each saw version 0, and only the first may migrate; a second one would take the
    // first one's new tables for an older rkb's and clear the capture locks it holds.
    from = userVersion(db);
    if (from >= SCHEMA_VERSION) return;
    // Version 0 is also a new, empty file; only one with version 0's cursor table was written by an
    // older rkb. On a new one nothing is migrated and no file beside it is touched: the Rust rkb keeps
    // files of the same names in this folder (sessions/, signatures.jsonl, hook-errors.log, heartbeat/).
    olderRkb = from === 0 && db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cursor'").get() !== null;
    db.run(SCHEMA);
    if (olderRkb) {
      // Version 0 kept the open failures and pending calls, raw commands included, inside the
      // cursor; only the position stays (a failure carried over is lost, a secret is not kept).
      for (const row of db.query("SELECT file, data FROM cursor").all() as { file: string; data: string }[]) {
        let position: Record<string, unknown> = {};
        try {
          position = JSON.parse(row.data);
        } catch {}
        delete position.openFailures;
        delete position.pendingCalls;
        db.query("UPDATE cursor SET data = ? WHERE file = ?").run(JSON.stringify(position), row.file);
      }
    }
    if (from < 4) homeAsTilde(db, home);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  if (from >= SCHEMA_VERSION) return;
  if (from < 2) removeOwnRequestFiles(dir);
  if (from < 3) rmSync(join(dir, "burst-grace.json"), { force: true });
  if (olderRkb) {
    // Rewrite the file so no page keeps what version 0 stored (version 0 left it readable by all),
    // and drop the old JSONL files.
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(join(dir, "cursors.sqlite" + suffix))) chmodSync(join(dir, "cursors.sqlite" + suffix), 0o600);
    db.run("VACUUM");
    truncateLog(db);
    for (const name of LEGACY_FILES) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Version 1 kept writes waiting for the user as `<state>/requests/<id>.json`, where the Rust rkb
 * keeps its own requests in another shape (each read the other's as expired and deleted it). Only
 * ours (they hold `write`) are removed; the Rust rkb's stay.
 */
function removeOwnRequestFiles(dir: string): void {
  const folder = join(dir, "requests");
  for (const name of namesIn(folder)) {
    if (!/^r-[0-9a-f]{6}\.json$/.test(name)) continue;
    try {
      if ("write" in JSON.parse(readFileSync(join(folder, name), "utf8"))) rmSync(join(folder, name), { force: true });
    } catch {}
  }
}

/**
 * Up to version 3 cursors and capture locks were kept under the session file's full path, home
 * folder and all; version 4 writes the home as `~` (sessions/cursor.ts), in the keys and in what they hold.
 */
function homeAsTilde(db: Database, home: string | undefined): void {
  const rewrite = (file: string, data: string) => ({
    key: tildePath(file, home),
    data: personalMasker()(data.replaceAll(JSON.stringify(file).slice(1, -1), tildePath(file, home))),
  });
  for (const row of db.query("SELECT file, data FROM cursor").all() as { file: string; data: string }[]) {
    const { key, data } = rewrite(row.file, row.data);
    db.query("DELETE FROM cursor WHERE file = ?").run(row.file);
    db.query("INSERT OR REPLACE INTO cursor (file, data) VALUES (?, ?)").run(key, data);
  }
  for (const row of db.query("SELECT file, data, updated FROM cursor_carry").all() as { file: string; data: string; updated: number }[]) {
    const { key, data } = rewrite(row.file, row.data);
    db.query("DELETE FROM cursor_carry WHERE file = ?").run(row.file);
    db.query("INSERT OR REPLACE INTO cursor_carry (file, data, updated) VALUES (?, ?, ?)").run(key, data, row.updated);
  }
  db.run("DELETE FROM capture_lock");
}

/** Copies the write-ahead log into the file and empties it, so deleted rows leave no copy there. */
function truncateLog(db: Database): void {
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
}

/** Removes what has outlived its use: one DELETE per kind, then the log is truncated. */
export function expireState(env: NodeJS.ProcessEnv, at = now()): number {
  const db = stateDb(env, false);
  if (!db) return 0;
  let removed = 0;
  db.transaction(() => {
    const run = (sql: string, ...params: number[]) => (removed += db.query(sql).run(...params).changes);
    run("DELETE FROM session_record WHERE session IN (SELECT session FROM session_record GROUP BY session HAVING max(time) < ?)", at - KEEP.sessionRecords);
    run("DELETE FROM cursor_carry WHERE updated < ?", at - KEEP.cursorCarry);
    run("DELETE FROM failure_signature WHERE time < ?", at - KEEP.signatures);
    run("DELETE FROM captured WHERE time < ?", at - KEEP.captured);
    run("DELETE FROM distilled WHERE time < ?", at - KEEP.distilled);
    run("DELETE FROM hook_error WHERE time < ? OR id <= (SELECT max(id) FROM hook_error) - ?", at - KEEP.hookErrors, MAX_HOOK_ERRORS);
    run("DELETE FROM hook_call WHERE time < ?", at - KEEP.hookCalls);
    run("DELETE FROM request WHERE created < ?", at - KEEP.requests);
    run("DELETE FROM burst_grace WHERE until_ms <= ?", at * 1000);
  }).immediate();
  if (removed) truncateLog(db);
  return removed;
}

// ---- Per-session hook records ----

// What the hooks remember about one agent session: failures and fixes by program, lessons injected,
// signals from the user, nudges given. Only program names and lesson ids, masked; never commands
// or prompt text. The session id is stored as a hash: records only need to tell sessions apart.

export type SessionRecord =
  | { kind: "failed" | "fixed" | "nohit"; program: string; time: number }
  | { kind: "injected"; id: string; hook: string; time: number }
  | { kind: "inferred"; id: string; time: number }
  | { kind: "correction" | "remember" | "asked" | "nudged"; time: number }
  | { kind: "offered"; upto: number; time: number };

/** A record before it is stamped with its time. */
export type NewRecord = SessionRecord extends infer R ? (R extends SessionRecord ? Omit<R, "time"> : never) : never;

const sessionKey = (sessionId: string | undefined) => sha256Hex(`session:${sessionId || "unknown"}`).slice(0, 32);

export function readRecords(env: NodeJS.ProcessEnv, sessionId: string | undefined): SessionRecord[] {
  const db = stateDb(env, false);
  if (!db) return [];
  const rows = db.query("SELECT time, data FROM session_record WHERE session = ? ORDER BY id").all(sessionKey(sessionId)) as { time: number; data: string }[];
  return rows.map((r) => ({ ...JSON.parse(r.data), time: r.time }));
}

/**
 * Appends records in one write transaction. `decide` sees the records so far and returns what to
 * append, so a check ("injected before?") and its write cannot interleave with another hook's.
 */
export function updateRecords<T>(
  env: NodeJS.ProcessEnv,
  sessionId: string | undefined,
  decide: (records: SessionRecord[]) => { append: NewRecord[]; result: T },
): T {
  const db = stateDb(env)!;
  return db
    .transaction(() => {
      const { append, result } = decide(readRecords(env, sessionId));
      const key = sessionKey(sessionId);
      const time = now();
      for (const r of append) db.query("INSERT INTO session_record (session, time, data) VALUES (?, ?, ?)").run(key, time, JSON.stringify(maskFields(r)));
      return result;
    })
    .immediate();
}

/** The record with every string field but its kind masked (a program name can be a token). */
function maskFields<R extends { kind: string }>(record: R): R {
  const out: Record<string, unknown> = { ...record };
  for (const [k, v] of Object.entries(out)) if (k !== "kind" && typeof v === "string") out[k] = maskSecrets(v);
  return out as R;
}

// ---- Failure signatures ----

// Hashes of failures seen on this machine, with a hash of the session that saw them: a failure is
// a repeat when another session met it within KEEP.signatures.

export const signatureSession = (session: string) => sha256Hex(`signature-session:${session}`).slice(0, 32);

export function loadSignatures(env: NodeJS.ProcessEnv, at = now()): { sig: string; session: string }[] {
  return (
    (stateDb(env, false)
      ?.query("SELECT sig, session FROM failure_signature WHERE time >= ?")
      .all(at - KEEP.signatures) as { sig: string; session: string }[] | undefined) ?? []
  );
}

/** Stores {sig, session hash} pairs in one transaction. */
export function saveSignatures(env: NodeJS.ProcessEnv, pairs: { sig: string; session: string }[]): void {
  if (!pairs.length) return;
  const db = stateDb(env)!;
  const time = now();
  db.transaction(() => {
    for (const p of pairs)
      db.query("INSERT INTO failure_signature (sig, session, time) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET time = excluded.time").run(
        p.sig,
        p.session,
        time,
      );
  }).immediate();
}

// ---- The distill log ----

// What distilling each inbox item led to (never its text): `rkb doctor` reports it, so a user sees
// whether captured sessions become lessons.

export interface DistilledOutcome {
  item: string;
  kind: string;
  signals: string[];
  candidate?: number;
  op: string;
  lesson?: string;
}

export function recordDistilled(env: NodeJS.ProcessEnv, outcomes: DistilledOutcome[]): void {
  if (!outcomes.length) return;
  const db = stateDb(env)!;
  const time = now();
  db.transaction(() => {
    for (const o of outcomes) {
      db.query("INSERT INTO distilled (time, item, kind, signals, candidate, op, lesson) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
        time,
        o.item,
        o.kind,
        JSON.stringify(o.signals.map(maskSecrets)),
        o.candidate ?? null,
        o.op,
        o.lesson ?? null,
      );
    }
  }).immediate();
}

export function distilledSince(env: NodeJS.ProcessEnv, since: number): (DistilledOutcome & { time: number })[] {
  const rows = (stateDb(env, false)?.query("SELECT time, item, kind, signals, candidate, op, lesson FROM distilled WHERE time >= ? ORDER BY id").all(since) ??
    []) as {
    time: number;
    item: string;
    kind: string;
    signals: string;
    candidate: number | null;
    op: string;
    lesson: string | null;
  }[];
  return rows.map((r) => ({
    time: r.time,
    item: r.item,
    kind: r.kind,
    signals: JSON.parse(r.signals),
    op: r.op,
    ...(r.candidate === null ? {} : { candidate: r.candidate }),
    ...(r.lesson === null ? {} : { lesson: r.lesson }),
  }));
}

// ---- Hook calls and hook errors ----

// Hooks never fail in front of the agent; what went wrong is kept here (masked: a JSON parse error
// quotes the payload) and `rkb doctor` shows it, with the last call of each harness, which tells an
// installed extension that runs from one that never loads.

const harnessName = (harness: string | undefined) => (harness ?? "").replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40) || "unknown";

/** One upsert per hook call; no fsync (synchronous=NORMAL), so it costs the hook next to nothing. */
export function noteHookCall(env: NodeJS.ProcessEnv, harness: string, event: string): void {
  stateDb(env)!
    .query("INSERT INTO hook_call (harness, time, event) VALUES (?, ?, ?) ON CONFLICT (harness) DO UPDATE SET time = excluded.time, event = excluded.event")
    .run(harnessName(harness), now(), event.slice(0, 40));
}

export function hookCalls(env: NodeJS.ProcessEnv): { harness: string; time: number; event: string }[] {
  return (stateDb(env, false)?.query("SELECT harness, time, event FROM hook_call ORDER BY harness").all() ?? []) as {
    harness: string;
    time: number;
    event: string;
  }[];
}

export function logHookError(env: NodeJS.ProcessEnv, event: string, harness: string | undefined, error: unknown): void {
  try {
    const message = maskSecrets(error instanceof Error ? error.message : String(error));
    const clipped = message.length > MAX_ERROR_CHARS ? message.slice(0, MAX_ERROR_CHARS) + "…" : message;
    stateDb(env)!
      .query("INSERT INTO hook_error (time, event, harness, error) VALUES (?, ?, ?, ?)")
      .run(now(), maskSecrets(event).slice(0, 40), harness === undefined ? null : harnessName(harness), clipped);
  } catch {
    // nowhere left to report to; the hook still must not fail
  }
}

export interface HookError {
  time: number;
  event: string;
  harness?: string;
  error: string;
}

/** Hook errors since a time, newest first. */
export function hookErrorsSince(env: NodeJS.ProcessEnv, since: number): HookError[] {
  const rows = (stateDb(env, false)?.query("SELECT time, event, harness, error FROM hook_error WHERE time >= ? ORDER BY id DESC").all(since) ?? []) as {
    time: number;
    event: string;
    harness: string | null;
    error: string;
  }[];
  return rows.map((r) => ({ time: r.time, event: r.event, ...(r.harness === null ? {} : { harness: r.harness }), error: r.error }));
}

// ---- Capture cursors and locks (their meaning lives in sessions/cursor.ts) ----

// A cursor is two rows: the position in the session file, kept while the file may be read again,
// and what the next read carries over (open failures, pending tool calls: masked commands), which
// expires after KEEP.cursorCarry.

export function loadCursorRow(env: NodeJS.ProcessEnv, file: string): { position: string; carry?: string } | undefined {
  const row = stateDb(env, false)
    ?.query("SELECT c.data AS position, k.data AS carry FROM cursor c LEFT JOIN cursor_carry k ON k.file = c.file WHERE c.file = ?")
    .get(file) as { position: string; carry: string | null } | null | undefined;
  return row ? { position: row.position, ...(row.carry === null ? {} : { carry: row.carry }) } : undefined;
}

/** Saves both rows at once; no carry removes the old one. */
export function saveCursorRow(env: NodeJS.ProcessEnv, file: string, position: string, carry: string | undefined): void {
  const db = stateDb(env)!;
  db.transaction(() => {
    db.query("INSERT OR REPLACE INTO cursor (file, data) VALUES (?, ?)").run(file, position);
    if (carry === undefined) db.query("DELETE FROM cursor_carry WHERE file = ?").run(file);
    else db.query("INSERT OR REPLACE INTO cursor_carry (file, data, updated) VALUES (?, ?, ?)").run(file, carry, now());
  }).immediate();
}

export interface CaptureLockHolder {
  host: string;
  pid: number;
  since: number;
}

/** Takes the capture lock of a session file; false when someone holds it. */
export function takeCaptureLock(env: NodeJS.ProcessEnv, file: string, me: CaptureLockHolder): boolean {
  return (
    stateDb(env)!.query("INSERT OR IGNORE INTO capture_lock (file, host, pid, since) VALUES (?, ?, ?, ?)").run(file, me.host, me.pid, me.since).changes === 1
  );
}

export function captureLockHolder(env: NodeJS.ProcessEnv, file: string): CaptureLockHolder | undefined {
  return (stateDb(env)!.query("SELECT host, pid, since FROM capture_lock WHERE file = ?").get(file) as CaptureLockHolder | null) ?? undefined;
}

/** Releases the lock if this holder (since omitted: any lock of that host and pid) still has it. */
export function dropCaptureLock(env: NodeJS.ProcessEnv, file: string, holder: { host: string; pid: number; since?: number }): void {
  if (holder.since === undefined) stateDb(env)!.query("DELETE FROM capture_lock WHERE file = ? AND host = ? AND pid = ?").run(file, holder.host, holder.pid);
  else stateDb(env)!.query("DELETE FROM capture_lock WHERE file = ? AND host = ? AND pid = ? AND since = ?").run(file, holder.host, holder.pid, holder.since);
}

/** True when this part of a session was captured before (a copy of it elsewhere, a second archive). */
export function capturedBefore(env: NodeJS.ProcessEnv, span: string): boolean {
  return stateDb(env, false)?.query("SELECT 1 FROM captured WHERE span = ?").get(span) != null;
}

/** Records that this part of a session is captured: called once its item is written, so a crash before that loses no item. */
export function noteCaptured(env: NodeJS.ProcessEnv, span: string): void {
  stateDb(env)!.query("INSERT OR IGNORE INTO captured (span, time) VALUES (?, ?)").run(span, now());
}

// ---- Writes waiting for the user (write/requests decides; the planned write is kept as JSON) ----

/** Saves a request; expired ones go first. */
export function saveRequestRow(env: NodeJS.ProcessEnv, id: string, data: string): void {
  const db = stateDb(env)!;
  db.transaction(() => {
    db.query("DELETE FROM request WHERE created < ?").run(now() - KEEP.requests);
    db.query("INSERT INTO request (id, created, data) VALUES (?, ?, ?)").run(id, now(), data);
  }).immediate();
}

/** The live requests, oldest first (expired ones are removed). */
export function liveRequestRows(env: NodeJS.ProcessEnv): { id: string; data: string }[] {
  const db = stateDb(env, false);
  if (!db) return [];
  db.query("DELETE FROM request WHERE created < ?").run(now() - KEEP.requests);
  return db.query("SELECT id, data FROM request ORDER BY created, id").all() as { id: string; data: string }[];
}

export function deleteRequestRow(env: NodeJS.ProcessEnv, id: string): void {
  stateDb(env, false)?.query("DELETE FROM request WHERE id = ?").run(id);
}

// ---- Grace windows for an agent's burst of writes (write/burst decides) ----

export interface BurstGrace {
  /** ms since the epoch when the window closes. */
  until: number;
  /** HEAD when the user answered: more than `burst` commits after it close the window too. */
  head: string;
}

/** The open grace window of an agent session (or of the machine), if any. */
export function burstGrace(env: NodeJS.ProcessEnv, session: string): BurstGrace | undefined {
  const row = stateDb(env, false)?.query("SELECT until_ms, head FROM burst_grace WHERE session = ?").get(session) as
    | { until_ms: number; head: string }
    | null
    | undefined;
  return row && row.until_ms > Date.now() ? { until: row.until_ms, head: row.head } : undefined;
}

/** Opens (or renews) a session's grace window; closed ones go first. */
export function openBurstGrace(env: NodeJS.ProcessEnv, session: string, grace: BurstGrace): void {
  const db = stateDb(env)!;
  db.transaction(() => {
    db.query("DELETE FROM burst_grace WHERE until_ms <= ?").run(Date.now());
    db.query("INSERT OR REPLACE INTO burst_grace (session, until_ms, head) VALUES (?, ?, ?)").run(session, grace.until, grace.head);
  }).immediate();
}
