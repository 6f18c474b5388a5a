import { dirname } from "node:path";
import { RkbError, usageError } from "../base/errors.ts";
import { editDistance } from "../text/distance.ts";
import { shown } from "../base/fsutil.ts";
import { isFolderName, MAX_FOLDER_NAME } from "../base/folder-name.ts";
import { lessonDepth, scopeFolder } from "../lesson/layout.ts";
import {
  contentHash,
  isLessonType,
  isMap,
  LessonParseError,
  newId,
  parseLesson,
  serializeLesson,
  splitFrontmatter,
  parseYamlMap,
  frontmatterKeyLines,
  refuseUnknownKeys,
  idsAsWritten,
  type Frontmatter,
  type Lesson,
} from "../lesson/lesson.ts";
import { today } from "../kb/open.ts";
import { LESSON_ID } from "../lesson/schema.ts";
import { loadKbConfig } from "../lesson/config.ts";
import { contentKey, searchIndexSimilarity, similarityTerms, type Comparable, type SimilarityIndex } from "../search/similarity.ts";
import { loadIndex } from "../kb/index.ts";
import type { Kb } from "../kb/store.ts";
import type { Finding } from "../lesson/finding.ts";
import type { Plan } from "../write/write.ts";
import type { YamlValue } from "../lesson/yaml.ts";
import type { FieldLine } from "../lesson/compose.ts";
import { asGiven, inFields } from "./as-given.ts";

// Plans for every change to a lesson: what the files become and the commit message. They read the
// knowledge base as it is under the write lock and never touch the disk themselves.

export interface LessonWrite {
  action: string;
  id: string;
  path: string;
  title: string;
  notes: string[];
}

const FORBIDDEN_ON_ADD = ["id", "schema", "status", "superseded_by", "stale_reason"];

/** Longest file name (without `.md`) rkb gives a lesson. */
export const MAX_SLUG = 60;

export function slugify(title: string): string {
  const words = title.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  let slug = "";
  for (const w of words) {
    const next = slug ? `${slug}-${w}` : w;
    if (next.length > MAX_SLUG) break;
    slug = next;
  }
  return slug || "lesson";
}

export interface AddInput {
  /** The lesson as a file (stdin of `rkb add`), or as values already (built from fields, with the field of each body line when known). */
  lesson: { text: string } | { frontmatter: Record<string, YamlValue>; body: string; fieldLines?: (FieldLine | undefined)[] };
  topic: string;
  type?: string;
  /** Frontmatter given as flags beside a lesson's text (`rkb add --tag x < lesson.md`): added to its own. */
  flags?: { tags?: string[]; queries?: string[]; when?: Record<string, string>; verified_how?: string };
  source: Record<string, string>;
  /** The environment, for where the search index cache lives (similar lessons come from it). */
  env?: NodeJS.ProcessEnv;
  /** What errors call the text (default `<stdin>`), e.g. the file an import read it from. */
  name?: string;
  /** What errors call a field of a lesson built from fields (`--cause` on the command line, `` `cause` `` in a tool call); without it they name the file. */
  fieldName?: (field: string) => string;
  /** A lesson from elsewhere (`rkb import`): it may bring its schema, status and id (kept when free). */
  imported?: boolean;
  /** The lookups of a batch of adds (`rkb import`), built once and kept current by the batch. */
  batch?: AddLookups;
  /** File name (without .md) to use instead of one made from the title, e.g. an imported file's own. */
  slug?: string;
  /** The id to give the lesson when no lesson has it (`rkb propose` names a proposal after its failure, so every run names it alike). */
  id?: string;
}

/**
 * What an add looks up in the knowledge base: lessons by content, ids, files, topic folders, similar
 * lessons. Built once per plan; a batch of adds (`rkb import`) keeps one and tells it of each lesson
 * it plans (`planned`), so n adds cost n lookups, not n scans of the knowledge base.
 */
export class AddLookups {
  private readonly byContent = new Map<string, Lesson>();
  private readonly ids = new Set<string>();
  private readonly files: Set<string>;
  private readonly topics = new Map<string, Set<string>>();
  readonly similarity: SimilarityIndex<Comparable>;
  readonly minSimilarity: number;

  constructor(
    private readonly kb: Kb,
    env?: NodeJS.ProcessEnv,
  ) {
    for (const l of kb.lessons) this.learn(l);
    this.files = new Set(kb.files);
    this.similarity = searchIndexSimilarity(loadIndex(kb.root, env));
    this.minSimilarity = loadKbConfig(kb.root).dupesMinSimilarity;
  }

  private learn(lesson: Lesson): void {
    const key = contentKey(lesson.body);
    if (!this.byContent.has(key)) this.byContent.set(key, lesson);
    this.ids.add(lesson.id);
  }

  sameContent(lesson: Lesson): Lesson | undefined {
    return this.byContent.get(contentKey(lesson.body));
  }

  taken(id: string): boolean {
    return this.ids.has(id);
  }

  hasFile(rel: string): boolean {
    return this.files.has(rel);
  }

  /** The topic folders of a scope (`general/git`, `projects/p/cmake`). */
  topicFolders(scope: string): Set<string> {
    let folders = this.topics.get(scope);
    if (!folders) {
      folders = topicFoldersOf(this.kb.files, scope);
      this.topics.set(scope, folders);
    }
    return folders;
  }

  /** Records a lesson the batch plans to write, so the next add sees it. */
  planned(lesson: Lesson): void {
    this.learn(lesson);
    this.files.add(lesson.path);
    const folder = lesson.path.slice(0, lesson.path.lastIndexOf("/"));
    for (const [scope, folders] of this.topics) if (folder.startsWith(scope + "/")) folders.add(folder);
  }
}

/** The topic folders of a scope (`general/git`, `projects/p/cmake`) among the knowledge base's files. */
export function topicFoldersOf(files: string[], scope: string): Set<string> {
  const depth = lessonDepth(scope) - 1;
  return new Set(
    files
      .filter((f) => f.startsWith(scope + "/"))
      .map((f) => f.split("/").slice(0, depth).join("/"))
      .filter((f) => f.split("/").length === depth && !f.endsWith(".md")),
  );
}

/** Resolves a topic (`git`, `general/git`, or an alias from a topic note) to its folder under scope. */
export function topicFolder(kb: Kb, look: Pick<AddLookups, "topicFolders">, scope: string, topic: string, notes: string[]): string {
  const t = topic.replace(/\/+$/, "");
  let folder: string;
  if (t.includes("/")) {
    if (!t.split("/").every(isFolderName)) throw badTopic(t);
    if (!t.startsWith(scope + "/") || t.split("/").length !== scope.split("/").length + 1)
      throw new RkbError(
        "refused",
        `topic folder ${shown(t)} is not under ${scope}, where this lesson's \`when\` puts it`,
        `name the topic as ${scope}/<topic> or just by its name`,
      );
    folder = t;
  } else {
    const aliased = kb.notes.find((n) => n.role === "topic" && n.folder.startsWith(scope + "/") && n.aliases.includes(t));
    if (aliased) return aliased.folder;
    if (!isFolderName(t)) throw badTopic(t);
    folder = `${scope}/${t}`;
  }
  const name = folder.split("/").pop()!;
  const existing = look.topicFolders(scope);
  if (!existing.has(folder)) {
    notes.push(`new topic folder ${folder}`);
    const close = [...existing]
      .map((f) => f.split("/").pop()!)
      .filter((n) => editDistance(n, name) <= Math.max(1, Math.floor(name.length / 4)))
      .slice(0, 3);
    if (close.length)
      notes.push(
        `the topic is close to ${close.map((c) => `${scope}/${c}`).join(", ")}; if it is the same topic, \`rkb move <id> ${scope}/${close[0]}\` puts the lesson there`,
      );
  }
  return folder;
}

function badTopic(topic: string): RkbError {
  return usageError(
    `topic ${shown(topic)} is not a folder name rkb may create`,
    `name one topic folder of lowercase letters, digits and single dashes, at most ${MAX_FOLDER_NAME} characters, e.g. build-tools or general/build-tools; nothing was written`,
  );
}

/** `when.project` and `when.system` name the folder the lesson goes in, so they must be plain folder names. */
function requireScopeNames(when: Record<string, unknown>): void {
  for (const [key, scope] of [
    ["project", "projects"],
    ["system", "systems"],
  ] as const) {
    const value = when[key];
    if (typeof value === "string" && !isFolderName(value)) {
      throw usageError(
        `\`when.${key}\` is ${shown(value)}, which is not the name of a folder under ${scope}/`,
        `set \`when.${key}\` to the ${key}'s folder name: lowercase letters, digits and single dashes, e.g. \`${key}: my-${key}\`; nothing was written`,
      );
    }
  }
}

/** A lesson's frontmatter with the flags given beside it: tags and queries added, a `when` key or `verified_how` set unless the lesson says otherwise. */
function withFlags(fm: Record<string, YamlValue>, flags: NonNullable<AddInput["flags"]>): Record<string, YamlValue> {
  const out = { ...fm };
  const list = (v: YamlValue | undefined) => (Array.isArray(v) ? v.map(String) : []);
  for (const key of ["tags", "queries"] as const) {
    const given = (flags[key] ?? []).map((s) => s.trim()).filter(Boolean);
    if (given.length) out[key] = [...new Set([...list(out[key]), ...given])];
  }
  const when = isMap(out.when) ? { ...out.when } : {};
  for (const [key, value] of Object.entries(flags.when ?? {})) {
    if (when[key] !== undefined && String(when[key]) !== value)
      throw usageError(`--when ${key}=${value} disagrees with \`when.${key}: ${when[key]}\` in the lesson`, "drop one of them");
    when[key] = value;
  }
  if (Object.keys(when).length) out.when = when;
  if (flags.verified_how) {
    if (out.verified_how !== undefined && out.verified_how !== flags.verified_how)
      throw usageError(`--verified-how ${flags.verified_how} disagrees with \`verified_how: ${out.verified_how}\` in the lesson`, "drop one of them");
    out.verified_how = flags.verified_how;
  }
  return out;
}

/** A lesson given on stdin or by a tool that does not parse: an invalid lesson naming the line, not a crash. */
function invalidInput(e: unknown): never {
  if (e instanceof LessonParseError)
    throw new RkbError("invalid_lesson", `${e.path}:${e.line}: ${e.message}`, "fix the lesson and try again; nothing was written");
  throw e;
}

export function planAdd(kb: Kb, input: AddInput): Plan<LessonWrite> {
  try {
    return planAddParsed(kb, input);
  } catch (e) {
    return invalidInput(e);
  }
}

function planAddParsed(kb: Kb, input: AddInput): Plan<LessonWrite> {
  const name = input.name ?? "<stdin>";
  let fm: Record<string, YamlValue> = {};
  let body: string;
  let keyLines: Record<string, number> = Object.create(null);
  if ("text" in input.lesson) {
    // Lines end in LF in the knowledge base; a lesson written on Windows would otherwise mix both.
    body = input.lesson.text.replace(/\r\n/g, "\n");
    if (body.includes("\0")) {
      throw new RkbError(
        "invalid_lesson",
        `${name}:${body.slice(0, body.indexOf("\0")).split("\n").length}: the lesson holds a NUL byte`,
        "remove it: a lesson is text, and git would take the file for binary; nothing was written",
      );
    }
    if (/^---\r?\n/.test(body)) {
      const split = splitFrontmatter(body, name);
      fm = parseYamlMap(split.yaml, name, 2);
      keyLines = frontmatterKeyLines(split.yaml);
      idsAsWritten(fm, split.yaml);
      body = split.body;
    }
  } else {
    fm = input.lesson.frontmatter;
    body = input.lesson.body;
  }
  // Checked here, before the frontmatter is rebuilt from the known keys and would drop the others.
  refuseUnknownKeys(fm, name, keyLines);
  if (input.flags) fm = withFlags(fm, input.flags);
  for (const key of input.imported ? [] : FORBIDDEN_ON_ADD) {
    if (key in fm) throw new RkbError("refused", `a new lesson must not set \`${key}\`; rkb sets it`, `remove \`${key}\` from the frontmatter`);
  }
  if (fm.schema !== undefined && fm.schema !== 1)
    throw new RkbError("refused", `the lesson has \`schema: ${fm.schema}\`; rkb reads schema 1`, "convert it to schema 1, or leave it out");
  if (fm.verified_how === "checked") throw new RkbError("refused", "`verified_how: checked` is set only by a passing check", "use ran, read or told");
  const type = String(fm.type ?? input.type ?? "");
  if (input.type && fm.type && fm.type !== input.type)
    throw usageError(`--type ${input.type} disagrees with \`type: ${fm.type}\` in the lesson`, "drop one of them");
  if (!isLessonType(type))
    throw usageError(
      type ? `unknown lesson type \`${type}\`` : "the lesson has no type",
      `set \`type:\` in the frontmatter${input.imported ? "" : " or --type"} to pitfall, recipe, fact, decision or preference`,
    );
  body = body.replace(/^\s*\n/, "\n");
  if (!body.startsWith("\n")) body = "\n" + body;
  if (!body.endsWith("\n")) body += "\n";
  const look = input.batch ?? new AddLookups(kb, input.env);
  const taken = (candidate: string) => look.taken(candidate);
  const notes: string[] = [];
  // An imported lesson keeps its id when no lesson has it, so links and `superseded_by` elsewhere still find it.
  const own = input.id ?? (input.imported && typeof fm.id === "string" && LESSON_ID.test(fm.id) ? fm.id : undefined);
  const id = own && !taken(own) ? own : newId(taken);
  if (own && id !== own) notes.push(`its id ${own} is taken by another lesson, so it gets the new id ${id}`);
  const meta = isMap(fm.meta) ? { ...fm.meta } : {};
  // A lesson from elsewhere keeps where it was first written, if it says.
  if (!(input.imported && isMap(meta.source))) meta.source = input.source;
  const frontmatter: Frontmatter = {
    ...fm,
    schema: 1,
    id,
    type,
    status: input.imported && typeof fm.status === "string" ? fm.status : "active",
    verified: (fm.verified as string) ?? today(),
    verified_how: (fm.verified_how as string) ?? "ran",
    meta,
  };
  const text = serializeLesson(frontmatter, body);
  const lesson = parseLesson(text, "<new>");
  if (!lesson.title) throw new RkbError("invalid_lesson", "the lesson has no `# Title` line", "start the body with one `# Title` heading");
  requireScopeNames(lesson.when);
  const scope = scopeFolder(lesson.when);
  const folder = topicFolder(kb, look, scope, input.topic, notes);
  const slug = input.slug ?? slugify(lesson.title);
  let rel = `${folder}/${slug}.md`;
  for (let n = 2; look.hasFile(rel); n++) rel = `${folder}/${slug}-${n}.md`;
  const same = look.sameContent(lesson);
  if (same) {
    throw new RkbError(
      "refused",
      `this lesson is already in the knowledge base as ${same.id} "${same.title}" (${same.path}, ${same.status})`,
      same.status === "archived"
        ? `bring it back with \`rkb unarchive ${same.id}\``
        : `change that lesson instead: \`rkb show ${same.id}\` prints its hash for \`rkb edit ${same.id} --base <hash>\``,
    );
  }
  const similar = look.similarity.similarTo(similarityTerms(lesson, kb.notes), look.minSimilarity).slice(0, 3);
  for (const s of similar)
    notes.push(
      `looks like ${s.item.id} "${s.item.title}" (${s.item.path}, similarity ${s.similarity}); consider merging them with \`rkb edit\` and \`rkb supersede\``,
    );
  const given = "text" in input.lesson ? { name, text: input.lesson.text } : undefined;
  // Only a caller that wrote the fields (add, rkb_add) has them named; a lesson rkb built (propose) keeps its path.
  const fieldLines = "fieldLines" in input.lesson ? input.lesson.fieldLines : undefined;
  const fields = fieldLines && input.fieldName ? { lines: fieldLines, name: input.fieldName } : undefined;
  return {
    changes: [{ rel, text }],
    ...(given ? { given: { rel, asGiven: (f: Finding) => asGiven(given, { rel, text }, f) } } : {}),
    ...(fields ? { given: { rel, asGiven: (f: Finding) => inFields(fields.lines, fields.name, text, f) } } : {}),
    message: `add(${folder}): ${lesson.title} [${id}]`,
    result: { action: "add", id, path: rel, title: lesson.title, notes },
  };
}

export interface EditInput {
  lesson: Lesson;
  base: string;
  text: string;
  source: Record<string, string>;
}

export function planEdit(input: EditInput): Plan<LessonWrite | { unchanged: true; id: string; path: string }> {
  const { lesson } = input;
  const current = contentHash(lesson.raw);
  if (input.base !== current) {
    throw new RkbError(
      "conflict",
      `${lesson.path} changed since you read it: its hash is now ${current}, not ${input.base}`,
      `run \`rkb show ${lesson.id}\` again, redo your edit on the new text and pass --base ${current}`,
    );
  }
  if (input.text === lesson.raw) return { changes: [], message: "", result: { unchanged: true, id: lesson.id, path: lesson.path } };
  if (input.text.includes("\0"))
    throw new RkbError("invalid_lesson", `${lesson.path}: the new text holds a NUL byte`, "remove it: a lesson is text; nothing was written");
  let next: Lesson;
  try {
    next = parseLesson(input.text, lesson.path);
  } catch (e) {
    return invalidInput(e);
  }
  const fm = { ...next.frontmatter };
  for (const key of ["id", "schema"] as const) {
    // A text without the key is the lesson in add's form, not the file edit replaces.
    if (fm[key] === undefined)
      throw new RkbError(
        "refused",
        `the new text has no \`${key}:\`; edit takes the whole lesson file, frontmatter and all`,
        `start from the file as it is (${lesson.path} in the knowledge base) and keep \`${key}: ${lesson.frontmatter[key]}\``,
      );
    if (String(fm[key]) !== String(lesson.frontmatter[key]))
      throw new RkbError("refused", `\`${key}\` cannot change (it is ${lesson.frontmatter[key]})`, `keep \`${key}: ${lesson.frontmatter[key]}\``);
  }
  if (fm.verified_how === "checked" && lesson.frontmatter.verified_how !== "checked") {
    throw new RkbError("refused", "`verified_how: checked` is set only by a passing check", "use ran, read or told");
  }
  const revive = lesson.status === "stale" && next.sections.get("Evidence") !== lesson.sections.get("Evidence");
  for (const key of ["status", "superseded_by", "stale_reason"] as const) {
    if (revive) continue;
    if (JSON.stringify(fm[key]) !== JSON.stringify(lesson.frontmatter[key])) {
      throw new RkbError(
        "refused",
        `\`${key}\` cannot change with edit`,
        "use `rkb flag`, `rkb supersede`, `rkb archive` or `rkb unarchive`; a stale lesson becomes active again when its Evidence changes",
      );
    }
  }
  if (revive) {
    fm.status = "active";
    delete fm.stale_reason;
  }
  const meta = isMap(fm.meta) ? { ...fm.meta } : {};
  meta.edited_by = input.source;
  fm.meta = meta;
  const text = serializeLesson(fm, next.body.replace(/\r\n/g, "\n"));
  return {
    changes: [{ rel: lesson.path, text }],
    message: `edit(${dirname(lesson.path)}): ${next.title} [${lesson.id}]`,
    result: {
      action: "edit",
      id: lesson.id,
      path: lesson.path,
      title: next.title,
      notes: revive ? ["the Evidence changed, so the lesson is active again"] : [],
    },
  };
}
