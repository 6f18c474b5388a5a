import { isMap, isLessonType, type Lesson } from "./lesson.ts";
import { lessonDepth, scopeFolder } from "./layout.ts";
import type { Finding } from "./finding.ts";
import { evidenceProblem, titleProblem } from "./quality.ts";
import { LESSON_ID, LESSON_TYPES, REQUIRED_SECTIONS, STATUSES, STATUS_SECTIONS, VERIFIED_HOW, type LessonType, type Status } from "./schema.ts";
import { isValidWhenValue } from "../place/when.ts";
import type { YamlValue } from "./yaml.ts";

// Rules that look at one parsed lesson on its own: frontmatter fields, `when`, labels, the body's
// headings and code blocks, where the file sits, and its length. Links, assets, leaks and ids need
// the rest of the knowledge base and live in lint.ts.

export interface LessonRulesContext {
  /** kb.toml `[labels]`: key → allowed values. */
  labels: Record<string, string[]>;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MAX_QUERIES = 8;
const MAX_QUERY_CHARS = 200;
const MAX_LESSON_LINES = 150;
const SCRIPT_SECTIONS = ["Check", "Probe"];
const SCRIPT_LANGS = ["sh", "bash"];

export function lessonFindings(lesson: Lesson, ctx: LessonRulesContext): Finding[] {
  const findings: Finding[] = [];
  const report = (rule: string, line: number | undefined, message: string, severity: Finding["severity"] = "error") =>
    findings.push({ path: lesson.path, ...(line !== undefined ? { line } : {}), severity, rule, message });
  const nul = lesson.raw.indexOf("\0");
  if (nul !== -1) {
    const line = lesson.raw.slice(0, nul).split("\n").length;
    report("format/nul", line, "this line holds a NUL byte (git then takes the file for binary, and no tool shows the text after it); remove it");
  }
  for (const f of conflictFindings(lesson.path, lesson.raw)) findings.push(f);
  placeholderRules(lesson, report);
  frontmatterRules(lesson, ctx, report);
  bodyRules(lesson, report);
  placementRules(lesson, report);
  const lines = lesson.raw.endsWith("\n") ? lesson.raw.split("\n").length - 1 : lesson.raw.split("\n").length;
  if (lines > MAX_LESSON_LINES) {
    report(
      "size/lesson-lines",
      undefined,
      `the lesson has ${lines} lines (more than ${MAX_LESSON_LINES}); split it into smaller lessons that each teach one thing`,
      "warning",
    );
  }
  const title = titleProblem(lesson);
  if (title)
    report(
      "quality/title",
      lesson.scan.headings.find((h) => h.level === 1) ? lesson.bodyLine + lesson.scan.headings.find((h) => h.level === 1)!.line - 1 : undefined,
      title,
      "warning",
    );
  const evidence = evidenceProblem(lesson);
  if (evidence) report("quality/evidence", sectionLine(lesson, "Evidence"), evidence, "warning");
  return findings;
}

/** What `rkb add --template` and the help's examples leave to fill in: `<Title>`, `<word>`, `…`. */
const PLACEHOLDER = /^(?:<[^<>\n]{1,60}>|…|\.{3})$/;

/** `format/placeholder`: a title, a section, a tag, a query or a `when` value that is still a placeholder, never filled in. */
function placeholderRules(lesson: Lesson, report: Report): void {
  const say = (what: string, text: string, line: number | undefined) =>
    report("format/placeholder", line, `${what} is still the placeholder \`${text}\`; write what you learned there (or leave the field out)`);
  const title = lesson.scan.headings.find((h) => h.level === 1);
  if (PLACEHOLDER.test(lesson.title.trim())) say("the title", lesson.title.trim(), title ? lesson.bodyLine + title.line - 1 : undefined);
  for (const [heading, text] of lesson.sections) if (PLACEHOLDER.test(text.trim())) say(`the ${heading} section`, text.trim(), sectionLine(lesson, heading));
  for (const key of ["tags", "queries"] as const)
    for (const item of lesson[key]) if (PLACEHOLDER.test(item.trim())) say(`the ${key === "tags" ? "tag" : "query"}`, item.trim(), lesson.keyLines[key]);
  for (const [key, value] of Object.entries(lesson.when))
    if (typeof value === "string" && PLACEHOLDER.test(value.trim())) say(`\`when.${key}\``, value.trim(), lesson.keyLines.when);
}

const CONFLICT_MARKER = /^(<{7}|>{7}|\|{7})(?: |$)/gm;

/**
 * `format/conflict`: the markers git leaves in a file when a rebase or merge stops on a conflict, at
 * the start of a line. One finding per conflict (its `<<<<<<<` line), and one for an end marker left
 * without its start. A lesson that quotes markers indents them in its code block.
 */
export function conflictFindings(path: string, raw: string): Finding[] {
  const findings: Finding[] = [];
  let open = false;
  let line = 1;
  let counted = 0;
  for (const m of raw.matchAll(CONFLICT_MARKER)) {
    for (let i = raw.indexOf("\n", counted); i !== -1 && i < m.index; i = raw.indexOf("\n", i + 1)) line++;
    counted = m.index;
    const start = m[1]![0] === "<";
    if (start || !open)
      findings.push({
        path,
        line,
        severity: "error",
        rule: "format/conflict",
        message: `an unresolved merge conflict (\`${m[1]}\`); keep the right side, delete the other and the marker lines (indent markers you quote)`,
      });
    open = start || (open && m[1]![0] === "|");
  }
  return findings;
}

function sectionLine(lesson: Lesson, heading: string): number | undefined {
  const h = lesson.scan.headings.find((x) => x.level === 2 && x.text === heading);
  return h ? lesson.bodyLine + h.line - 1 : undefined;
}

const oneOf = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(", ");

/** The fields every lesson must have, and the values each may take (the rest of the message is the same for all). */
const REQUIRED_VALUES: { key: "type" | "status" | "verified" | "verified_how"; allowed: string; valid: (v: YamlValue) => boolean }[] = [
  { key: "type", allowed: `a lesson type: one of ${oneOf(LESSON_TYPES)}`, valid: (v) => typeof v === "string" && isLessonType(v) },
  { key: "status", allowed: `a status: one of ${oneOf(STATUSES)}`, valid: (v) => typeof v === "string" && (STATUSES as readonly string[]).includes(v) },
  { key: "verified", allowed: "a real date written YYYY-MM-DD (e.g. 2026-01-15), the day the lesson was last confirmed", valid: isDate },
  {
    key: "verified_how",
    allowed: `how the lesson was confirmed: one of ${oneOf(VERIFIED_HOW)}`,
    valid: (v) => typeof v === "string" && (VERIFIED_HOW as readonly string[]).includes(v),
  },
];

/**
 * Every required field that holds a value the Rust rkb's reader refuses (an unknown type, status or
 * verified_how; a date that is no date), by line, then every one that is missing: each makes the
 * file unreadable there, and all are told at once.
 */
export function unreadableValues(lesson: Lesson): { line: number; message: string }[] {
  const wrong = REQUIRED_VALUES.filter(({ key, valid }) => lesson.frontmatter[key] !== undefined && !valid(lesson.frontmatter[key]))
    .map((field) => ({ field, line: lesson.keyLines[field.key] ?? 2 }))
    .sort((a, b) => a.line - b.line)
    .map(({ field: { key, allowed }, line }) => {
      const value = lesson.frontmatter[key];
      const written = typeof value === "string" ? value : JSON.stringify(value);
      return { line, message: `\`${key}: ${written}\` on line ${line} is not allowed; \`${key}\` must be ${allowed}` };
    });
  const missing = REQUIRED_VALUES.filter(({ key }) => lesson.frontmatter[key] === undefined).map(({ key, allowed }) => ({
    line: 2,
    message: `the frontmatter has no \`${key}\`; add \`${key}:\` with ${allowed}`,
  }));
  return [...wrong, ...missing];
}

/** The first of unreadableValues: why search, show and list skip the file. */
export const unreadableValue = (lesson: Lesson) => unreadableValues(lesson)[0];

type Report = (rule: string, line: number | undefined, message: string, severity?: Finding["severity"]) => void;

function frontmatterRules(lesson: Lesson, ctx: LessonRulesContext, report: Report): void {
  const fm = lesson.frontmatter;
  const keyLine = (key: string) => lesson.keyLines[key] ?? 2;
  if (fm.schema === undefined) report("format/schema", 2, "add `schema: 1` as the first frontmatter line");
  else if (fm.schema !== 1) report("format/schema", keyLine("schema"), `\`schema\` must be 1, not ${JSON.stringify(fm.schema)}`);

  if (fm.id === undefined) report("format/id", 2, "add an `id:` of 10 lowercase hex characters (e.g. `id: 3f9a0c1b2d`) that no other lesson uses");
  else if (typeof fm.id !== "string")
    report("format/id", keyLine("id"), `YAML reads the id ${JSON.stringify(fm.id)} as a ${typeof fm.id}; quote it (\`id: "${fm.id}"\`)`);
  else if (!LESSON_ID.test(fm.id)) report("format/id", keyLine("id"), `the id \`${fm.id}\` must be exactly 10 lowercase hex characters (0-9, a-f)`);

  const supersededBy = fm.superseded_by;
  if (lesson.status === "superseded" && (supersededBy === undefined || supersededBy === null || supersededBy === "")) {
    report("format/superseded_by", keyLine("status"), "a superseded lesson needs `superseded_by: <id>` naming the lesson that replaces it");
  } else if (supersededBy !== undefined && lesson.status !== "superseded") {
    report("format/superseded_by", keyLine("superseded_by"), "`superseded_by` belongs only to `status: superseded`; remove it or set that status");
  } else if (supersededBy !== undefined && (typeof supersededBy !== "string" || !LESSON_ID.test(supersededBy))) {
    report(
      "format/superseded_by",
      keyLine("superseded_by"),
      `\`superseded_by\` must be a lesson id (10 lowercase hex characters, quoted if all digits), not ${JSON.stringify(supersededBy)}`,
    );
  } else if (supersededBy !== undefined && supersededBy === fm.id) {
    report("format/superseded_by", keyLine("superseded_by"), "a lesson cannot supersede itself; put the id of the newer lesson in `superseded_by`");
  }

  const staleReason = fm.stale_reason;
  if (lesson.status === "stale" && (typeof staleReason !== "string" || staleReason.trim() === "")) {
    report(
      "format/stale_reason",
      keyLine(staleReason === undefined ? "status" : "stale_reason"),
      "a stale lesson needs `stale_reason:` saying in words why it may no longer hold",
    );
  } else if (staleReason !== undefined && lesson.status !== "stale") {
    report("format/stale_reason", keyLine("stale_reason"), "`stale_reason` belongs only to `status: stale`; remove it or set that status");
  }

  stringListRule(lesson, "tags", "format/tags", report, (tag) =>
    tag === "" || tag !== tag.toLowerCase() || /\s/.test(tag)
      ? `the tag ${JSON.stringify(tag)} must be lowercase without spaces (e.g. \`${tag.toLowerCase().trim().replace(/\s+/g, "-") || "cmake"}\`)`
      : undefined,
  );

  if (Array.isArray(fm.queries) && fm.queries.length > MAX_QUERIES) {
    report(
      "format/queries",
      keyLine("queries"),
      `${fm.queries.length} queries is more than ${MAX_QUERIES}; keep the ${MAX_QUERIES} that best show how someone would search for this lesson`,
    );
  }
  const seenQueries = new Set<string>();
  stringListRule(lesson, "queries", "format/queries", report, (query) => {
    if (query.length > MAX_QUERY_CHARS) return `a query of ${query.length} characters is longer than ${MAX_QUERY_CHARS}; shorten it to what someone would type`;
    if (seenQueries.has(query)) return `the query ${JSON.stringify(query)} is listed twice; remove one`;
    seenQueries.add(query);
    return undefined;
  });

  whenRules(lesson, report);
  labelFindings(
    fm.labels,
    ctx.labels,
    (line, message) => report("labels/unknown", line, message),
    keyLine("labels"),
    (key) => nestedKeyLine(lesson, "labels", key),
  );

  if (fm.meta !== undefined && !isMap(fm.meta)) report("format/schema", keyLine("meta"), "`meta` must be a map of `key: value` lines");

  for (const line of lesson.flowStyle) {
    report("format/flow-style", line, "write this list or map in block style (one item per line); `rkb lint --fix` does it for you", "warning");
  }
}

/** Checks that a frontmatter key, when present, is a list of strings, and each item with `check`. */
function stringListRule(lesson: Lesson, key: "tags" | "queries", rule: string, report: Report, check: (item: string) => string | undefined): void {
  const value = lesson.frontmatter[key];
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    report(rule, lesson.keyLines[key], `\`${key}\` must be a list, one \`- item\` per line`);
    return;
  }
  value.forEach((item, i) => {
    const line = itemLine(lesson, key, i);
    if (typeof item !== "string") report(rule, line, `the ${key} item ${JSON.stringify(item)} must be text; quote it`);
    else {
      const problem = check(item);
      if (problem) report(rule, line, problem);
    }
  });
}

function whenRules(lesson: Lesson, report: Report): void {
  const when = lesson.frontmatter.when;
  if (when === undefined) return;
  const whenLine = lesson.keyLines.when;
  if (!isMap(when)) {
    report("when/invalid", whenLine, "`when` must be a map of conditions, one `key: value` per line (e.g. `system: tuolumne`)");
    return;
  }
  for (const [key, value] of Object.entries(when)) {
    const problem = isValidWhenValue(key, value);
    if (problem) report("when/invalid", nestedKeyLine(lesson, "when", key), problem);
  }
}

/**
 * Checks a `labels` map against kb.toml `[labels]`. Shared by lessons and folder notes.
 * `keyLine` is the line of `labels:`; `entryLine` finds the line of one label.
 */
export function labelFindings(
  labels: YamlValue | undefined,
  declared: Record<string, string[]>,
  report: (line: number | undefined, message: string) => void,
  keyLine: number | undefined,
  entryLine: (key: string) => number | undefined,
): void {
  if (labels === undefined) return;
  if (!isMap(labels)) {
    report(keyLine, "`labels` must be a map such as `sensitivity: internal`");
    return;
  }
  for (const [key, value] of Object.entries(labels)) {
    const allowed = Object.hasOwn(declared, key) ? declared[key] : undefined;
    if (!allowed) {
      const known = Object.keys(declared);
      report(
        entryLine(key),
        `the label \`${key}\` is not declared in kb.toml [labels]${known.length ? ` (declared: ${known.join(", ")})` : ""}; declare it there or remove it`,
      );
    } else if (typeof value !== "string" || !allowed.includes(value)) {
      report(entryLine(key), `\`${key}: ${JSON.stringify(value)}\` is not allowed; use one of ${allowed.join(", ")} (kb.toml [labels])`);
    }
  }
}

function bodyRules(lesson: Lesson, report: Report): void {
  const { scan } = lesson;
  const at = (bodyLine: number) => lesson.bodyLine + bodyLine - 1;
  if (scan.unclosedFence !== undefined) {
    report("format/parse", at(scan.unclosedFence), "this code block is never closed, so everything after it is read as code; add the closing fence line");
  }

  const firstText = lesson.body.split(/\r?\n/).findIndex((l) => l.trim() !== "") + 1;
  const titles = scan.headings.filter((h) => h.level === 1);
  const title = titles[0];
  if (!title) report("body/title", at(Math.max(firstText, 1)), "start the body with a `# Title` line that says what the lesson teaches");
  else {
    if (title.line !== firstText)
      report("body/title", at(firstText), "the body must start with the `# Title` line; move this text below the title or into a section");
    if (title.text === "") report("body/title", at(title.line), "the title is empty; write what the lesson teaches after `# `");
  }
  for (const extra of titles.slice(1)) report("body/title", at(extra.line), "a lesson has one `# Title`; make this heading a `## ` section or remove it");

  const h2 = scan.headings.filter((h) => h.level === 2);
  const type = isLessonType(lesson.type) ? (lesson.type as LessonType) : undefined;
  const statusSection = STATUS_SECTIONS[lesson.status as Status];
  const required = [...(type ? REQUIRED_SECTIONS[type] : []), ...(statusSection ? [statusSection] : [])];
  for (const name of required) {
    const found = h2.filter((h) => h.text === name);
    if (found.length === 0) {
      const nearly = h2.find((h) => h.text.toLowerCase() === name.toLowerCase());
      if (nearly) report("body/headings", at(nearly.line), `write this heading exactly as \`## ${name}\``);
      else {
        const why =
          type && REQUIRED_SECTIONS[type].includes(name)
            ? `a ${type} needs ${REQUIRED_SECTIONS[type].map((s) => `\`## ${s}\``).join(", ")}`
            : `a ${lesson.status} lesson needs it`;
        report("body/headings", title ? at(title.line) : lesson.bodyLine, `add a \`## ${name}\` section (${why})`);
      }
    }
    for (const dup of found.slice(1)) report("body/headings", at(dup.line), `\`## ${name}\` appears more than once; merge the sections into the first one`);
  }

  if (type) {
    const order = REQUIRED_SECTIONS[type];
    const present = order.map((name) => h2.find((h) => h.text === name)).filter((h) => h !== undefined);
    const misplaced = present.find((h, i) => i > 0 && h.line < present[i - 1]!.line);
    if (misplaced) report("body/heading-order", at(misplaced.line), `move \`## ${misplaced.text}\` so the sections come in the order ${order.join(", ")}`);
  }

  for (const section of scan.sections) {
    if (section.text === "") report("body/empty-section", at(section.line), `\`## ${section.heading}\` is empty; write its content or remove the heading`);
  }

  for (const fence of scan.fences) {
    if (fence.lang === "") report("body/fence-lang", at(fence.line), "add a language after the opening fence (```sh, ```python, or ```text for plain output)");
  }
  for (const name of SCRIPT_SECTIONS) {
    const heading = h2.find((h) => h.text === name);
    if (!heading) continue;
    const blocks = scan.fences.filter((f) => f.section === name);
    if (blocks.length !== 1 || !SCRIPT_LANGS.includes(blocks[0]!.lang)) {
      report(
        "body/script",
        at(heading.line),
        `\`## ${name}\` must hold exactly one \`\`\`sh or \`\`\`bash block (it has ${blocks.length} code block${blocks.length === 1 ? " in another language" : "s"})`,
      );
    }
  }

  scan.indentedCode.forEach((line, i) => {
    if (i > 0 && scan.indentedCode[i - 1] === line - 1) return;
    report("body/indented-code", at(line), "indented code is not allowed; put the code in a fenced block with a language (```sh … ```)");
  });
}

function placementRules(lesson: Lesson, report: Report): void {
  const parts = lesson.path.split("/");
  const scope = parts[0]!;
  const depth = lessonDepth(scope);
  if (parts.length !== depth) {
    const shape = scope === "general" ? "general/<topic>/<name>.md" : `${scope}/<name>/<topic>/<name>.md`;
    report("layout/depth", undefined, `a lesson in ${scope}/ must sit at ${shape} (topics do not nest); move the file there`);
    return;
  }
  const folder = scope === "general" ? "general" : parts.slice(0, 2).join("/");
  const wanted = scopeFolder(lesson.when);
  // A lesson may narrow its folder's scope further (a project lesson with `when.system`) or carry
  // no condition at all in a project or system folder; it may not point to a different place.
  const contradicts = wanted !== folder && wanted !== "general" && !(scope === "projects" && typeof lesson.when.project !== "string");
  if (contradicts) {
    const key = wanted.startsWith("projects/") ? "project" : "system";
    report(
      "layout/scope",
      nestedKeyLine(lesson, "when", key),
      `\`when.${key}\` puts this lesson in ${wanted}/, but it sits in ${folder}/; move it to ${wanted}/${parts.at(-2)}/${parts.at(-1)} or change \`when\``,
    );
  }
}

function isDate(value: YamlValue | undefined): boolean {
  if (typeof value !== "string") return false;
  const m = DATE.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === value;
}

/** The line of `key:` nested under a top-level frontmatter key (the parent's line when not found). */
function nestedKeyLine(lesson: Lesson, parent: string, key: string): number | undefined {
  const start = lesson.keyLines[parent];
  return start === undefined ? undefined : nestedLine(lesson.raw, start, key);
}

/** Finds `key:` in the indented block below the 1-based line `parentLine` of text; parentLine if absent. */
export function nestedLine(text: string, parentLine: number, key: string): number {
  const lines = text.split("\n");
  for (let i = parentLine; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line)) break;
    const m = /^\s+["']?([^"':]+?)["']?\s*:/.exec(line);
    if (m && m[1] === key) return i + 1;
  }
  return parentLine;
}

/** The line of item `index` of a top-level block list (the key's line for a flow list). */
function itemLine(lesson: Lesson, key: string, index: number): number | undefined {
  const start = lesson.keyLines[key];
  if (start === undefined || lesson.flowStyle.includes(start)) return start;
  return start + 1 + index;
}
