import type { ReplayRun, UsageRecord } from "../kb/usage.ts";
import type { KbHistory } from "./history.ts";
import type { SiteLesson } from "./model.ts";

// What the plots count, from the records of the lessons a page may show (model.ts filtered them).

export type Outcome = "worked" | "failed" | "irrelevant" | "none";
export const OUTCOMES: Outcome[] = ["worked", "failed", "irrelevant", "none"];

export interface WeekSeries<K extends string> {
  /** Mondays (UTC), `YYYY-MM-DD`, every week from the first to the last with a count. */
  weeks: string[];
  counts: Record<K, number[]>;
}

/** Weeks shown at most: the latest ones. */
export const MAX_WEEKS = 52;
const DAY_MS = 86_400_000;

/** The Monday (UTC) of the week a time falls in. */
export function weekOf(time: string): string | undefined {
  // A use record's time comes from a file: anything but text is no time.
  if (typeof time !== "string") return undefined;
  const t = Date.parse(time);
  if (!Number.isFinite(t)) return undefined;
  const d = new Date(t);
  return new Date(t - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
}

function weekSeries<K extends string>(keys: K[], events: { week: string; key: K }[]): WeekSeries<K> {
  const counts = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  if (!events.length) return { weeks: [], counts };
  const sorted = events.map((e) => e.week).sort();
  const weeks: string[] = [];
  const last = Date.parse(sorted.at(-1)!);
  for (let t = Math.max(Date.parse(sorted[0]!), last - (MAX_WEEKS - 1) * 7 * DAY_MS); t <= last; t += 7 * DAY_MS)
    weeks.push(new Date(t).toISOString().slice(0, 10));
  const at = new Map(weeks.map((w, i) => [w, i]));
  for (const k of keys) counts[k] = weeks.map(() => 0);
  for (const e of events) {
    const i = at.get(e.week);
    if (i !== undefined) counts[e.key][i]!++;
  }
  return { weeks, counts };
}

/**
 * Injections per week by what the same session then reported about that lesson: worked (a
 * `worked` or `inferred` record), failed, irrelevant, or none (no report, or no session to tie one to).
 */
export function injectionsByWeek(records: UsageRecord[]): WeekSeries<Outcome> {
  const reports = new Map<string, UsageRecord[]>();
  for (const r of records) {
    if (r.event === "injected" || !r.session) continue;
    const key = `${r.id}\0${r.session}`;
    const list = reports.get(key);
    if (list) list.push(r);
    else reports.set(key, [r]);
  }
  for (const list of reports.values()) list.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  const events: { week: string; key: Outcome }[] = [];
  for (const r of records) {
    if (r.event !== "injected") continue;
    const week = weekOf(r.time);
    if (!week) continue;
    const report = r.session ? reports.get(`${r.id}\0${r.session}`)?.find((x) => x.time >= r.time) : undefined;
    const key: Outcome = !report ? "none" : report.event === "inferred" ? "worked" : (report.event as Outcome);
    events.push({ week, key });
  }
  return weekSeries(OUTCOMES, events);
}

/** Lessons added per week (the first commit of their file) and archived per week (rkb's `archive` commits). */
export function addedArchivedByWeek(lessons: SiteLesson[], changes: KbHistory["changes"]): WeekSeries<"added" | "archived"> {
  const events: { week: string; key: "added" | "archived" }[] = [];
  for (const l of lessons) {
    const first = l.history.at(-1);
    const week = first && weekOf(first.date);
    if (week) events.push({ week, key: "added" });
  }
  for (const c of changes) {
    const week = c.kind === "archive" ? weekOf(c.date) : undefined;
    if (week) events.push({ week, key: "archived" });
  }
  return weekSeries(["added", "archived"], events);
}

/** The lessons with the most of one count, most first (ties by title), none with zero. */
export function topLessons(lessons: SiteLesson[], count: (l: SiteLesson) => number, n = 10): { lesson: SiteLesson; count: number }[] {
  return lessons
    .map((lesson) => ({ lesson, count: count(lesson) }))
    .filter((x) => x.count > 0)
    .sort((a, b) => b.count - a.count || a.lesson.lesson.title.localeCompare(b.lesson.lesson.title))
    .slice(0, n);
}

/** Per recorded replay: its failed commands and those a lesson shown here answered. */
export function coverageRuns(runs: ReplayRun[]): { time: string; failures: number; covered: number }[] {
  return runs.map((r) => ({ time: r.time, failures: r.failures, covered: Object.values(r.lessons).reduce((a, b) => a + b, 0) }));
}
