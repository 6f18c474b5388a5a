import { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";
import { stripInjected } from "./clean.ts";
import { fileChange } from "./edits.ts";
import type { SessionCounts, SessionEvent, SessionRead, SkippedLine } from "./reader.ts";

// opencode's sessions, read from its store: one SQLite file (~/.local/share/opencode/opencode.db,
// checked with opencode 1.18.33) holds every session, as `message` rows (JSON `data`: role, times)
// and `part` rows (JSON `data`: text, tool calls with their state and exit code, step marks). One
// session is addressed as `<db>#<session id>`; the cursor counts the parts read, in message order,
// and stops before a message that is not finished yet. The store is opened read-only; opencode
// keeps writing it while rkb reads.

const SQLITE_MAGIC = "SQLite format 3\0";
/** Failed output kept per command, as for the other formats. */
const MAX_OUTPUT_CHARS = 64 * 1024;
/** Part kinds that are bookkeeping, not conversation: read and passed over without a word. */
const QUIET_PARTS = new Set(["step-start", "step-finish", "reasoning", "snapshot", "patch", "file", "agent", "retry", "subtask"]);

/** The store's path and the session of a `<db>#<session id>` source (no session for a bare db path). */
export function splitSource(source: string): { db: string; session?: string } {
  const hash = source.lastIndexOf("#");
  return hash > 0 && /^ses_/.test(source.slice(hash + 1)) ? { db: source.slice(0, hash), session: source.slice(hash + 1) } : { db: source };
}

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
  const store = new Database(db, { readonly: true });
  try {
    return use(store);
  } finally {
    store.close();
  }
}

interface Row {
  id: string;
  data: string;
}

/** The session's events from part `fromOffset` on (as the line readers count lines). */
export function readOpencode(source: string, opts: { fromOffset?: number } = {}): SessionRead {
  const { db, session } = splitSource(source);
  const from = opts.fromOffset ?? 0;
  const counts: SessionCounts = {
    entries: 0,
    messages: 0,
    userMessages: 0,
    assistantMessages: 0,
    toolResults: 0,
    toolCalls: 0,
    bashCommands: 0,
    failedBash: 0,
    compactions: 0,
    modelChanges: 0,
    customEntries: 0,
  };
  const events: SessionEvent[] = [];
  const skipped: SkippedLine[] = [];
  const empty = { path: source, events, counts, skipped, lines: 0, endOffset: from, endLine: from, pendingCalls: {} } satisfies Partial<SessionRead>;
  if (!session) return { ...empty, kind: "not-session" };
  return withStore(db, (store) => {
    const meta = store.query<{ directory: string; time_created: number }, [string]>("SELECT directory, time_created FROM session WHERE id = ?").get(session);
    if (!meta) return { ...empty, kind: "empty" };
    const messages = store
      .query<Row & { time_created: number }, [string]>("SELECT id, data, time_created FROM message WHERE session_id = ? ORDER BY time_created, id")
      .all(session);
    const parts = store.query<Row & { message_id: string }, [string]>("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id").all(session);
    const byMessage = new Map<string, Row[]>();
    for (const p of parts) byMessage.set(p.message_id, [...(byMessage.get(p.message_id) ?? []), p]);
    let seen = 0;
    let lastId: string | undefined;
    const times: string[] = [];
    for (const m of messages) {
      const info = parse(m.data);
      const own = byMessage.get(m.id) ?? [];
      // An assistant message still being written is read next time, whole.
      if (info?.role === "assistant" && typeof obj(info.time).completed !== "number") break;
      const time = new Date(m.time_created).toISOString();
      const fresh = own.filter((_, i) => seen + i >= from);
      if (fresh.length) {
        counts.messages++;
        if (info?.role === "user") counts.userMessages++;
        else if (info?.role === "assistant") counts.assistantMessages++;
        times.push(time);
      }
      for (const p of fresh) {
        const line = seen + own.indexOf(p) + 1;
        counts.entries++;
        lastId = p.id;
        const problem = readPart(p, info?.role, line, time, events, counts);
        if (problem) skipped.push({ line, reason: problem });
      }
      seen += own.length;
    }
    return {
      path: source,
      kind: "session",
      harness: "opencode",
      sessionId: session,
      cwd: meta.directory,
      startedAt: new Date(meta.time_created).toISOString(),
      events,
      counts,
      skipped,
      lines: seen - from,
      endOffset: seen,
      endLine: seen,
      lastEntryId: lastId,
      firstTime: times[0],
      lastTime: times.at(-1),
      pendingCalls: {},
    };
  });
}

/** Adds the part's event; returns why the part was skipped, if it was. */
function readPart(row: Row, role: unknown, line: number, time: string, events: SessionEvent[], counts: SessionCounts): string | undefined {
  const part = parse(row.data);
  if (!part || typeof part.type !== "string") return "part without a `type`";
  const at = { entryId: row.id, line, time };
  if (QUIET_PARTS.has(part.type)) return undefined;
  if (part.type === "text") {
    // Synthetic text is opencode's or a plugin's (rkb's own context among them), not the user's.
    if (part.synthetic === true || typeof part.text !== "string") return undefined;
    const text = stripInjected(part.text);
    if (text) events.push({ kind: role === "user" ? "user" : "agent", text, ...at });
    return undefined;
  }
  if (part.type === "compaction") {
    counts.compactions++;
    events.push({ kind: "compaction", ...at });
    return undefined;
  }
  if (part.type !== "tool") return `unknown part type "${part.type.length > 40 ? `${part.type.slice(0, 40)}…` : part.type}"`;
  const state = obj(part.state);
  const tool = typeof part.tool === "string" ? part.tool : "?";
  // A call still running or waiting for permission has no result yet: it is read once it has one.
  if (state.status !== "completed" && state.status !== "error") return undefined;
  counts.toolCalls++;
  counts.toolResults++;
  const input = obj(state.input);
  const exit = obj(state.metadata).exit;
  if (tool === "bash" && typeof input.command === "string") {
    const failed = state.status === "error" || (typeof exit === "number" && exit !== 0);
    counts.bashCommands++;
    if (failed) counts.failedBash++;
    const output = failed ? capMiddle(stripInjected(String(state.status === "error" ? (state.error ?? "") : (state.output ?? "")))) : "";
    events.push({
      kind: "command",
      command: input.command,
      ok: !failed,
      exitCode: typeof exit === "number" ? exit : undefined,
      output,
      callEntryId: row.id,
      ...at,
    });
    return undefined;
  }
  const change = fileChange(tool, { ...input, path: input.filePath ?? input.path, old_string: input.oldString, new_string: input.newString });
  events.push({ kind: "tool", name: tool, ok: state.status === "completed", ...(change ? { change } : {}), ...at });
  return undefined;
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

function capMiddle(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  const head = Math.floor(MAX_OUTPUT_CHARS / 4);
  return `${text.slice(0, head)}\n[… ${text.length - MAX_OUTPUT_CHARS} characters cut]\n${text.slice(text.length - (MAX_OUTPUT_CHARS - head))}`;
}
