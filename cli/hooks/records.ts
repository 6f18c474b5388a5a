import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { withLock } from "../lock.ts";
import { stateDir } from "../paths.ts";

// What the hooks remember about one agent session: failures and fixes by program, lessons injected,
// signals from the user, nudges given. One JSONL file per session in the state folder; only program
// names and lesson ids are stored, never commands or prompt text.

export type SessionRecord =
  | { kind: "failed" | "fixed" | "nohit"; program: string; time: number }
  | { kind: "injected"; id: string; hook: string; time: number }
  | { kind: "inferred"; id: string; time: number }
  | { kind: "correction" | "remember" | "asked" | "nudged"; time: number }
  | { kind: "offered"; upto: number; time: number };

/** A session id as a file name: `[A-Za-z0-9_-]`, at most 100 characters. */
export function sanitizeId(id: string | undefined): string {
  const clean = (id ?? "").replace(/[^A-Za-z0-9_-]/g, "").slice(0, 100);
  return clean || "unknown";
}

const sessionsDir = (env: NodeJS.ProcessEnv) => join(stateDir(env), "sessions");
export const recordsPath = (env: NodeJS.ProcessEnv, sessionId: string | undefined) => join(sessionsDir(env), `${sanitizeId(sessionId)}.jsonl`);

export function readRecords(env: NodeJS.ProcessEnv, sessionId: string | undefined): SessionRecord[] {
  const path = recordsPath(env, sessionId);
  if (!existsSync(path)) return [];
  const out: SessionRecord[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a line cut by a crash: the others still count
    }
  }
  return out;
}

/** A record before the hook stamps its time. */
export type NewRecord = SessionRecord extends infer R ? (R extends SessionRecord ? Omit<R, "time"> : never) : never;

/**
 * Appends records under the session's lock. `decide` sees the records so far and returns what to
 * append, so a check ("injected before?") and its write cannot interleave with another hook's.
 */
export async function updateRecords<T>(
  env: NodeJS.ProcessEnv,
  sessionId: string | undefined,
  decide: (records: SessionRecord[]) => { append: NewRecord[]; result: T },
): Promise<T> {
  const path = recordsPath(env, sessionId);
  mkdirSync(sessionsDir(env), { recursive: true, mode: 0o700 });
  return withLock(path + ".lock", { staleMs: 30_000, waitMs: 3_000, what: "the session record" }, () => {
    const { append, result } = decide(readRecords(env, sessionId));
    const time = Math.floor(Date.now() / 1000);
    if (append.length) appendFileSync(path, append.map((r) => JSON.stringify({ ...r, time }) + "\n").join(""), { mode: 0o600 });
    return result;
  });
}

const MAX_AGE_MS = 14 * 24 * 3600 * 1000;

/** Removes the records of sessions untouched for two weeks. */
export function expireRecords(env: NodeJS.ProcessEnv, now = Date.now()): void {
  const dir = sessionsDir(env);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > MAX_AGE_MS) rmSync(path, { force: true });
    } catch {
      // removed by another session's cleanup meanwhile
    }
  }
}
