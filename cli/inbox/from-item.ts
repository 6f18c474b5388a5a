import { keyErrorLines } from "../shell/result.ts";
import { parseDrafts, type ItemDraft } from "./draft.ts";
import { failedInExcerpt } from "./excerpt.ts";
import { dropItem, readItem, recordOutcomes, rewriteItem, type InboxItem } from "./inbox.ts";
import { RkbError } from "../base/errors.ts";
import { tokenize } from "../text/tokenize.ts";
import { scanBody } from "../lesson/body.ts";
import { parseYamlMap, splitFrontmatter } from "../lesson/lesson.ts";
import { REQUIRED_SECTIONS } from "../lesson/schema.ts";
import type { YamlValue } from "../lesson/yaml.ts";

// A lesson distilled from an inbox item (`rkb add --from <item>`, rkb_add's `from_item`): the
// item gives the lesson its provenance (session, harness, entries), the failure's key error lines
// as example queries (so the same failure finds the lesson from then on), and, for a draft
// pitfall, whatever the caller left empty of Symptom, Fix and Evidence. Everything taken from the
// item was masked when the item was written.

export interface FromItem {
  item: InboxItem;
  /** 1-based number of the draft used, when the item has drafts. */
  draftNumber?: number;
  draft?: ItemDraft;
  /** The failure's key error lines, to become `queries` entries. */
  queries: string[];
}

/** Key lines taken as queries: the first few that say which failure it was. */
const MAX_QUERIES = 3;
const QUERY_CHARS = 200;

/** Reads `<item id>` or `<item id>:<draft number>`. */
export function readFromItem(env: NodeJS.ProcessEnv, ref: string): FromItem {
  const m = /^([^:]+)(?::(\d+))?$/.exec(ref.trim());
  if (!m)
    throw new RkbError(
      "usage",
      `\`${ref}\` is not an inbox item reference`,
      "write --from <item id>, or --from <item id>:<draft number> for another draft than the first",
    );
  const item = readItem(env, m[1]!);
  const drafts = parseDrafts(item.body);
  const wanted = m[2] === undefined ? 1 : Number(m[2]);
  if (m[2] !== undefined && (wanted < 1 || wanted > drafts.length)) {
    throw new RkbError(
      "not_found",
      `inbox item ${item.id} has ${drafts.length ? `drafts 1 to ${drafts.length}` : "no draft pitfall"}, not draft ${m[2]}`,
      `run \`rkb inbox show ${item.id}\` and pick one of its drafts`,
    );
  }
  const draft = drafts[wanted - 1];
  const failure = draft ? draft.keyLines : keyErrorLines(failedInExcerpt(item.body)[0]?.output ?? "");
  return { item, ...(draft ? { draft, draftNumber: wanted } : {}), queries: queryLines(failure) };
}

/** A failure's key lines as a lesson's example queries, so the same failure finds the lesson (the failure rule's `learned` path). */
export function queryLines(keyLines: string[]): string[] {
  const lines = keyLines.map((l) => l.replace(/\s+/g, " ").trim()).filter((l) => tokenize(l).length >= 3);
  return [...new Set(lines)].slice(0, MAX_QUERIES).map((l) => (l.length > QUERY_CHARS ? l.slice(0, QUERY_CHARS) : l));
}

/** The lesson's `meta.source` entries that come from the item. */
export function itemSource(from: FromItem): Record<string, string> {
  const meta = from.item.meta;
  const source: Record<string, string> = { item: from.item.id };
  if (typeof meta.session === "string") source.session = meta.session;
  if (typeof meta.harness === "string") source.harness = meta.harness;
  const entries = from.draft?.entries ?? (typeof meta.entries === "string" ? meta.entries : undefined);
  if (entries) source.entries = entries;
  return source;
}

/** A lesson as planAdd takes it: frontmatter values and the body. */
export interface LessonParts {
  frontmatter: Record<string, YamlValue>;
  body: string;
}

/** A lesson file's parts (a body alone when there is no frontmatter). */
export function partsOfText(text: string): LessonParts {
  if (!/^---\r?\n/.test(text)) return { frontmatter: {}, body: text };
  const split = splitFrontmatter(text, "<stdin>");
  return { frontmatter: parseYamlMap(split.yaml, "<stdin>", 2), body: split.body };
}

/**
 * The lesson completed from the item: its queries joined by the failure's key lines, and for a
 * draft pitfall the title and the empty Symptom, Fix and Evidence sections filled from the draft.
 */
export function completeFromItem(lesson: LessonParts, from: FromItem, givenType?: string): LessonParts {
  let fm = { ...lesson.frontmatter };
  const type = String(fm.type ?? givenType ?? (from.draft ? "pitfall" : ""));
  if (type && !fm.type && !givenType) fm = { type, ...fm };
  const queries = Array.isArray(fm.queries) ? fm.queries.map(String) : [];
  const learned = [...new Set([...queries, ...from.queries])];
  if (learned.length) fm.queries = learned;
  const body = from.draft && type === "pitfall" ? fillSections(lesson.body, from.draft, from.item) : lesson.body;
  return { frontmatter: fm, body };
}

/** The sections of a pitfall a draft can fill. */
export const DRAFT_SECTIONS = ["Symptom", "Fix", "Evidence"] as const;

/** What a draft says for each section it can fill. */
function draftSections(d: ItemDraft, item: InboxItem): Record<string, string> {
  const harness = typeof item.meta.harness === "string" ? `a ${item.meta.harness} session` : "a session";
  const session = typeof item.meta.session === "string" ? ` (${item.meta.session}${d.entries ? `, entries ${d.entries}` : ""})` : "";
  return { Symptom: draftSymptom(d), Fix: draftFix(d), Evidence: `Seen in ${harness}${session}: ${draftOutcome(d)}` };
}

/** A draft's Symptom: the failed command, the line that names the failure, and the key lines. */
export function draftSymptom(d: ItemDraft): string {
  const main = mainLine(d.keyLines);
  const symptom = [`Running ${code(firstLine(d.failedCommand))} fails${main ? ` with ${code(main)}` : ""}.`];
  if (d.keyLines.length) symptom.push("", fence("text", d.keyLines.join("\n")));
  return symptom.join("\n");
}

/** What the session shows, the end of a draft's Evidence: the command failed, and worked after the fix. */
export function draftOutcome(d: ItemDraft): string {
  return `${code(firstLine(d.failedCommand))} failed, and after the steps in Fix ${code(firstLine(d.workedCommand))} worked.`;
}

/** A draft's Fix: the steps between the failure and the success, commands in `sh` blocks, edits with their diffs. */
export function draftFix(d: ItemDraft): string {
  if (!d.fix.length) return `Run ${code(firstLine(d.workedCommand))} instead of ${code(firstLine(d.failedCommand))}; nothing else changed in between.`;
  const out: string[] = ["Between the failure and the success:"];
  let commands: string[] = [];
  const flush = () => {
    if (commands.length) out.push("", fence("sh", commands.join("\n")));
    commands = [];
  };
  for (const step of d.fix) {
    if (step.kind === "command") {
      if (step.exitCode !== undefined) commands.push(`# failed (exit ${step.exitCode}):`);
      commands.push(step.command);
    } else {
      flush();
      out.push("", `${step.verb === "wrote" ? "Wrote" : "Edited"} ${code(step.path)}${step.diff.length ? ":" : "."}`);
      if (step.diff.length) out.push("", fence("diff", step.diff.join("\n")));
    }
  }
  flush();
  out.push("", `After that, ${code(firstLine(d.workedCommand))} works.`);
  return out.join("\n");
}

/** Fills the draft's sections that the body leaves empty or out, in the type's section order, and a missing title. */
function fillSections(body: string, d: ItemDraft, item: InboxItem): string {
  const filled = draftSections(d, item);
  const order = REQUIRED_SECTIONS.pitfall;
  const scan = scanBody(body);
  const lines = body.split("\n");
  const inserts: { at: number; remove?: number; lines: string[] }[] = [];
  for (const heading of order) {
    const text = filled[heading];
    if (!text) continue;
    const section = scan.sections.find((s) => s.heading === heading);
    if (section?.text.trim()) continue;
    if (section) {
      // The section holds blank lines only: they give way to the text.
      const next = scan.headings.find((h) => h.line > section.line && h.level <= 2);
      inserts.push({ at: section.line, remove: (next ? next.line - 1 : lines.length) - section.line, lines: ["", text, ""] });
      continue;
    }
    // A missing section goes before the next section of the type that is there, or at the end.
    const next = order
      .slice(order.indexOf(heading) + 1)
      .map((h) => scan.sections.find((s) => s.heading === h))
      .find(Boolean);
    inserts.push({ at: next ? next.line - 1 : lines.length, lines: [`## ${heading}`, "", text, ""] });
  }
  for (const ins of inserts.sort((a, b) => b.at - a.at)) lines.splice(ins.at, ins.remove ?? 0, ...ins.lines);
  let out = lines.join("\n");
  if (!scan.headings.some((h) => h.level === 1)) out = `\n# ${draftTitle(d)}\n${out.startsWith("\n") ? "" : "\n"}${out}`;
  return out.endsWith("\n") ? out : out + "\n";
}

/** A title for a draft pitfall: the program and the line that says which failure it is. */
export function draftTitle(d: ItemDraft): string {
  const line = mainLine(d.keyLines).replace(new RegExp(`^${d.program.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\s*`), "");
  const title = `${d.program} fails: ${line || firstLine(d.failedCommand)}`;
  return title.length > 100 ? title.slice(0, 99) + "…" : title;
}

/** The key line that names the failure: the first that is not a mere header (`CMake Error at x:3:`). */
function mainLine(keyLines: string[]): string {
  return (keyLines.find((l) => !l.trim().endsWith(":")) ?? keyLines[0] ?? "").trim();
}

function firstLine(command: string): string {
  const [first, ...rest] = command.split("\n");
  return first! + (rest.length ? " …" : "");
}

/** Inline code that holds any text, backquotes included. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const ticks = "`".repeat(longest + 1);
  return longest ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

/** A fenced block longer than any backquote run inside it. */
function fence(lang: string, text: string): string {
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((r) => r.length));
  const ticks = "`".repeat(Math.max(3, longest + 1));
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** The command that turns an item's drafts into lessons, one per draft (the first needs no number). */
export function addFromCommands(item: InboxItem): string[] {
  const done = new Set(distilledDrafts(item));
  return parseDrafts(item.body).flatMap((d, i) => {
    if (done.has(i + 1)) return [];
    const ref = i === 0 ? item.id : `${item.id}:${i + 1}`;
    return [`rkb add --from ${ref} --topic ${topicFor(d.program)} --cause "<why it failed>"`];
  });
}

/** The draft numbers of an item already turned into lessons (recorded in its header). */
export function distilledDrafts(item: InboxItem): number[] {
  const v = item.meta.distilled;
  return (Array.isArray(v) ? v : []).map(Number).filter(Number.isInteger);
}

/** The topic folder name a draft's program suggests (`general` when it has no usable letters). */
export function topicFor(program: string): string {
  return (
    program
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "general"
  );
}

/**
 * Marks the item distilled with outcome `add:<lesson id>` (the draft number as the candidate when
 * the item has several). The item leaves the inbox once every draft has its lesson.
 */
export function finishItem(env: NodeJS.ProcessEnv, from: FromItem, lessonId: string): { removed: boolean } {
  const drafts = parseDrafts(from.item.body).length;
  const several = drafts > 1 && from.draftNumber !== undefined;
  recordOutcomes(env, from.item, [{ op: "add", lesson: lessonId, ...(several ? { candidate: from.draftNumber } : {}) }]);
  const done = [...new Set([...distilledDrafts(from.item), ...(from.draftNumber ? [from.draftNumber] : [])])].sort((a, b) => a - b);
  if (several && done.length < drafts) {
    rewriteItem(from.item, { ...from.item.meta, distilled: done.map(String) });
    return { removed: false };
  }
  return { removed: dropItem(env, from.item.id) };
}
