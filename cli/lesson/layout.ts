import { accessSync, constants, type Dirent, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { SCOPES } from "./schema.ts";

// Which file is what, by its path inside the knowledge base.

export type FileKind = "config" | "lesson" | "note" | "asset" | "other";

export function classify(rel: string): FileKind {
  if (rel === "kb.toml") return "config";
  const parts = rel.split("/");
  if (parts.length < 2 || !(SCOPES as readonly string[]).includes(parts[0]!)) return "other";
  if (parts.slice(0, -1).some((p) => p.endsWith(".assets"))) return "asset";
  const name = parts[parts.length - 1]!;
  if (name === "README.md") return "note";
  return name.endsWith(".md") ? "lesson" : "other";
}

/** Depth a lesson must have: general/<topic>/x.md, projects|systems/<name>/<topic>/x.md. */
export function lessonDepth(scope: string): number {
  return scope === "general" ? 3 : 4;
}

/** The folder a lesson's `when` puts it in: projects/<p>, systems/<s> or general. */
export function scopeFolder(when: Record<string, unknown>): string {
  if (typeof when.project === "string") return `projects/${when.project}`;
  if (typeof when.system === "string") return `systems/${when.system}`;
  return "general";
}

/**
 * The condition a lesson's folder sets: a lesson in projects/<p>/ holds for project p, one in
 * systems/<s>/ on system s (the reverse of scopeFolder); none for general/.
 */
export function folderCondition(path: string): Record<string, string> {
  const [scope, name] = path.split("/");
  if (scope === "projects" && name) return { project: name };
  if (scope === "systems" && name) return { system: name };
  return {};
}

/** Lists every non-hidden file below root as relative `/` paths, sorted. */
export function walkFiles(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const name = entry.name;
      if (name.startsWith(".") || name === "node_modules") continue;
      const abs = join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      // The folder listing knows plain files and folders; a symlink (or a kind it cannot tell) is
      // what it points to. One stat per lesson less: the first search reads 10,000 of them.
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (!isDirectory && !isFile) {
        try {
          const st = statSync(abs);
          isDirectory = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue;
        }
      }
      if (isDirectory) visit(abs, rel);
      else if (isFile) out.push(rel);
    }
  };
  visit(root, "");
  return out;
}

/** A folder rkb can read lessons from (a knowledge base, or a copy of its folders). */
export function requireReadableKb(root: string): void {
  if (!existsSync(root)) throw notAKb(root, "does not exist");
  if (!statSync(root).isDirectory()) throw notAKb(root, "is a file, not a folder", FILE_FIX);
  requireAccess(root, constants.R_OK | constants.X_OK, "read");
  const looksLikeKb = existsSync(join(root, "kb.toml")) || SCOPES.some((s) => existsSync(join(root, s)));
  if (!looksLikeKb) throw notAKb(root, "has no kb.toml and no general/, projects/ or systems/ folder");
}

/** A knowledge base rkb may write to: kb.toml and a git repository. */
export function requireWritableKb(root: string): void {
  if (!existsSync(root)) throw notAKb(root, "does not exist");
  if (!statSync(root).isDirectory()) throw notAKb(root, "is a file, not a folder", FILE_FIX);
  // Every write takes the lock in .git and commits there; a read-only folder must say so, not fail half-way.
  const writable = constants.R_OK | constants.W_OK | constants.X_OK;
  requireAccess(root, writable, "write to");
  if (!existsSync(join(root, "kb.toml"))) throw notAKb(root, "has no kb.toml");
  if (!existsSync(join(root, ".git"))) throw notAKb(root, "is not a git repository");
  const blocked = unwritableFolder(root);
  if (blocked) throw cannotWrite(blocked.folder, blocked.why, "write to", root);
}

/**
 * The first folder a write needs that this user cannot write, with why: the knowledge base, its
 * .git, and git's object and ref folders (a commit adds files to them). Undefined when all can be.
 */
export function unwritableFolder(root: string): { folder: string; why: string } | undefined {
  const dotGit = join(root, ".git");
  const objects = join(dotGit, "objects");
  let fanout: string[] = [];
  try {
    fanout = readdirSync(objects)
      .filter((name) => /^[0-9a-f]{2}$/.test(name))
      .map((name) => join(objects, name));
  } catch {
    // No objects folder (a .git file of a worktree points elsewhere): nothing more to check here.
  }
  for (const folder of [root, dotGit, objects, join(dotGit, "refs", "heads"), ...fanout]) {
    if (!existsSync(folder) || !statSync(folder).isDirectory()) continue;
    try {
      accessSync(folder, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (e) {
      return { folder, why: (e as NodeJS.ErrnoException).code === "EROFS" ? "it is on a read-only file system" : "permission denied" };
    }
  }
  return undefined;
}

/** A knowledge base folder rkb may not read or write is the user's to fix, named with the fix. */
function requireAccess(folder: string, mode: number, verb: string): void {
  try {
    accessSync(folder, mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw cannotWrite(folder, code === "EROFS" ? "it is on a read-only file system" : "permission denied", verb);
  }
}

function cannotWrite(folder: string, why: string, verb = "write to", root = folder): RkbError {
  return new RkbError(
    "io",
    `rkb cannot ${verb} the knowledge base folder ${folder} (${why})`,
    `give your user access (\`chmod -R u+rwX ${root}\`, or \`chown -R\` it if another user made it), or set RKB_HOME to a knowledge base you own`,
  );
}

const FILE_FIX = "set RKB_HOME to the folder of your knowledge base, or to a new folder and run `rkb init` (or `rkb init --clone <url>`) there";

function notAKb(
  root: string,
  why: string,
  fix = "run `rkb init` to create one there, `rkb init --clone <url>` to fetch one, or set RKB_HOME to your knowledge base",
): RkbError {
  return new RkbError("not_a_kb", `no knowledge base at ${root}: it ${why}`, fix);
}
