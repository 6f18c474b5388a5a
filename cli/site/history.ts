import { git } from "../base/git.ts";
import { rkbSubject } from "../kb/history.ts";

// The knowledge base's history for the pages, from ONE `git log` over the whole repository: each
// lesson file's commits (renames followed back) and rkb's add/archive changes per lesson. A
// `git log --follow` per file would cost a process per lesson: 10,000 of them for a large site.

export interface FileCommit {
  commit: string;
  date: string;
  subject: string;
}

export interface KbHistory {
  /** Commits that touched each current file (by its path now), newest first. */
  byPath: Map<string, FileCommit[]>;
  /** rkb's own changes that name a lesson id, newest first. */
  changes: { commit: string; date: string; kind: string; id: string; title: string }[];
}

const RECORD = "\x1e";
const FIELD = "\x1f";

export function readHistory(root: string, env: NodeJS.ProcessEnv): KbHistory {
  // -z: paths as they are (git would quote one with a `"` or a non-ASCII letter, and the page of
  // such a lesson showed no history).
  const r = git(root, ["log", "-M", "-z", "--name-status", `--format=${RECORD}%h${FIELD}%cd${FIELD}%s`, "--date=format-local:%Y-%m-%dT%H:%M:%SZ"], {
    env: { ...env, TZ: "UTC" },
  });
  const history: KbHistory = { byPath: new Map(), changes: [] };
  if (!r.ok) return history; // no commit yet
  // Newest first: a file's older name maps to the path it has now.
  const current = new Map<string, string>();
  const now = (path: string) => current.get(path) ?? path;
  for (const record of r.stdout.split(RECORD)) {
    if (!record.trim()) continue;
    // `<head>\0\n<status>\0<path>\0` per file; a rename or copy names two paths.
    const end = record.indexOf("\0");
    const head = end < 0 ? record.trim() : record.slice(0, end);
    const fields =
      end < 0
        ? []
        : record
            .slice(end + 1)
            .replace(/^\n/, "")
            .split("\0");
    const [commit, date, subject = ""] = head.split(FIELD) as [string, string, string?];
    const entry = { commit, date, subject };
    for (let i = 0; i < fields.length; ) {
      const status = fields[i++]!;
      if (!status) continue;
      const paths = /^[RC]/.test(status) ? [fields[i++]!, fields[i++]!] : [fields[i++]!];
      const path = paths.at(-1)!;
      const at = now(path);
      const list = history.byPath.get(at) ?? [];
      list.push(entry);
      history.byPath.set(at, list);
      if (status!.startsWith("R") && paths.length === 2) current.set(paths[0]!, at);
    }
    const change = rkbSubject(subject);
    if (change?.id) history.changes.push({ commit, date, kind: change.kind, id: change.id, title: change.title });
  }
  return history;
}
