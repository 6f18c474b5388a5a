import { rkbSubject } from "../../kb/history.ts";
import { maskSecrets } from "../../text/secrets.ts";
import type { YamlValue } from "../../lesson/yaml.ts";
import { command, day, esc, table } from "../html.ts";
import { page, upFrom, urls } from "../layout.ts";
import { renderLesson } from "../markdown.ts";
import type { SiteLesson, SiteModel } from "../model.ts";

// A lesson's page: the lesson rendered, its facts, the git history of its file, related and
// near-duplicate lessons, and the exact commands that act on it.

const IMAGE = /\.(?:png|jpe?g|webp)$/i;

export function lessonPage(model: SiteModel, entry: SiteLesson): string {
  const { lesson, usage } = entry;
  const url = urls.lesson(lesson.id);
  const up = upFrom(url);
  const link = (id: string) => {
    const other = model.byId.get(id)!;
    return `<a href="${up}${urls.lesson(id)}">${esc(other.lesson.title)}</a> <span class="meta">${esc(other.lesson.path)}</span>`;
  };
  const supersededBy = lesson.frontmatter.superseded_by;
  const facts: [string, string][] = [
    ["id", `<code>${esc(lesson.id)}</code>`],
    ["type", esc(lesson.type)],
    ["status", esc(lesson.status)],
    ...(typeof supersededBy === "string"
      ? [["superseded by", model.byId.has(supersededBy) ? link(supersededBy) : "a lesson this site does not hold"] as [string, string]]
      : []),
    ...(lesson.frontmatter.stale_reason ? [["why stale", esc(String(lesson.frontmatter.stale_reason))] as [string, string]] : []),
    ["verified", `${esc(lesson.verified)}${lesson.verifiedHow ? ` (${esc(lesson.verifiedHow)})` : ""}`],
    ["when", Object.keys(lesson.when).length ? yamlText(lesson.when) : "anywhere its folder applies"],
    ["tags", esc(lesson.tags.join(", ") || "none")],
    [
      "labels",
      esc(
        Object.entries(entry.labels)
          .map(([k, v]) => `${k}: ${v}`)
          .join(", "),
      ),
    ],
    ["provenance", provenance(lesson.frontmatter.meta)],
    [
      "use",
      `worked ${usage.worked}, failed ${usage.failed}, injected ${usage.injected}, inferred ${usage.inferred}, irrelevant ${usage.irrelevant}${usage.lastWorked ? `; last worked ${esc(day(usage.lastWorked))}` : ""}${usage.lastFailed ? `; last failed ${esc(day(usage.lastFailed))}` : ""}`,
    ],
    ["file", esc(lesson.path)],
  ];
  const history = entry.history.map((c) => [esc(day(c.date)), `<code>${esc(c.commit)}</code>`, esc(shownSubject(model, c.subject))]);
  const minDupe = model.config.dupesMinSimilarity;
  const related: string[] = [
    ...entry.linksTo.map((id) => `<li>links to ${link(id)}</li>`),
    ...entry.linkedFrom.map((id) => `<li>linked from ${link(id)}</li>`),
    ...entry.supersedes.map((id) => `<li>replaces ${link(id)}</li>`),
    ...entry.similar.map(
      (s) => `<li>${s.similarity >= minDupe ? "<strong>near-duplicate</strong>" : "similar"} (${s.similarity.toFixed(2)}) ${link(s.id)}</li>`,
    ),
  ];
  const { hash } = entry;
  const body = `<h1>${esc(lesson.title)}</h1>
<p class="meta">${esc(lesson.type)} · ${esc(lesson.status)} · ${esc(lesson.path)}</p>
<section aria-label="Commands">
${command(`rkb show ${lesson.id}`)}
${command(`rkb used ${lesson.id} --worked`)}
${command(`rkb used ${lesson.id} --irrelevant --reason "<why>"`)}
${command(`rkb edit ${lesson.id} --base ${hash} < new-file.md`)}
${command(`rkb flag ${lesson.id} --reason "<what is wrong>"`)}
</section>
<article class="lesson-body">
${renderLesson(lesson.body, lesson.path, linkTargets(model, lesson.path), up)}
</article>
<h2>Facts</h2>
<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join("")}</dl>
<h2>Related lessons</h2>
${related.length ? `<ul>${related.join("")}</ul>` : '<p class="muted">No link, supersession or similar lesson.</p>'}
${entry.similar.some((s) => s.similarity >= minDupe) ? command(`rkb supersede <other> --by ${lesson.id} --reason "<why>"`) : ""}
<h2>History of the file</h2>
${history.length ? table(["Date", "Commit", "Change"], history) : '<p class="muted">Not committed yet.</p>'}
${command(`rkb log ${lesson.id}`)}`;
  return page(model, url, "lesson", lesson.title, body);
}

/** Where the links of the lesson at `from` go: other shown lessons, and this lesson's own images. */
export function linkTargets(model: SiteModel, from: string) {
  const assets = `${from.slice(0, -3)}.assets/`;
  return {
    lessonUrl: (path: string) => {
      const target = model.byPath.get(path);
      return target ? urls.lesson(target.lesson.id) : undefined;
    },
    assetUrl: (path: string) => (path.startsWith(assets) && IMAGE.test(path) && !path.slice(assets.length).includes("/") ? urls.file(path) : undefined),
  };
}

/**
 * A commit's subject as the page may show it: for the owner as written; on a published site only
 * rkb's own subjects about a lesson it holds (a commit may also have touched another lesson, and a
 * hand-written message may say anything).
 */
function shownSubject(model: SiteModel, subject: string): string {
  if (model.audience.kind === "owner") return subject;
  const change = rkbSubject(subject);
  // Masked: a commit made past rkb (by hand, --no-verify) may hold a secret rkb would have refused.
  if (change?.id && model.byId.has(change.id)) return maskSecrets(subject);
  return change ? `${change.kind} (message not published)` : "(message not published)";
}

function provenance(meta: YamlValue | undefined): string {
  if (!meta || typeof meta !== "object" || Array.isArray(meta)) return "not recorded";
  const parts = ["source", "edited_by"].flatMap((key) =>
    key in meta ? [`${key.replace("_", " ")}: ${yamlText((meta as Record<string, YamlValue>)[key]!)}`] : [],
  );
  return parts.length ? parts.join("; ") : "not recorded";
}

function yamlText(value: YamlValue): string {
  if (Array.isArray(value)) return value.map(yamlText).join(", ");
  if (value && typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => `${esc(k)}: ${yamlText(v)}`)
      .join("; ");
  return esc(String(value));
}
