import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

// Reads what place matching needs (the work tree, its remotes and branch) straight from the files
// git keeps, because spawning git costs more than a whole search.

export interface Repo {
  top: string;
  gitDir: string;
  /** Where config and refs live (differs from gitDir in a linked worktree). */
  commonDir: string;
}

export function findRepo(start: string): Repo | undefined {
  let dir = resolve(start);
  for (;;) {
    const dotGit = join(dir, ".git");
    try {
      const st = statSync(dotGit);
      const gitDir = st.isDirectory() ? dotGit : gitDirFromFile(dotGit, dir);
      if (gitDir) {
        const common = join(gitDir, "commondir");
        const commonDir = existsSync(common) ? resolve(gitDir, readFileSync(common, "utf8").trim()) : gitDir;
        return { top: dir, gitDir, commonDir };
      }
    } catch {}
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A `.git` file (worktrees, submodules) holds `gitdir: <path>`. */
function gitDirFromFile(file: string, dir: string): string | undefined {
  const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(file, "utf8"));
  if (!m) return undefined;
  const path = m[1]!.trim();
  return isAbsolute(path) ? path : resolve(dir, path);
}

/** Remote name → URL, from the repository's config file, in file order. */
export function remotes(repo: Repo): { name: string; url: string }[] {
  let text: string;
  try {
    text = readFileSync(join(repo.commonDir, "config"), "utf8");
  } catch {
    return [];
  }
  const out: { name: string; url: string }[] = [];
  let current: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const section = /^\[\s*remote\s+"([^"]+)"\s*\]$/.exec(line);
    if (section) current = section[1];
    else if (line.startsWith("[")) current = undefined;
    else if (current) {
      const url = /^url\s*=\s*(.+)$/.exec(line);
      if (url) out.push({ name: current, url: url[1]!.trim().replace(/^"(.*)"$/, "$1") });
    }
  }
  return out;
}

/** The checked-out branch, or undefined on a detached HEAD. */
export function currentBranch(repo: Repo): string | undefined {
  try {
    const head = readFileSync(join(repo.gitDir, "HEAD"), "utf8").trim();
    return /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
  } catch {
    return undefined;
  }
}
