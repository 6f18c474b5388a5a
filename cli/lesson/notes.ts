import { frontmatterKeyLines, parseYamlMap, splitFrontmatter, isMap, LessonParseError } from "./lesson.ts";
import type { YamlValue } from "./yaml.ts";

// Folder notes (`README.md` in a knowledge-base folder): frontmatter is machine data, the body prose.

export type NoteRole = "scope" | "project" | "system" | "topic" | "misplaced";

export interface FolderNote {
  path: string;
  folder: string;
  role: NoteRole;
  data: Record<string, YamlValue>;
  aliases: string[];
  remotes: string[];
  rootCommit?: string;
  hostname: string[];
  matchEnv: Record<string, string>;
  facts: Record<string, string>;
  labels: Record<string, string>;
  retired: boolean;
}

const ROLE_KEYS: Record<NoteRole, string[]> = {
  scope: ["aliases", "labels", "meta"],
  topic: ["aliases", "labels", "meta"],
  project: ["remotes", "root_commit", "retired", "aliases", "labels", "meta"],
  system: ["hostname", "match_env", "facts", "retired", "aliases", "labels", "meta"],
  misplaced: [],
};

/** Whether a README.md is a knowledge base's folder note: its frontmatter holds a key only folder notes have. */
export function isFolderNoteText(text: string): boolean {
  if (!/^---\r?\n/.test(text)) return false;
  const note = new Set(
    Object.values(ROLE_KEYS)
      .flat()
      .filter((k) => k !== "meta"),
  );
  try {
    return Object.keys(frontmatterKeyLines(splitFrontmatter(text, "README.md").yaml)).some((key) => note.has(key));
  } catch (e) {
    if (e instanceof LessonParseError) return false;
    throw e;
  }
}

export function noteRole(rel: string): NoteRole {
  const parts = rel.split("/").slice(0, -1);
  if (parts.length === 1) return "scope";
  if (parts[0] === "general") return parts.length === 2 ? "topic" : "misplaced";
  if (parts.length === 2) return parts[0] === "projects" ? "project" : "system";
  return parts.length === 3 ? "topic" : "misplaced";
}

/** Parses a folder note; a note without frontmatter is valid and has defaults. */
export function parseNote(text: string, rel: string): FolderNote {
  const role = noteRole(rel);
  let data: Record<string, YamlValue> = {};
  if (/^---\r?\n/.test(text)) {
    const { yaml } = splitFrontmatter(text, rel);
    data = parseYamlMap(yaml, rel, 2);
    const allowed = ROLE_KEYS[role];
    for (const key of Object.keys(data)) {
      if (!allowed.includes(key)) {
        throw new LessonParseError(
          rel,
          frontmatterKeyLines(yaml)[key] ?? 2,
          `\`${key}\` is not a key of a ${role} note; allowed: ${allowed.join(", ") || "none"}`,
        );
      }
    }
  }
  const list = (v: YamlValue | undefined) => (Array.isArray(v) ? v.map(String) : []);
  const strMap = (v: YamlValue | undefined) => (isMap(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : {});
  return {
    path: rel,
    folder: rel.split("/").slice(0, -1).join("/"),
    role,
    data,
    aliases: list(data.aliases),
    remotes: list(data.remotes),
    rootCommit: typeof data.root_commit === "string" ? data.root_commit : undefined,
    hostname: list(data.hostname),
    matchEnv: strMap(data.match_env),
    facts: strMap(data.facts),
    labels: strMap(data.labels),
    retired: data.retired === true,
  };
}
