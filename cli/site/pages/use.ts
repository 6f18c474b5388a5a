import { command, esc } from "../html.ts";
import { page, upFrom, urls } from "../layout.ts";
import type { SiteModel } from "../model.ts";
import { percentLine, rankBars, weekBars } from "../plots.ts";
import { addedArchivedByWeek, coverageRuns, injectionsByWeek, MAX_WEEKS, topLessons } from "../stats.ts";

// How the knowledge base is used: injections by outcome, the lessons that helped and those judged
// irrelevant, lessons added and archived, and replayed failures a lesson answers.

export function usePage(model: SiteModel): string {
  const url = urls.use;
  const up = upFrom(url);
  const injections = injectionsByWeek(model.records);
  const growth = addedArchivedByWeek(model.lessons, model.changes);
  const item = ({ lesson, count }: ReturnType<typeof topLessons>[number]) => ({
    label: lesson.lesson.title,
    href: `${up}${urls.lesson(lesson.lesson.id)}`,
    count,
  });
  const coverage = coverageRuns(model.replays);
  const body = `<h1>Use</h1>
<p class="muted">From the use records in <code>.rkb/usage/</code>, the history of the knowledge base and the replays recorded in <code>.rkb/replays/</code>, for the lessons ${model.audience.kind === "owner" ? "of this knowledge base" : "this site holds"}.</p>
<h2>Injections per week, by outcome</h2>
${weekBars({
  label: "Lesson injections per week by outcome",
  caption: `Each bar counts the times rkb put a lesson in front of an agent in that week (use records "injected"), split by what the same session then reported about that lesson: worked (a worked report, or a help rkb inferred), failed, irrelevant, or no report. The latest ${MAX_WEEKS} weeks at most.`,
  weeks: injections.weeks,
  series: [
    { name: "worked", cls: "s-worked", values: injections.counts.worked },
    { name: "failed", cls: "s-failed", values: injections.counts.failed },
    { name: "irrelevant", cls: "s-irrelevant", values: injections.counts.irrelevant },
    { name: "no report", cls: "s-none", values: injections.counts.none },
  ],
  empty: "No injection recorded yet: the agent hooks record one each time they add a lesson to a failed command or a prompt.",
})}
<h2>Lessons that helped most</h2>
${rankBars({
  label: "Lessons reported to help most",
  caption: "Per lesson: its use records that say it helped (worked reports and inferred helps), the ten highest.",
  cls: "s-worked",
  items: topLessons(model.lessons, (l) => l.usage.worked + l.usage.inferred).map(item),
  empty: "No lesson has been reported to help yet.",
})}
<h2>Lessons reported irrelevant most</h2>
${rankBars({
  label: "Lessons reported irrelevant most",
  caption: "Per lesson: its use records that say it was shown where it did not apply (irrelevant reports), the ten highest.",
  cls: "s-irrelevant",
  items: topLessons(model.lessons, (l) => l.usage.irrelevant).map(item),
  empty: "No lesson has been reported irrelevant.",
})}
${command('rkb used <id> --irrelevant --reason "<why>"')}
<h2>Lessons added and archived per week</h2>
${weekBars({
  label: "Lessons added and archived per week",
  caption: `Added: lessons whose file was first committed that week. Archived: rkb's archive commits that week. The latest ${MAX_WEEKS} weeks at most.`,
  weeks: growth.weeks,
  grouped: true,
  series: [
    { name: "added", cls: "s-added", values: growth.counts.added },
    { name: "archived", cls: "s-archived", values: growth.counts.archived },
  ],
  empty: "No lesson committed yet.",
})}
<h2>Failed commands a lesson answers</h2>
${percentLine({
  label: "Coverage of replayed failed commands",
  caption: `Per recorded run of rkb eval --replay --record: the share of the failed commands in its session files that a lesson ${model.audience.kind === "owner" ? "" : "on this site "}would have been added to.`,
  points: coverage.map((c) => ({
    time: c.time,
    percent: c.failures ? Math.round((1000 * c.covered) / c.failures) / 10 : 0,
    title: `${c.time.slice(0, 10)}: ${c.covered} of ${c.failures} failed commands answered`,
  })),
  empty: "No replay recorded yet: CI records one with rkb eval --replay <sessions> --record, then rkb sync.",
})}
${command("rkb eval --replay <sessions> --record")}
${model.replays.length ? `<p class="muted">${esc(`${model.replays.length} recorded replay${model.replays.length === 1 ? "" : "s"}.`)}</p>` : ""}`;
  return page(model, url, "use", "Use", body);
}
