import { existsSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import type { Lesson } from "../lesson/lesson.ts";
import { isCurrent, SCOPES } from "../lesson/schema.ts";
import type { Place } from "../place/place.ts";

// Counting and grouping lessons for status, context and list.

export interface HereCounts {
  project: number;
  system: number;
  general: number;
}

/** Current lessons here, from per-scope counts (`general`, `projects/<p>`, `systems/<s>` → lessons). */
export function countsHere(currentByScope: Map<string, number>, place: Place): HereCounts {
  return {
    project: place.project ? (currentByScope.get(`projects/${place.project.name}`) ?? 0) : 0,
    system: place.system ? (currentByScope.get(`systems/${place.system.name}`) ?? 0) : 0,
    general: currentByScope.get("general") ?? 0,
  };
}

/** What listing needs of a lesson: a parsed lesson or the search index's record of one. */
type Listed = Pick<Lesson, "path" | "status" | "tags" | "title">;

/** The topic folder a lesson sits in (`general/git`, `projects/p/cmake`). */
export function topicOf(lesson: Listed): string {
  return lesson.path.split("/").slice(0, -1).join("/");
}

export function topicCounts(lessons: Listed[]): { folder: string; lessons: number }[] {
  const counts = new Map<string, number>();
  for (const l of lessons) {
    const folder = topicOf(l);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([folder, lessons]) => ({ folder, lessons }));
}

export type FolderKind = "scope" | "project" | "system" | "topic";

export interface FolderCount {
  folder: string;
  kind: FolderKind;
  /** Every lesson below it, whatever its status. */
  lessons: number;
  /** Those in search: active or stale (the others are archived or superseded). */
  in_search: number;
}

/** What a folder path names: a scope, a project or system folder, a topic, or nothing rkb lists. */
export function folderKind(folder: string): FolderKind | undefined {
  const parts = folder.split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) return undefined;
  if (!(SCOPES as readonly string[]).includes(parts[0]!)) return undefined;
  if (parts.length === 1) return "scope";
  if (parts[0] === "general") return parts.length === 2 ? "topic" : undefined;
  if (parts.length === 2) return parts[0] === "projects" ? "project" : "system";
  return parts.length === 3 ? "topic" : undefined;
}

/**
 * A folder given on the command line (`./general/git/` as well as `general/git`), as list and
 * review take it: one rkb lists (a scope, project, system or topic) that exists in the knowledge
 * base; undefined when none was given; else not_found.
 */
export function listedFolder(root: string, given: string | undefined): { folder: string; kind: FolderKind } | undefined {
  const folder = given?.replace(/^\.\//, "").replace(/\/+$/, "");
  if (!folder) return undefined;
  const kind = folderKind(folder);
  if (kind === undefined || !existsSync(join(root, folder))) {
    throw new RkbError(
      "not_found",
      `no folder ${folder} in the knowledge base`,
      "run `rkb list` to see the folders (general/<topic>, projects/<name>/<topic>, systems/<name>/<topic>)",
    );
  }
  return { folder, kind };
}

/**
 * The folder tree under `folder` (the whole knowledge base when undefined) with the number of lessons
 * in each: scopes → projects and systems → topics, depth first and sorted by name. The three scopes
 * are always listed, empty or not.
 */
export function folderTree(lessons: Listed[], folder?: string): FolderCount[] {
  const counts = new Map<string, { all: number; inSearch: number }>(folder ? [] : SCOPES.map((scope) => [scope, { all: 0, inSearch: 0 }]));
  for (const l of lessons) {
    const topic = topicOf(l);
    const parts = topic.split("/");
    // general/<t>: scope, topic; projects/<p>/<t>: scope, project, topic.
    for (let depth = 1; depth <= parts.length; depth++) {
      const path = parts.slice(0, depth).join("/");
      const n = counts.get(path) ?? { all: 0, inSearch: 0 };
      n.all++;
      if (isCurrent(l.status)) n.inSearch++;
      counts.set(path, n);
    }
  }
  return [...counts]
    .filter(([path]) => !folder || path === folder || path.startsWith(`${folder}/`))
    .map(([path, n]) => ({ folder: path, kind: folderKind(path)!, lessons: n.all, in_search: n.inSearch }))
    .filter((row) => row.kind !== undefined)
    .sort((a, b) => {
      // By parts, so projects/a/cmake stays under projects/a and before projects/a-b.
      const [x, y] = [a.folder.replaceAll("/", "\0"), b.folder.replaceAll("/", "\0")];
      return x < y ? -1 : x > y ? 1 : 0;
    });
}

/** Lessons of a folder: current ones first, then grouped by first tag, then by title. */
/** Whether a knowledge-base path is the folder or below it; every path is under no folder (or ""). */
export function isUnder(path: string, folder: string | undefined): boolean {
  return !folder || (path + "/").startsWith(folder + "/");
}

export function lessonsUnder<L extends Listed>(lessons: L[], folder: string): L[] {
  const rank = (l: L) => (isCurrent(l.status) ? 0 : 1);
  return lessons
    .filter((l) => isUnder(l.path, folder))
    .sort((a, b) => rank(a) - rank(b) || (a.tags[0] ?? "").localeCompare(b.tags[0] ?? "") || a.title.localeCompare(b.title));
}
