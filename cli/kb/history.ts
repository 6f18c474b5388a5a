import { usageError } from "../base/errors.ts";
import { git, gitOrThrow } from "../base/git.ts";
import { parseLesson } from "../lesson/lesson.ts";

// What changed in the knowledge base, read from git: rkb writes one commit per change with the
// subject `<kind>(<folder>): <title> [<id>]`, so the history is the change log.

export interface Commit {
  commit: string;
  date: string;
  subject: string;
}

export interface KbChange {
  commit: string;
  date: string;
  kind: string;
  id: string | null;
  folder: string;
  title: string;
  reason?: string;
}

const SUBJECT = /^(add|edit|flag|supersede|archive|unarchive|move|rename|label|verify|import)\(([^)]+)\): (.*?)(?: \[([0-9a-z]{10})\])?$/;
const RECORD = "\x1e";
const FIELD = "\x1f";
/** Kinds whose reason lives in the lesson as written by that commit. */
const REASON_SECTION: Record<string, string> = { supersede: "Why superseded", archive: "Why archived" };

function commits(root: string, args: string[], env: NodeJS.ProcessEnv): { commit: Commit; files: string[] }[] {
  // Dates in UTC with a Z, like every other time rkb prints.
  const r = git(root, ["log", `--format=${RECORD}%h${FIELD}%cd${FIELD}%s`, "--date=format-local:%Y-%m-%dT%H:%M:%SZ", "--name-only", ...args], {
    env: { ...env, TZ: "UTC" },
  });
  // A repository without a commit yet has no history.
  if (!r.ok) {
    if (/does not have any commits|bad default revision/.test(r.stderr)) return [];
    gitOrThrow(root, ["log", "-1"], { env });
  }
  return r.stdout
    .split(RECORD)
    .filter((rec) => rec.trim())
    .map((rec) => {
      const [head, ...files] = rec.split("\n");
      const [commit, date, subject] = head!.split(FIELD);
      return { commit: { commit: commit!, date: date!, subject: subject ?? "" }, files: files.filter(Boolean) };
    });
}

/** The commits that touched a lesson file, newest first, following renames. */
export function lessonLog(root: string, path: string, env: NodeJS.ProcessEnv): Commit[] {
  return commits(root, ["--follow", "--", path], env).map((c) => c.commit);
}

/** The latest commits of the knowledge base, newest first. */
export function recentLog(root: string, limit: number, env: NodeJS.ProcessEnv): Commit[] {
  return commits(root, [`-n${limit}`], env).map((c) => c.commit);
}

/**
 * git reads any text it does not understand as a date as "now" (`--since garbage` lists nothing,
 * silently): a date that comes out as now, from words that do not mean now, is a usage error.
 */
function requireGitDate(root: string, since: string, env: NodeJS.ProcessEnv): void {
  if (/^\s*(now|today)\s*$/i.test(since)) return;
  const maxAge = Number(/--max-age=(\d+)/.exec(gitOrThrow(root, ["rev-parse", `--since=${since}`], { env }))?.[1]);
  if (!Number.isFinite(maxAge) || Math.abs(maxAge - Date.now() / 1000) > 2) return;
  throw usageError(
    `git does not read ${JSON.stringify(since)} as a date (it would mean now, and list nothing)`,
    'give a date or a span, e.g. --since 2026-11-01, --since "7 days ago", --since yesterday',
  );
}

/** The change an rkb commit subject names (`add(general/git): Title [id]`), or undefined for another commit. */
export function rkbSubject(subject: string): { kind: string; folder: string; title: string; id: string | null } | undefined {
  const m = SUBJECT.exec(subject);
  return m ? { kind: m[1]!, folder: m[2]!, title: m[3]!, id: m[4] ?? null } : undefined;
}

/** rkb's own changes since a git date (`7 days ago`, `2026-11-01`), newest first; other commits are left out. */
export function changesSince(root: string, since: string, env: NodeJS.ProcessEnv): KbChange[] {
  requireGitDate(root, since, env);
  const out: KbChange[] = [];
  for (const { commit, files } of commits(root, [`--since=${since}`], env)) {
    const parsed = rkbSubject(commit.subject);
    if (!parsed) continue;
    const { kind, id, folder, title } = parsed;
    const change: KbChange = { commit: commit.commit, date: commit.date, kind, id, folder, title };
    const reason =
      kind === "flag" || REASON_SECTION[kind]
        ? reasonAt(
            root,
            commit.commit,
            files.find((f) => f.endsWith(".md") && !f.endsWith("README.md")),
            kind,
            env,
          )
        : undefined;
    if (reason) change.reason = reason;
    out.push(change);
  }
  return out;
}

/** Why a lesson was flagged, superseded or archived, as the lesson said in that commit. */
function reasonAt(root: string, commit: string, path: string | undefined, kind: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!path) return undefined;
  const r = git(root, ["show", `${commit}:${path}`], { env });
  if (!r.ok) return undefined;
  try {
    const lesson = parseLesson(r.stdout, path);
    if (kind === "flag") return lesson.frontmatter.stale_reason ? String(lesson.frontmatter.stale_reason) : undefined;
    return lesson.sections.get(REASON_SECTION[kind]!)?.split("\n")[0]?.trim() || undefined;
  } catch {
    return undefined; // a lesson that no longer parses at that commit has no reason to show
  }
}
