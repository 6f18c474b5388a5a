import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeSync,
  fstatSync,
} from "node:fs";
import { dirname, join, basename } from "node:path";
import { randomHex } from "./hash.ts";
import { RkbError } from "./errors.ts";

/**
 * Writes a file so that readers see the old or the new content, never a half-written one. A file
 * that exists keeps its mode (a 0600 file stays 0600); a new one gets `mode`.
 * `durable: false` skips the fsync: for bulk writes of per-machine state that a rerun recreates,
 * where one fsync per file would make the whole run disk-bound.
 */
export function writeAtomic(path: string, content: string | Uint8Array, mode = 0o644, opts: { durable?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomHex(3)}.tmp`); // see removeLeftTemps
  const keep = existingMode(path);
  try {
    const fd = openSync(tmp, "wx", keep ?? mode);
    try {
      if (keep !== undefined) fchmodSync(fd, keep);
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

function existingMode(path: string): number | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.mode & 0o7777 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates a file holding `content` only if nothing is at `path` yet, atomically: the content is
 * written to a temporary file first and then hard-linked into place, so no reader ever sees the
 * file empty or half-written. Returns false when `path` already existed (the caller reads it).
 * `durable: false` skips the fsync, for lock files, which a crash of the machine makes stale anyway.
 */
export function createExclusive(path: string, content: string, mode = 0o644, opts: { durable?: boolean } = {}): boolean {
  mkdirSync(dirname(path), { recursive: true });
  // The temporary name ends in `.lock` so the ignore rule for lock files covers it if a kill leaves it.
  const tmp = `${path}.${process.pid}.${randomHex(3)}.lock`; // see removeLeftTemps
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, Buffer.from(content));
    if (opts.durable !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return true;
  } catch (e: any) {
    if (e?.code === "EEXIST") return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Removes the temporary files of writeAtomic and createExclusive for `path` whose writer is gone
 * (killed before its rename or link). Both names carry the writer's pid, so a live writer's file
 * is left alone.
 */
export function removeLeftTemps(path: string): void {
  const dir = dirname(path);
  const base = basename(path);
  for (const name of namesIn(dir)) {
    const pid = tempWriterPid(base, name);
    if (pid !== undefined && !processAlive(pid)) rmSync(join(dir, name), { force: true });
  }
}

/** The pid in a temp name of writeAtomic (`.<base>.<pid>.<hex>.tmp`) or createExclusive (`<base>.<pid>.<hex>.lock`). */
function tempWriterPid(base: string, name: string): number | undefined {
  let rest: string | undefined;
  if (name.startsWith(`.${base}.`) && name.endsWith(".tmp")) rest = name.slice(base.length + 2, -4);
  else if (name.startsWith(`${base}.`) && name.endsWith(".lock")) rest = name.slice(base.length + 1, -5);
  const m = rest === undefined ? null : /^(\d+)\.[0-9a-f]+$/.exec(rest);
  return m ? Number(m[1]) : undefined;
}

/** The names in a folder; none when it is missing or cannot be read. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Whether a process with this pid exists (one we may not signal counts: it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e: any) {
    return e?.code === "EPERM";
  }
}

/** Longest name of one path part most file systems accept. */
const MAX_NAME_BYTES = 255;

/** Shows untrusted text in a message: control characters escaped, long text cut. */
export function shown(text: string, max = 80): string {
  const cut = text.length > max ? text.slice(0, max) + "…" : text;
  return /[\u0000-\u001f\u007f]/.test(cut) ? JSON.stringify(cut) : cut;
}

/**
 * Checks that `rel` names a place inside `root` that rkb may write: a relative path of plain parts
 * (no `..`, no NUL), where no part that exists is a symbolic link or anything but a folder (the last
 * part: a regular file). rkb refuses symlinks even when they point inside: git cannot commit through
 * them, and following one out would write outside the knowledge base. Returns the absolute path.
 * Nothing is created here, so a refused path leaves no folder behind.
 */
export function pathInside(root: string, rel: string, what = "the knowledge base"): string {
  const refuse = (why: string, fix = "use a topic or project name of lowercase letters, digits and dashes") =>
    new RkbError("refused", `${shown(rel)} is not a path rkb may write in ${what}: ${why}`, `${fix}; nothing was written`);
  if (!rel || rel.includes("\0")) throw refuse("it is empty or holds a NUL byte");
  if (rel.startsWith("/")) throw refuse("it is absolute");
  const parts = rel.split("/");
  for (const part of parts) {
    if (!part || part === "." || part === "..") throw refuse("it has an empty, `.` or `..` part");
    if (Buffer.byteLength(part) > MAX_NAME_BYTES) throw refuse(`a part is longer than ${MAX_NAME_BYTES} bytes`);
  }
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new RkbError("not_a_kb", `${root} does not exist or cannot be read`, "set RKB_HOME to your knowledge base, or run `rkb init`");
  }
  let cur = real;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    let st;
    try {
      st = lstatSync(cur);
    } catch (e: any) {
      if (e?.code === "ENOENT") break; // the rest does not exist yet: it will be created inside
      throw e;
    }
    const last = i === parts.length - 1;
    const here = parts.slice(0, i + 1).join("/");
    if (st.isSymbolicLink())
      throw refuse(
        `${here} is a symbolic link, and rkb never writes through one`,
        `replace the link ${cur} by a real ${last ? "file" : "folder"} (git cannot commit through a link either)`,
      );
    if (!last && !st.isDirectory()) throw refuse(`${here} is not a folder`, `move ${cur} out of the way`);
    if (last && !st.isFile()) throw refuse("something other than a regular file is there", `move ${cur} out of the way`);
  }
  return join(real, rel);
}

/** The folders of `rel`'s parent below `root` that do not exist yet (outermost first): a write creates them, a rollback removes them. */
export function missingFolders(root: string, rel: string): string[] {
  const missing: string[] = [];
  let cur = root;
  for (const part of rel.split("/").slice(0, -1)) {
    cur = join(cur, part);
    if (missing.length || !existsSync(cur)) missing.push(cur);
  }
  return missing;
}

/** Removes folders created for a write that was rolled back (innermost first), if they are empty. */
export function removeEmptyFolders(folders: string[]): void {
  for (const dir of [...folders].reverse()) {
    try {
      rmdirSync(dir);
    } catch {}
  }
}

/**
 * Appends a line to a file without following a symbolic link at its name, as one write. When a
 * killed writer left the file without a final newline, the new line starts on a fresh line so a
 * torn record never swallows the next one.
 */
export function appendLine(path: string, line: string, mode = 0o644): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, mode);
  try {
    const size = fstatSync(fd).size;
    let prefix = "";
    if (size > 0) {
      const last = Buffer.alloc(1);
      const rfd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        readSync(rfd, last, 0, 1, size - 1);
      } finally {
        closeSync(rfd);
      }
      if (last[0] !== 0x0a) prefix = "\n";
    }
    writeSync(fd, Buffer.from(prefix + line + "\n"));
  } finally {
    closeSync(fd);
  }
}

/** Reads a small text file, or undefined when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (e: any) {
    if (e?.code === "ENOENT") return undefined;
    throw e;
  }
}
