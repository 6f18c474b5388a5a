import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join, basename } from "node:path";

/**
 * Writes a file so that readers see the old or the new content, never a half-written one.
 * `durable: false` skips the fsync: for bulk writes of per-machine state that a rerun recreates,
 * where one fsync per file would make the whole run disk-bound.
 */
export function writeAtomic(path: string, content: string | Uint8Array, mode = 0o644, opts: { durable?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`);
  try {
    const fd = openSync(tmp, "w", mode);
    try {
      writeSync(fd, typeof content === "string" ? Buffer.from(content) : content);
      if (opts.durable !== false) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
