import { folderTree, lessonsUnder, type FolderCount } from "../../kb/overview.ts";
import { age, preview } from "../../inbox/inbox.ts";
import { command, esc, table } from "../html.ts";
import { href, page, upFrom, urls } from "../layout.ts";
import type { SiteModel } from "../model.ts";

// The folder tree, one folder's page, the search page, review and (for the owner) the inbox.

export function treePage(model: SiteModel): string {
  const url = urls.tree;
  const body = `<h1>Folders</h1>
<p class="muted">Every folder with lessons and how many it holds (superseded and archived ones included).</p>
${treeList(folders(model), upFrom(url), 0)}
${command("rkb list")}`;
  return page(model, url, "tree", "Folders", body);
}

/** The folders holding a lesson the model shows, with their counts (worked out once per model). */
export function folders(model: SiteModel): FolderCount[] {
  let found = folderCache.get(model);
  if (!found) folderCache.set(model, (found = folderTree(model.lessons.map((l) => l.lesson)).filter((f) => f.lessons > 0)));
  return found;
}
const folderCache = new WeakMap<SiteModel, FolderCount[]>();

function treeList(rows: FolderCount[], up: string, baseDepth: number): string {
  const items = rows.map((f) => {
    const depth = f.folder.split("/").length - baseDepth;
    return `<li class="d${Math.min(depth, 3)}"><a href="${href(up, urls.folder(f.folder))}">${esc(f.folder.split("/").pop()!)}</a> <span class="meta">${f.kind} · ${f.lessons}</span></li>`;
  });
  return `<ul class="tree">${items.join("")}</ul>`;
}

/** A scope, project or system lists its folders; a topic its lessons. */
export function folderPage(model: SiteModel, folder: FolderCount): string {
  const url = urls.folder(folder.folder);
  const up = upFrom(url);
  let content: string;
  if (folder.kind === "topic") {
    const rows = lessonsUnder(
      model.lessons.map((l) => l.lesson),
      folder.folder,
    ).map((lesson) => {
      const { usage } = model.byId.get(lesson.id)!;
      return [
        `<a href="${up}${urls.lesson(lesson.id)}">${esc(lesson.title)}</a>`,
        esc(lesson.type),
        esc(lesson.status),
        String(usage.worked + usage.inferred),
        String(usage.failed),
        esc(lesson.verified),
      ];
    });
    content = table(["Lesson", "Type", "Status", "Helped", "Failed", "Verified"], rows, [3, 4]);
  } else {
    const below = folders(model).filter((f) => f.folder.startsWith(`${folder.folder}/`));
    content = treeList(below, up, folder.folder.split("/").length);
  }
  const parts = folder.folder.split("/");
  const trail = parts
    .map((p, i) => (i < parts.length - 1 ? `<a href="${href(up, urls.folder(parts.slice(0, i + 1).join("/")))}">${esc(p)}</a>` : esc(p)))
    .join(" / ");
  const body = `<p class="meta"><a href="${up}${urls.tree}">Folders</a> / ${trail}</p>
<h1>${esc(folder.folder)}</h1>
<p class="muted">${folder.kind} · ${folder.lessons} lesson${folder.lessons === 1 ? "" : "s"}</p>
${content}
${command(`rkb list ${folder.folder}`)}`;
  return page(model, url, "tree", folder.folder, body);
}

export function searchPage(model: SiteModel): string {
  const body = `<h1>Search</h1>
<p class="muted">The same tokenizer and ranking as <code>rkb search</code>, run in this page over the ${model.index.size} lessons here.</p>
<label for="q">Words to search for</label>
<input type="search" id="q" autocomplete="off" spellcheck="false">
<p id="search-status" role="status" aria-live="polite">The search needs JavaScript.</p>
<ol id="results"></ol>
${command('rkb search --all "<words>"')}`;
  return page(model, urls.search, "search", "Search", body);
}

export function reviewPage(model: SiteModel): string {
  const url = urls.review;
  const up = upFrom(url);
  const rows = model.review.map((c) => [
    `<a href="${up}${urls.lesson(c.lesson.id)}">${esc(c.lesson.title)}</a><div class="meta">${esc(c.lesson.path)}</div>`,
    `<ul>${c.reasons.map((r) => `<li><strong>${esc(r.kind)}</strong>: ${esc(r.detail)}</li>`).join("")}</ul>`,
    `<code>rkb show ${esc(c.lesson.id)}</code>`,
  ]);
  const unreadable = model.unreadable?.length
    ? `<h2>Files that do not parse</h2>
<p class="muted">No search finds them; fix each (<code>rkb lint</code> lists every problem).</p>
${table(
  ["File", "Problem"],
  model.unreadable.map((b) => [esc(`${b.path}:${b.line}`), esc(b.message)]),
)}`
    : "";
  const body = `<h1>Review</h1>
<p class="muted">Current lessons that need a person's eye, with the reasons <code>rkb review</code> gives.</p>
${rows.length ? table(["Lesson", "Reasons", "Look at it"], rows) : "<p>Nothing to review: every current lesson is verified, used and specific.</p>"}
${unreadable}
${command("rkb review --signals")}
${command('rkb flag <id> --reason "<why>"')}
${command('rkb archive <id> --reason "<why>"')}`;
  return page(model, url, "review", "Review", body);
}

export function inboxPage(model: SiteModel): string {
  const now = Date.now() / 1000;
  const items = model.inbox ?? [];
  const rows = items.map((item) => [
    `<code>${esc(item.id)}</code>`,
    esc(item.meta.kind),
    esc(age(now - item.meta.time)),
    esc(preview(item)),
    `<code>rkb inbox show ${esc(item.id)}</code>`,
  ]);
  const body = `<h1>Inbox</h1>
<p class="muted">What sessions and notes left on this machine to distill into lessons (never part of a built site).</p>
${rows.length ? table(["Item", "Kind", "Age", "First line", "Read it"], rows) : "<p>The inbox is empty.</p>"}
${command("rkb inbox")}
${command("rkb inbox done <id> --outcome add:<lesson id>")}
<p class="muted">In pi or omp, <code>/rkb-distill</code> turns the items into lessons; in Claude Code, <code>/rkb:distill</code>.</p>`;
  return page(model, urls.inbox, "inbox", "Inbox", body);
}
