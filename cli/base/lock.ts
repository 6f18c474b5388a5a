import { closeSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { createExclusive, processAlive, removeLeftTemps } from "./fsutil.ts";
import { RkbError } from "./errors.ts";

// An exclusive lock file holding `<host> <pid> <epoch> <process start>`. It is written in full to a
// temporary file and hard-linked into place (works on NFS too), so it holds its owner from the moment
// it exists. A lock recovers on its own: it is stale when its process on this host is gone (or the pid
// now belongs to another process, told by the start time), when it is older than staleMs, or when it
// is empty or unreadable (left by an older writer) for longer than a short grace period.

export interface LockOptions {
  staleMs: number;
  waitMs: number;
  /** What the lock protects, for the error message. */
  what: string;
}

export interface Held {
  release(): void;
}

/** How long an empty or unreadable lock may exist before it counts as stale (a writer mid-way). */
const UNREADABLE_GRACE_MS = 2_000;
/** How long a lock breaker may hold `<lock>.break` before another may take it over. */
const BREAKER_STALE_MS = 5_000;

export interface LockHolder {
  host: string;
  pid: number;
  /** When the lock was taken, ms since the epoch (the older of the file's own time and mtime). */
  since: number;
  /** The holder's start time, as the kernel counts it; "" when unknown. */
  start: string;
}

/** The start time of a process (field 22 of /proc/<pid>/stat), to tell a reused pid from its first owner. */
export function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

function ownLine(): string {
  return `${hostname()} ${process.pid} ${Math.floor(Date.now() / 1000)} ${processStart(process.pid) || "-"}\n`;
}

/** Who holds the lock at path, or undefined when it is gone or unreadable. */
export function readHolder(path: string): LockHolder | undefined {
  let text: string;
  let mtime: number;
  try {
    text = readFileSync(path, "utf8");
    mtime = statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  const [host, pidText, epochText, start] = text.trim().split(" ");
  const pid = Number(pidText);
  const epoch = Number(epochText);
  if (!host || !Number.isInteger(pid) || pid <= 0) return undefined;
  const since = Number.isFinite(epoch) && epoch > 0 ? Math.min(epoch * 1000, mtime) : mtime;
  return { host, pid, since, start: start && start !== "-" ? start : "" };
}

/** Why the lock at path is stale, or undefined when its holder may still be working (or it is gone). */
export function staleReason(path: string, staleMs: number): string | undefined {
  let age: number;
  try {
    age = Date.now() - statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  const holder = readHolder(path);
  if (!holder) return age > UNREADABLE_GRACE_MS ? `it is empty or unreadable and ${seconds(age)} old` : undefined;
  return holderGone(holder, staleMs);
}

/** Why a lock's holder is gone: its process on this host exited (or the pid was reused), or the lock outlived staleMs. */
export function holderGone(holder: LockHolder, staleMs: number): string | undefined {
  if (holder.host === hostname()) {
    if (!processAlive(holder.pid)) return `process ${holder.pid} has exited`;
    const start = processStart(holder.pid);
    if (holder.start && start && start !== holder.start) return `process ${holder.pid} has exited and its pid was reused`;
  }
  const age = Date.now() - holder.since;
  if (age > staleMs) return `it is ${seconds(age)} old, more than the ${seconds(staleMs)} a write may take`;
  return undefined;
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))} s`;
}

/** Describes the holder for messages: "process 123 on host x (held for 4 s)". */
export function describeHolder(path: string): string {
  const h = readHolder(path);
  if (!h) return "a process that has not written its name into the lock";
  return `process ${h.pid} on ${h.host} (held for ${seconds(Date.now() - h.since)})`;
}

/**
 * Removes a stale lock. Breakers take `<lock>.break` first and check again under it, so two
 * waiters that both saw the old lock never remove a fresh one taken in between.
 */
function breakStale(path: string, staleMs: number): boolean {
  const breaker = `${path}.break`;
  let fd: number;
  try {
    fd = openSync(breaker, "wx", 0o644);
  } catch (e: any) {
    if (e?.code !== "EEXIST") throw e;
    try {
      if (Date.now() - statSync(breaker).mtimeMs > BREAKER_STALE_MS) rmSync(breaker, { force: true });
    } catch {}
    return false;
  }
  closeSync(fd);
  try {
    if (!staleReason(path, staleMs)) return false;
    rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(breaker, { force: true });
  }
}

async function acquireLock(path: string, opts: LockOptions): Promise<Held> {
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    const line = ownLine();
    if (createExclusive(path, line, 0o644, { durable: false })) {
      removeLeftTemps(path);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          // Only our own lock: if it was broken as stale and someone else holds it now, it is theirs.
          try {
            if (readFileSync(path, "utf8") === line) rmSync(path, { force: true });
          } catch {}
        },
      };
    }
    if (staleReason(path, opts.staleMs) && breakStale(path, opts.staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new RkbError(
        "locked",
        `${opts.what} is locked by ${describeHolder(path)}`,
        `wait for that process to finish and try again; if it is gone, rkb removes the lock by itself once it is ${seconds(opts.staleMs)} old (or remove ${path})`,
      );
    }
    await Bun.sleep(20 + Math.random() * 60);
  }
}

/** Runs fn while holding the lock at path. */
export async function withLock<T>(path: string, opts: LockOptions, fn: () => Promise<T> | T): Promise<T> {
  const held = await acquireLock(path, opts);
  try {
    return await fn();
  } finally {
    held.release();
  }
}
