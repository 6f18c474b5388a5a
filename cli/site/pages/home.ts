import { folderTree } from "../../kb/overview.ts";
import { isCurrent } from "../../lesson/schema.ts";
import { command, day, esc, table } from "../html.ts";
import { href, page, upFrom, urls } from "../layout.ts";
import type { SiteModel } from "../model.ts";
import { rankBars } from "../plots.ts";
import { topLessons } from "../stats.ts";

// Home: what the knowledge base holds per place, what changed lately, what helped most.

const RECENT = 12;

export function homePage(model: SiteModel): string {
  const url = urls.home;
  const up = upFrom(url);
  const current = model.lessons.filter((l) => isCurrent(l.lesson.status));
  const places = folderTree(current.map((l) => l.lesson)).filter((row) => row.kind !== "topic");
  const placeRows = places.map((row) => [
    row.lessons ? `<a href="${href(up, urls.folder(row.folder))}">${esc(row.folder)}</a>` : esc(row.folder),
    esc(row.kind),
    String(row.lessons),
  ]);
  const title = (id: string) => {
    const l = model.byId.get(id)!;
    return `<a href="${up}${urls.lesson(id)}">${esc(l.lesson.title)}</a>`;
  };
  const recent = model.changes.slice(0, RECENT).map((c) => [esc(day(c.date)), esc(c.kind), title(c.id)]);
  const helped = topLessons(model.lessons, (l) => l.usage.worked + l.usage.inferred).map(({ lesson, count }) => ({
    label: lesson.lesson.title,
    href: `${up}${urls.lesson(lesson.lesson.id)}`,
    count,
  }));
  const injected = model.records.filter((r) => r.event === "injected").length;
  const body = `<h1>What this knowledge base holds</h1>
<div class="cards">
<div class="card"><div class="big">${current.length}</div>current lessons${model.lessons.length > current.length ? ` (${model.lessons.length - current.length} superseded or archived)` : ""}</div>
<div class="card"><div class="big">${injected}</div>times a lesson was put in front of an agent</div>
<div class="card"><div class="big">${model.review.length}</div><a href="${up}${urls.review}">lessons to review</a></div>
${model.inbox ? `<div class="card"><div class="big">${model.inbox.length}</div><a href="${up}${urls.inbox}">inbox items to distill</a></div>` : ""}
</div>
<h2>Per place</h2>
${table(["Folder", "Kind", "Current lessons"], placeRows, [2])}
<h2>What changed lately</h2>
${recent.length ? table(["Date", "Change", "Lesson"], recent) : '<p class="muted">No change recorded by rkb yet.</p>'}
${command('rkb changes --since "7 days ago"')}
<h2>What helped most</h2>
${rankBars({
  label: "Lessons reported to help most",
  caption: "Each bar counts a lesson's use records that say it helped: `rkb used <id> --worked` reports and helps rkb inferred from a session.",
  cls: "s-worked",
  items: helped,
  empty: "No lesson has been reported to help yet (rkb used <id> --worked).",
})}
<p><a href="${up}${urls.use}">All the plots of use</a></p>
<h2>Search</h2>
${command('rkb search "<words>"')}`;
  return page(model, url, "home", "Home", body);
}
