import { closeSync, openSync, readSync } from "node:fs";
import { hostname } from "node:os";
import { holderGone } from "../base/lock.ts";
import { RkbError } from "../base/errors.ts";
import { captureLockHolder, dropCaptureLock, loadCursorRow, saveCursorRow, takeCaptureLock } from "../machine/state.ts";
import type { SessionFormat, PendingCall } from "./reader.ts";
import { maskSecrets } from "../text/secrets.ts";
import { maskedCwd, personalMasker, tildePath } from "../text/paths.ts";
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

/** The state knows a session file by its path with the home as `~`: no user name is kept there. */
const keyOf = (env: NodeJS.ProcessEnv, file: string) => tildePath(file, env.HOME);

export function loadCursor(env: NodeJS.ProcessEnv, file: string): Cursor | undefined {
  try {
    const key = keyOf(env, file);
    const row = loadCursorRow(env, key);
    const c = row && JSON.parse(row.position);
    if (!c || c.file !== key || !Number.isInteger(c.offset) || !Number.isInteger(c.line)) return undefined;
    const carry: Partial<Carry> = row.carry ? JSON.parse(row.carry) : {};
    return { ...c, file, openFailures: carry.openFailures ?? {}, pendingCalls: carry.pendingCalls ?? {} };
  } catch {
    // No cursor yet, or a damaged one: reading the whole file again is the safe answer.
  }
  return undefined;
}

type Carry = Pick<Cursor, "openFailures" | "pendingCalls">;

/**
 * Saves the position, and what the next read carries over with its commands and error lines
 * masked (secrets, and the home and working directory as `~` and `.`): a draft made from it is
 * masked anyway, and a raw command must never sit in the state.
 */
export function saveCursor(env: NodeJS.ProcessEnv, cursor: Cursor): void {
  const { openFailures, pendingCalls, ...position } = cursor;
  const paths = personalMasker(cursor.cwd, env.HOME);
  const mask = (text: string) => paths(maskSecrets(text));
  const carry: Carry = {
    openFailures: Object.fromEntries(
      Object.entries(openFailures).map(([prog, f]) => [
        mask(prog),
        { ...f, program: mask(f.program), command: mask(f.command), keyLines: f.keyLines.map(mask), diagnostics: f.diagnostics?.map(mask) },
      ]),
    ),
    pendingCalls: Object.fromEntries(
      Object.entries(pendingCalls).map(([id, c]) => [
        id,
        {
          ...c,
          ...(c.command === undefined ? {} : { command: mask(c.command) }),
          ...(c.change ? { change: { ...c.change, path: mask(c.change.path), diff: c.change.diff.map(paths) } } : {}),
        },
      ]),
    ),
  };
  const empty = !Object.keys(carry.openFailures).length && !Object.keys(carry.pendingCalls).length;
  const key = keyOf(env, cursor.file);
  const kept = { ...position, file: key, cwd: position.cwd && maskedCwd(position.cwd, env.HOME) };
  saveCursorRow(env, key, JSON.stringify(kept), empty ? undefined : JSON.stringify(carry));
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
export async function withSessionLock<T>(env: NodeJS.ProcessEnv, sessionFile: string, opts: SessionLockOptions, fn: () => Promise<T>): Promise<T> {
  const me = { host: hostname(), pid: process.pid };
  const file = keyOf(env, sessionFile);
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    if (takeCaptureLock(env, file, { ...me, since: Date.now() })) break;
    const holder = captureLockHolder(env, file);
    if (holder && holderGone({ ...holder, start: "" }, opts.staleMs)) {
      dropCaptureLock(env, file, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new RkbError(
        "locked",
        `session file ${sessionFile} is being captured by process ${holder?.pid ?? "?"} on ${holder?.host ?? "?"}`,
        "wait for it to finish; a capture that died is taken over once its process is gone",
      );
    }
    await Bun.sleep(20 + Math.random() * 60);
  }
  try {
    return await fn();
  } finally {
    dropCaptureLock(env, file, me);
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
  // A byte-order mark is no part of the first line.
  const head = buf.toString("utf8", 0, n).replace(/^\ufeff/, "");
  for (const line of head.split("\n").slice(0, 5)) {
    try {
      const obj = JSON.parse(line);
      if (obj?.type === "session" && typeof obj.id === "string") return obj.id;
      if (typeof obj?.sessionId === "string") return obj.sessionId;
    } catch {}
  }
  return undefined;
}
