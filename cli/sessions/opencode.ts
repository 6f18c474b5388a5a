import { constants, Database } from "bun:sqlite";
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { type ErrorCode, RkbError } from "../base/errors.ts";
import { tildify } from "../machine/settings.ts";
import { stripInjected } from "./clean.ts";
import { clip, type Entry, type Header, resultEvent, shellCall, str, toolCall } from "./entries.ts";

// opencode's sessions, read from its store: one SQLite file (~/.local/share/opencode/opencode.db,
// checked with opencode 1.18.33) holds every session, as `message` rows (JSON `data`: role, times)
// and `part` rows (JSON `data`: text, tool calls with their state and exit code, step marks). One
// session is addressed as `<db>#<session id>`; the cursor counts the parts read, in message order,
// and stops before a message that is not finished yet. The store is opened read-only; opencode
// keeps writing it while rkb reads. Each part is an entry, numbered by its place in the session.
// A store without its write-ahead log (opencode is not running, or it is a copy in an archive) is
// read as an immutable file: SQLite would otherwise leave a -wal and a -shm file beside it, and
// could not open it at all in a folder rkb may not write.

const SQLITE_MAGIC = "SQLite format 3\0";
/** Part kinds that are bookkeeping, not conversation: read and passed over without a word. */
const QUIET_PARTS = new Set(["step-start", "step-finish", "reasoning", "snapshot", "patch", "file", "agent", "retry", "subtask"]);

/** The store's path and the session of a `<db>#<session id>` source (no session for a bare db path). */
export function splitSource(source: string): { db: string; session?: string } {
  const hash = source.lastIndexOf("#");
  return hash > 0 && source.startsWith("ses_", hash + 1) ? { db: source.slice(0, hash), session: source.slice(hash + 1) } : { db: source };
}

/** The file a session source lives in: the store of an opencode session, else the path itself. */
export const storeFile = (source: string) => splitSource(source).db;

/** Whether the file is an SQLite database (opencode's store), by its first bytes. */
export function isSqlite(path: string): boolean {
  try {
    const fd = openSync(path, "r");
    try {
      const head = Buffer.alloc(SQLITE_MAGIC.length);
      return readSync(fd, head, 0, head.length, 0) === head.length && head.toString("latin1") === SQLITE_MAGIC;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** Every session in the store, oldest first, as `<db>#<id>` sources. */
export function opencodeSessions(db: string): string[] {
  return withStore(db, (store) =>
    store
      .query<{ id: string }, []>("SELECT id FROM session ORDER BY time_created, id")
      .all()
      .map((r) => `${db}#${r.id}`),
  );
}

function withStore<T>(db: string, use: (store: Database) => T): T {
  let store: Database | undefined;
  try {
    // A log beside it (opencode writing, or a crash's journal to roll back) is SQLite's to read.
    store =
      existsSync(`${db}-wal`) || existsSync(`${db}-journal`)
        ? new Database(db, { readonly: true })
        : new Database(`${pathToFileURL(db).href}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
    return use(store);
  } catch (e) {
    throw e instanceof RkbError ? e : storeError(db, e);
  } finally {
    store?.close();
  }
}

/** What SQLite's refusal means for a user, and what to do; `extra.problem` says it without the path. */
function storeError(db: string, e: unknown): RkbError {
  const why = e instanceof Error ? e.message : String(e);
  const store = "pass opencode's opencode.db (in ~/.local/share/opencode)";
  const [code, problem, fix]: [ErrorCode, string, string] = !isSqlite(db)
    ? ["bad_format", "is no SQLite file (opencode's store is one)", store] // a `<file>#ses_…` name for another file
    : /locked|busy/i.test(why)
      ? ["locked", `is locked by another program (SQLite: ${why})`, "run again once opencode has finished writing"]
      : /readonly database/i.test(why)
        ? ["bad_format", `has the journal of a write that never ended beside it (SQLite: ${why})`, "start opencode once (it undoes that write), then run again"]
        : /no such (table|column)/i.test(why)
          ? ["bad_format", `is an SQLite file but not opencode's store (SQLite: ${why})`, store]
          : [
              "bad_format",
              `is an SQLite file rkb cannot read (SQLite: ${why})`,
              "copy the store again, with opencode stopped (a copy made while it writes may be cut off)",
            ];
  return new RkbError(code, `${tildify(db)} ${problem}`, fix, { problem });
}

interface Row {
  id: string;
  data: string;
}

export interface StoreRead {
  entries: Entry[];
  header: Header;
  skipped: { line: number; reason: string }[];
  /** Parts of the session read, this read's included: where the next read starts. */
  seen: number;
  /** False when the store holds no such session. */
  found: boolean;
}

/** The session's parts from part `from` on, as entries. */
export function readOpencode(source: string, from = 0): StoreRead {
  const { db, session } = splitSource(source);
  const read: StoreRead = { entries: [], header: {}, skipped: [], seen: from, found: false };
  if (!session) return read;
  return withStore(db, (store) => {
    const meta = store.query<{ directory: string; time_created: number }, [string]>("SELECT directory, time_created FROM session WHERE id = ?").get(session);
    if (!meta) return read;
    read.found = true;
    read.header = { sessionId: session, cwd: meta.directory, startedAt: isoTime(meta.time_created) };
    const messages = store
      .query<Row & { time_created: number }, [string]>("SELECT id, data, time_created FROM message WHERE session_id = ? ORDER BY time_created, id")
      .all(session);
    const byMessage = new Map<string, Row[]>();
    for (const p of store
      .query<Row & { message_id: string }, [string]>("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id")
      .all(session)) {
      const parts = byMessage.get(p.message_id);
      if (parts) parts.push(p);
      else byMessage.set(p.message_id, [p]);
    }
    let seen = 0;
    for (const m of messages) {
      const info = parse(m.data);
      const parts = byMessage.get(m.id) ?? [];
      // An assistant message still being written is read next time, whole.
      if (info?.role === "assistant" && typeof obj(info.time).completed !== "number") break;
      const time = isoTime(m.time_created);
      parts.forEach((p, i) => {
        const line = seen + i + 1;
        if (line <= from) return;
        const entry: Entry = { id: p.id, parentId: read.entries.at(-1)?.id ?? null, line, time, raw: [] };
        const problem = readPart(parse(p.data), info?.role === "user", entry);
        if (problem) read.skipped.push({ line, reason: problem });
        else read.entries.push(entry);
      });
      seen += parts.length;
    }
    read.seen = Math.max(from, seen);
    return read;
  });
}

/** Fills the entry from the part (of the user's message or the model's); returns why the part was skipped, if it was. */
function readPart(part: Record<string, unknown> | undefined, byUser: boolean, entry: Entry): string | undefined {
  if (!part || typeof part.type !== "string") return "part without a `type`";
  if (QUIET_PARTS.has(part.type)) return undefined;
  if (part.type === "text") {
    // Synthetic text is opencode's or a plugin's (rkb's own context among them), not the user's.
    if (part.synthetic === true) return undefined;
    entry.message = byUser ? "user" : "assistant";
    const text = stripInjected(str(part.text) ?? "");
    if (text) entry.raw.push({ kind: byUser ? "user" : "agent", text });
    return undefined;
  }
  if (part.type === "compaction") {
    entry.raw.push({ kind: "compaction" });
    return undefined;
  }
  if (part.type !== "tool") return `unknown part type "${clip(part.type)}"`;
  const state = obj(part.state);
  const tool = str(part.tool) ?? "?";
  const callId = str(part.callID) ?? entry.id!;
  const input = obj(state.input);
  entry.raw.push(tool === "bash" ? shellCall(callId, tool, str(input.command)) : toolCall(callId, tool, opencodeArgs(input)));
  // A call still running or waiting for permission has no result yet: it is read once it has one.
  if (state.status !== "completed" && state.status !== "error") return undefined;
  entry.message = "toolResult";
  const exit = obj(state.metadata).exit;
  const output = state.status === "error" ? (str(state.error) ?? "") : (str(state.output) ?? "");
  entry.raw.push(resultEvent(callId, tool, state.status === "error", output, { exitCode: typeof exit === "number" ? exit : undefined }));
  return undefined;
}

/** opencode's edit and write arguments (`filePath`, `oldString`, `newString`) in the names edits.ts reads. */
function opencodeArgs(input: Record<string, unknown>): Record<string, unknown> {
  return { ...input, path: input.filePath ?? input.path, old_string: input.oldString, new_string: input.newString };
}

/** A row's time (ms since 1970) as ISO text; undefined for one that is no time (a damaged row loses its time, not the session). */
function isoTime(ms: unknown): string | undefined {
  const date = new Date(typeof ms === "number" ? ms : Number.NaN);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function parse(data: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(data);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
