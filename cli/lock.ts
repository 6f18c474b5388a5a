import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { RkbError } from "./output/errors.ts";

// An exclusive lock file holding `<host> <pid> <epoch>`. Created with O_EXCL so it also works on NFS.
// A lock is stale when its process on this host is gone, or when it is older than staleMs.

export interface LockOptions {
  staleMs: number;
  waitMs: number;
  /** What the lock protects, for the error message. */
  what: string;
}

export interface Held {
  release(): void;
}

async function acquireLock(path: string, opts: LockOptions): Promise<Held> {
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    try {
      const fd = openSync(path, "wx", 0o644);
      writeSync(fd, `${hostname()} ${process.pid} ${Math.floor(Date.now() / 1000)}\n`);
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (e: any) {
      if (e?.code !== "EEXIST") throw e;
    }
    if (isStale(path, opts.staleMs)) {
      // Rename first so two waiters never both remove a fresh lock taken in between.
      const aside = `${path}.stale.${process.pid}`;
      try {
        renameSync(path, aside);
        rmSync(aside, { force: true });
      } catch {}
      continue;
    }
    if (Date.now() >= deadline) {
      throw new RkbError("locked", `${opts.what} is locked by ${holder(path)}`, `wait for that rkb process to finish, or remove ${path} if it is gone`);
    }
    await Bun.sleep(20 + Math.random() * 60);
  }
}

function holder(path: string): string {
  try {
    const [host, pid] = readFileSync(path, "utf8").trim().split(" ");
    return `process ${pid} on ${host}`;
  } catch {
    return "another process";
  }
}

function isStale(path: string, staleMs: number): boolean {
  try {
    const [host, pidText] = readFileSync(path, "utf8").trim().split(" ");
    return holderGone(host ?? "", Number(pidText), Date.now() - statSync(path).mtimeMs, staleMs);
  } catch {
    return false; // vanished or unreadable mid-write: try again
  }
}

/** A lock's holder is gone when its process on this host has exited, or the lock is older than staleMs. */
export function holderGone(host: string, pid: number, ageMs: number, staleMs: number): boolean {
  if (host === hostname() && Number.isInteger(pid) && pid > 0 && !alive(pid)) return true;
  return ageMs > staleMs;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e: any) {
    return e?.code === "EPERM";
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
