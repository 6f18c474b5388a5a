import type { Lesson } from "./lesson.ts";
import { isCurrent } from "./schema.ts";
import type { Place } from "./place.ts";

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

/** Lessons of a folder: current ones first, then grouped by first tag, then by title. */
export function lessonsUnder<L extends Listed>(lessons: L[], folder: string): L[] {
  const rank = (l: L) => (isCurrent(l.status) ? 0 : 1);
  return lessons
    .filter((l) => (l.path + "/").startsWith(folder + "/"))
    .sort((a, b) => rank(a) - rank(b) || (a.tags[0] ?? "").localeCompare(b.tags[0] ?? "") || a.title.localeCompare(b.title));
}
