import { ConfigError, DEFAULT_KB_TOML, parseKbToml, type KbConfig } from "../lesson/config.ts";
import { git, gitOrThrow } from "../base/git.ts";
import { findLeaks, leakOptions, secretMessage, type LeakOptions } from "./leak.ts";
import { FOLDER_NAME, folderNameLike } from "../base/folder-name.ts";
import { classify, lessonDepth } from "../lesson/layout.ts";
import { frontmatterKeyLines, LessonParseError, parseLesson, splitFrontmatter, type Lesson } from "../lesson/lesson.ts";
import { conflictFindings, labelFindings, lessonFindings, nestedLine, unreadableValues } from "../lesson/lint-lesson.ts";
import type { Finding } from "../lesson/finding.ts";
import { scanBody } from "../lesson/body.ts";
import { resolveLink } from "../lesson/links.ts";
import { lessonSimilarity, similarityTerms } from "../search/similarity.ts";
import { parseNote, type FolderNote } from "../lesson/notes.ts";
import { flowStyleLines, type YamlValue } from "../lesson/yaml.ts";
import { diskTree, fileTree, indexTree, type Tree } from "./tree.ts";

// `rkb lint`: every rule a knowledge base must pass, over the files on disk (optionally with
// prospective changes laid over them) or over the git index. Per-file rules run on the files
// asked about; rules that compare files (duplicate ids, aliases) always see the whole tree.
// The trees are tree.ts; `--fix` is fix.ts.

const ASSET_TYPES = ["png", "jpg", "jpeg", "webp", "svg"];
const MAX_ASSET_BYTES = 1024 * 1024;

/**
 * Lints the knowledge base at root. `overrides`: rel path → prospective text or bytes (or null = deleted),
 * used instead of the disk; `only`: run per-file rules only on these rel paths (global rules still
 * run on the whole tree).
 */
export function lintKb(
  root: string,
  opts: { overrides?: Map<string, string | Uint8Array | null>; only?: string[]; env?: NodeJS.ProcessEnv; nearDuplicates?: boolean } = {},
): Finding[] {
  return lintTree(diskTree(root, opts.overrides ?? new Map()), opts.only, opts.env ?? process.env, opts.nearDuplicates ?? true);
}

/**
 * The errors of one lesson judged on its own (parse, format, links, leaks), without reading the
 * rest of the knowledge base: the hooks check this before they put a lesson in front of an agent.
 */
export function lessonErrors(root: string, rel: string, env: NodeJS.ProcessEnv = process.env): Finding[] {
  return lintTree(fileTree(root, rel), [rel], env).filter((f) => f.severity === "error" && f.path === rel);
}

/** Lints what is staged in the git index at root: per-file rules for staged files, global rules on the whole index. */
export async function lintStaged(root: string, env: NodeJS.ProcessEnv = process.env): Promise<Finding[]> {
  const staged = gitOrThrow(root, ["diff", "--cached", "--name-only", "-z", "--relative", "--diff-filter=ACMR"], { env }).split("\0").filter(Boolean);
  const tree = indexTree(root, env);
  return [...lintTree(tree, staged, env), ...checkedByHand(root, tree, staged, env)].sort(byPlace);
}

/**
 * `format/checked-by-hand`: only the Rust rkb's `rkb verify` (this rkb has no such command) may mark a
 * lesson `verified_how: checked` (after its approved check passed), so a staged lesson that newly says
 * so was edited by hand.
 */
function checkedByHand(root: string, tree: Tree, staged: string[], env: NodeJS.ProcessEnv): Finding[] {
  const findings: Finding[] = [];
  for (const rel of staged) {
    if (classify(rel) !== "lesson") continue;
    const lesson = parseOrUndefined(tree.text(rel), rel);
    if (lesson?.verifiedHow !== "checked") continue;
    const before = git(root, ["cat-file", "-p", `HEAD:${rel}`], { env });
    if (before.ok && parseOrUndefined(before.stdout, rel)?.verifiedHow === "checked") continue;
    findings.push({
      path: rel,
      line: lesson.keyLines.verified_how,
      severity: "error",
      rule: "format/checked-by-hand",
      message: "`verified_how: checked` is set only by the Rust rkb's `rkb verify` when the lesson's approved Check passes; write `ran`, `read` or `told`",
    });
  }
  return findings;
}

function parseOrUndefined(text: string, rel: string): Lesson | undefined {
  try {
    return parseLesson(text, rel);
  } catch (e) {
    if (e instanceof LessonParseError) return undefined;
    throw e;
  }
}

function lintTree(tree: Tree, only: string[] | undefined, env: NodeJS.ProcessEnv, comparesLessons = true): Finding[] {
  const findings: Finding[] = [];
  const checked = only ? new Set(only) : undefined;
  const inScope = (rel: string) => !checked || checked.has(rel);
  const report = (path: string, line: number | undefined, rule: string, message: string, severity: Finding["severity"] = "error") =>
    findings.push({ path, ...(line !== undefined ? { line } : {}), severity, rule, message });

  const config = loadConfig(tree, inScope("kb.toml") ? report : undefined);
  const leaks = leakOptions(config.leak, env);
  const lessons: Lesson[] = [];
  const notes: { note: FolderNote; text: string }[] = [];
  const linked = new Set<string>();
  // Lessons that do not parse: their links are unknown, so their assets are not called unlinked.
  const unreadable = new Set<string>();

  for (const rel of tree.files) {
    const kind = classify(rel);
    if (kind === "lesson") {
      const lesson = readLesson(tree, rel, leaks, inScope(rel) ? report : undefined);
      if (!lesson) {
        unreadable.add(rel);
        continue;
      }
      lessons.push(lesson);
      const links = resolveLinks(lesson.path, lesson.scan.links, lesson.bodyLine);
      for (const link of links) if (link.target) linked.add(link.target);
      if (!inScope(rel)) continue;
      for (const f of lessonFindings(lesson, { labels: config.labels })) findings.push(f);
      brokenLinks(tree, rel, links, report);
      leakFindings(rel, lesson.raw, leaks, report);
    } else if (kind === "note") {
      const text = tree.text(rel);
      const note = readNote(text, rel, config, inScope(rel) ? report : undefined);
      if (note) notes.push({ note, text });
      if (!inScope(rel)) continue;
      const { body, bodyLine } = noteBody(text, rel);
      brokenLinks(tree, rel, resolveLinks(rel, scanBody(body).links, bodyLine), report);
      for (const f of conflictFindings(rel, text)) report(rel, f.line, f.rule, f.message);
      leakFindings(rel, text, leaks, report);
    }
  }

  for (const rel of tree.files) {
    if (classify(rel) !== "asset" || !(inScope(rel) || inScope(owningLesson(rel)))) continue;
    assetFindings(tree, rel, linked, unreadable, leaks, report);
  }
  folderNameFindings(
    tree.files.filter((rel) => inScope(rel) && classify(rel) !== "other" && classify(rel) !== "config"),
    report,
  );

  if (lessons.length && !tree.exists("kb.toml")) {
    report(
      "kb.toml",
      undefined,
      "config/missing",
      "this folder has lessons but no kb.toml; add one (`rkb init` in an empty folder writes the default) so labels and leak checks are declared",
      "warning",
    );
  }
  duplicateIds(lessons, report);
  if (comparesLessons)
    nearDuplicates(
      lessons,
      notes.map((n) => n.note),
      config.dupesMinSimilarity,
      inScope,
      report,
    );
  aliasFindings(tree.files, notes, report);

  return findings.sort(byPlace);
}

/** Findings by path, then line, then rule. */
function byPlace(a: Finding, b: Finding): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule);
}

/** `content/near-duplicate`: once per similar pair, on the lesson whose path sorts first (of those linted). */
function nearDuplicates(lessons: Lesson[], notes: FolderNote[], min: number, inScope: (rel: string) => boolean, report: Report): void {
  if (!lessons.some((l) => inScope(l.path))) return;
  const index = lessonSimilarity(lessons, notes);
  const linted = index.items.filter((l) => inScope(l.path));
  // Linting a few files compares just those with the rest; the whole tree goes through the pair search.
  const pairs =
    linted.length < index.items.length
      ? linted.flatMap((l) =>
          index
            .similarTo(similarityTerms(l, notes), min)
            .filter((s) => s.item !== l && !(inScope(s.item.path) && s.item.path < l.path))
            .map((s) => ({ a: l, b: s.item, similarity: s.similarity })),
        )
      : index.pairs(min);
  for (const { a, b, similarity } of pairs) {
    report(
      a.path,
      undefined,
      "content/near-duplicate",
      `this lesson says much the same as ${b.id} "${b.title}" (${b.path}, similarity ${similarity}); merge them with \`rkb edit\` and \`rkb supersede\`, or make the difference clear in the titles`,
      "warning",
    );
  }
}

type Report = (path: string, line: number | undefined, rule: string, message: string, severity?: Finding["severity"]) => void;

function loadConfig(tree: Tree, report: Report | undefined): KbConfig {
  if (tree.exists("kb.toml")) {
    try {
      return parseKbToml(tree.text("kb.toml"));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      report?.("kb.toml", e.line, "config/invalid", `${e.message}; fix kb.toml (\`rkb init\` in an empty folder writes the default)`);
    }
  }
  return parseKbToml(DEFAULT_KB_TOML);
}

/** Parses a lesson; when it does not parse, reports why and still scans its text for leaks. */
function readLesson(tree: Tree, rel: string, leaks: LeakOptions, report: Report | undefined): Lesson | undefined {
  let text: string;
  try {
    text = tree.text(rel);
  } catch (e) {
    report?.(rel, undefined, "format/parse", `cannot read the file (${(e as Error).message}); check that it exists and is readable`);
    return undefined;
  }
  let problems: { line: number; message: string }[];
  try {
    const lesson = parseLesson(text, rel);
    // A value the Rust rkb's reader refuses makes the file unreadable there: `format/parse` for each, no other rule.
    problems = unreadableValues(lesson);
    if (!problems.length) return lesson;
  } catch (e) {
    if (!(e instanceof LessonParseError)) throw e;
    problems = [e];
  }
  if (report) {
    for (const problem of problems) report(rel, problem.line, "format/parse", problem.message);
    // Conflict markers in the frontmatter are the likely reason it does not parse.
    for (const f of conflictFindings(rel, text)) report(rel, f.line, f.rule, f.message);
    leakFindings(rel, text, leaks, report);
  }
  return undefined;
}

const NOTE_LISTS = ["aliases", "remotes", "hostname"];
const NOTE_STRING_MAPS = ["match_env", "facts"];

/** Parses a folder note and checks its frontmatter values; undefined when it does not parse. */
function readNote(text: string, rel: string, config: KbConfig, report: Report | undefined): FolderNote | undefined {
  let note: FolderNote;
  try {
    note = parseNote(text, rel);
  } catch (e) {
    if (!(e instanceof LessonParseError)) throw e;
    report?.(rel, e.line, "config/invalid", e.message.replace("the frontmatter", "the note's frontmatter"));
    return undefined;
  }
  if (!report) return note;
  if (note.role === "misplaced") {
    report(rel, undefined, "layout/depth", "a folder note belongs only in a scope, project, system or topic folder; move it up or remove it");
  }
  const keyLine = (key: string) => keyLineIn(text, key);
  const invalid = (key: string, message: string, line = keyLine(key)) => report(rel, line, "config/invalid", message);
  for (const key of NOTE_LISTS) {
    const value = note.data[key];
    if (value !== undefined && (!Array.isArray(value) || value.some((v) => typeof v !== "string")))
      invalid(key, `\`${key}\` must be a list of texts, one \`- item\` per line (quote numbers)`);
  }
  for (const key of NOTE_STRING_MAPS) {
    const value = note.data[key];
    if (value === undefined) continue;
    if (!isStringMap(value)) invalid(key, `\`${key}\` must be a map of \`name: "text"\` lines; quote values such as versions so YAML keeps them as written`);
  }
  if (note.data.retired !== undefined && typeof note.data.retired !== "boolean") invalid("retired", "`retired` must be `true` or `false`");
  if (note.data.root_commit !== undefined && !(typeof note.data.root_commit === "string" && /^[0-9a-f]{7,40}$/.test(note.data.root_commit))) {
    invalid("root_commit", "`root_commit` must be the repository's first commit as 7 to 40 lowercase hex characters (`git rev-list --max-parents=0 HEAD`)");
  }
  if (note.data.meta !== undefined && (note.data.meta === null || typeof note.data.meta !== "object" || Array.isArray(note.data.meta)))
    invalid("meta", "`meta` must be a map of `key: value` lines");
  const labelsLine = keyLine("labels");
  labelFindings(
    note.data.labels,
    config.labels,
    (line, message) => report(rel, line, "labels/unknown", message),
    labelsLine,
    (key) => (labelsLine ? nestedLine(text, labelsLine, key) : undefined),
  );
  if (/^---\r?\n/.test(text)) {
    for (const line of flowStyleLines(splitFrontmatter(text, rel).yaml)) {
      report(rel, line + 1, "format/flow-style", "write this list or map in block style (one item per line); `rkb lint --fix` does it for you", "warning");
    }
  }
  return note;
}

/** The 1-based line of a top-level `key:` in a file's frontmatter. */
/** The line of a frontmatter key in a note's text (the body is not searched). */
function keyLineIn(text: string, key: string): number | undefined {
  return /^---\r?\n/.test(text) ? frontmatterKeyLines(splitFrontmatter(text, "").yaml)[key] : undefined;
}

function isStringMap(value: YamlValue): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
}

function noteBody(text: string, rel: string): { body: string; bodyLine: number } {
  if (!/^---\r?\n/.test(text)) return { body: text, bodyLine: 1 };
  const { body, bodyLine } = splitFrontmatter(text, rel);
  return { body, bodyLine };
}

interface ResolvedLink {
  /** Path inside the knowledge base, or null when the link leaves it. */
  target: string | null;
  raw: string;
  line: number;
}

/** Relative links of a file, resolved against its folder. */
function resolveLinks(from: string, links: { target: string; line: number }[], bodyLine: number): ResolvedLink[] {
  const resolved: ResolvedLink[] = [];
  for (const link of links) {
    const target = resolveLink(from, link.target);
    if (target !== undefined) resolved.push({ target, raw: link.target, line: bodyLine + link.line - 1 });
  }
  return resolved;
}

function brokenLinks(tree: Tree, rel: string, links: ResolvedLink[], report: Report): void {
  for (const link of links) {
    if (link.target === null)
      report(rel, link.line, "links/broken", `the link \`${link.raw}\` points outside the knowledge base; link to a file inside it or use a full URL`);
    else if (link.target !== "" && !tree.exists(link.target))
      report(
        rel,
        link.line,
        "links/broken",
        `the link \`${link.raw}\` points to ${link.target}, which does not exist; fix the path (it is relative to this file's folder) or remove the link`,
      );
  }
}

function leakFindings(rel: string, text: string, opts: LeakOptions, report: Report): void {
  const what: Record<string, string> = {
    "leak/username": "a user name",
    "leak/email": "an e-mail address",
    "leak/path": "a personal or site path",
    "leak/job-id": "a batch job id",
  };
  for (const leak of findLeaks(text, opts)) {
    if (leak.rule === "leak/secret") {
      report(rel, leak.line, leak.rule, secretMessage(leak));
      continue;
    }
    const hint = leak.rule === "leak/path" ? "write it with a variable such as `$HOME/…` or `$SCRATCH/…`" : "replace it with a placeholder";
    report(rel, leak.line, leak.rule, `\`${leak.text}\` looks like ${what[leak.rule]}; ${hint}, or add the exact text to kb.toml [leak] allow if it is public`);
  }
}

/** `dir/slug.assets/x.png` belongs to `dir/slug.md`. */
function owningLesson(asset: string): string {
  const parts = asset.split("/");
  const folder = parts.findIndex((p) => p.endsWith(".assets"));
  return [...parts.slice(0, folder), parts[folder]!.replace(/\.assets$/, ".md")].join("/");
}

function assetFindings(tree: Tree, rel: string, linked: Set<string>, unreadable: Set<string>, leaks: LeakOptions, report: Report): void {
  const ext = rel.slice(rel.lastIndexOf(".") + 1).toLowerCase();
  if (!ASSET_TYPES.includes(ext)) {
    report(rel, undefined, "assets/type", `only images (${ASSET_TYPES.join(", ")}) belong in a .assets folder; convert it or remove it`);
  }
  const size = tree.size(rel);
  if (size > MAX_ASSET_BYTES)
    report(rel, undefined, "assets/size", `the file is ${(size / MAX_ASSET_BYTES).toFixed(1)} MiB, more than 1 MiB; shrink or compress it`);
  if (!linked.has(rel) && !unreadable.has(owningLesson(rel)))
    report(
      rel,
      undefined,
      "assets/unlinked",
      `no lesson links to this file; link it from ${owningLesson(rel)} (\`![what it shows](${rel.split("/").slice(-2).join("/")})\`) or remove it`,
    );
  if (ext === "svg") leakFindings(rel, tree.text(rel), leaks, report);
}

function folderNameFindings(files: string[], report: Report): void {
  const seen = new Set<string>();
  for (const rel of files) {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length - 1; i++) {
      if (parts[i]!.endsWith(".assets")) break;
      const folder = parts.slice(0, i + 1).join("/");
      if (seen.has(folder)) continue;
      seen.add(folder);
      if (!FOLDER_NAME.test(parts[i]!)) {
        const suggestion = folderNameLike(parts[i]!);
        report(
          folder,
          undefined,
          "layout/folder-name",
          `folder names are lowercase letters and digits joined by single dashes; rename \`${parts[i]}\`${suggestion ? ` (e.g. to \`${suggestion}\`)` : ""}`,
        );
      }
    }
  }
}

function duplicateIds(lessons: Lesson[], report: Report): void {
  const byId = new Map<string, string[]>();
  for (const l of lessons) if (l.id) byId.set(l.id, [...(byId.get(l.id) ?? []), l.path]);
  for (const [id, paths] of byId) {
    if (paths.length < 2) continue;
    for (const path of paths) {
      const line = lessons.find((l) => l.path === path)!.keyLines.id;
      report(
        path,
        line,
        "format/duplicate-id",
        `the id \`${id}\` is also used by ${paths.filter((p) => p !== path).join(", ")}; give one of them a new id of 10 lowercase hex characters`,
      );
    }
  }
}

/** The topic folder a lesson or note path sits in, if any: general/<t> or <scope>/<name>/<t>. */
function topicFolder(rel: string): string | undefined {
  const parts = rel.split("/");
  const depth = lessonDepth(parts[0]!);
  return parts.length >= depth ? parts.slice(0, depth - 1).join("/") : undefined;
}

/** Topics are known by their folder name across the knowledge base, so an alias may name only one of them. */
function aliasFindings(files: string[], notes: { note: FolderNote; text: string }[], report: Report): void {
  const claims = new Map<string, FolderNote[]>();
  const aliasesLine = new Map(notes.map(({ note, text }) => [note.path, keyLineIn(text, "aliases")]));
  for (const { note } of notes) {
    if (note.role !== "topic") continue;
    for (const alias of note.aliases) claims.set(alias, [...(claims.get(alias) ?? []), note]);
  }
  const topicName = (note: FolderNote) => note.folder.split("/").at(-1)!;
  for (const [alias, claimants] of claims) {
    const topics = [...new Set(claimants.map(topicName))];
    if (topics.length < 2) continue;
    for (const note of claimants) {
      const others = topics.filter((t) => t !== topicName(note));
      report(
        note.path,
        aliasesLine.get(note.path),
        "layout/alias",
        `the alias \`${alias}\` is also claimed by the topic ${others.map((t) => `\`${t}\``).join(", ")}; keep it on one topic only`,
      );
    }
  }
  const folders = new Set<string>();
  for (const rel of files) {
    const kind = classify(rel);
    const folder = kind === "lesson" || kind === "note" ? topicFolder(rel) : undefined;
    if (folder) folders.add(folder);
  }
  for (const folder of folders) {
    const name = folder.split("/").at(-1)!;
    const owner = claims.get(name)?.find((note) => topicName(note) !== name);
    if (owner)
      report(
        folder,
        undefined,
        "layout/alias",
        `\`${name}\` is an alias of the topic \`${topicName(owner)}\` (${owner.path}); move these lessons into a \`${topicName(owner)}\` folder or remove the alias`,
      );
  }
}
