import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { pathInside, shown } from "../base/fsutil.ts";
import { RkbError, usageError } from "../base/errors.ts";
import { MAX_SLUG, slugify, topicFolder, topicFoldersOf, type LessonWrite } from "./changes.ts";
import { FOLDER_NAME, isFolderName } from "../base/folder-name.ts";
import { classify, lessonDepth } from "../lesson/layout.ts";
import { LessonParseError, splitFrontmatter, type Lesson } from "../lesson/lesson.ts";
import { rewriteLinks } from "../lesson/links.ts";
import { SCOPES } from "../lesson/schema.ts";
import type { Kb } from "../kb/store.ts";
import type { Change, Plan } from "../write/write.ts";

// Plans for `rkb move` and `rkb rename`: the lesson file and its `<slug>.assets/` folder go to a new
// path in one commit, and every relative link to them (in all lessons and folder notes), and the
// lesson's own links, are rewritten so they still point where they did. Lint of the result (run by
// the write) refuses a place that breaks a rule, such as a project lesson moved to general/.

export type Relocated = LessonWrite | { unchanged: true; id: string; path: string; message: string };

export function planMove(kb: Kb, lesson: Lesson, topic: string): Plan<Relocated> {
  const t = topic.trim().replace(/\/+$/, "");
  const notes: string[] = [];
  // A full folder names its scope itself (a wrong one is lint's layout/scope); a bare topic or alias stays in the lesson's scope.
  const topics = { topicFolders: (scope: string) => topicFoldersOf(kb.files, scope) };
  const folder = topicFolder(kb, topics, t.includes("/") ? scopeOfTopicFolder(t) : scopeOf(lesson.path), t, notes);
  const to = `${folder}/${posix.basename(lesson.path)}`;
  if (to === lesson.path) return unchanged(lesson, `${lesson.id} is already in ${folder}`);
  const moved = relocation(kb, lesson, to, lesson.body);
  return {
    changes: moved.changes,
    incidental: moved.incidental,
    message: `move(${folder}): ${lesson.title} [${lesson.id}]`,
    result: { action: "move", id: lesson.id, path: to, title: lesson.title, notes: [`moved from ${lesson.path}`, ...notes, ...moved.notes] },
  };
}

export interface RenameTo {
  /** The new title: the `# Title` line changes and the file name follows it. */
  title?: string;
  /** Only the file name (the Rust rkb's `rkb rename <id> <slug>`). */
  slug?: string;
}

export function planRename(kb: Kb, lesson: Lesson, to: RenameTo): Plan<Relocated> {
  let title = lesson.title;
  let body = lesson.body;
  let slug: string;
  if (to.slug !== undefined) {
    if (!FOLDER_NAME.test(to.slug) || to.slug.length > MAX_SLUG)
      throw usageError(
        `${shown(to.slug)} is not a file name rkb gives a lesson`,
        `use lowercase letters and digits joined by single dashes, at most ${MAX_SLUG} characters, e.g. --slug cmake-needs-zlib-root`,
      );
    slug = to.slug;
  } else {
    title = (to.title ?? "").replace(/\s+/g, " ").trim();
    if (!title) throw usageError("`rkb rename` needs the new title", 'e.g. rkb rename 7f3a9c2b41 "CMake needs ZLIB_ROOT for zlib in /opt"');
    // The Rust rkb's `rename <id> <slug>` must not turn a file name into the title.
    if (FOLDER_NAME.test(title) && title.includes("-"))
      throw usageError(
        `${shown(title)} looks like a file name, not a title`,
        `to rename only the file, run \`rkb rename ${lesson.id} --slug ${title}\`; to change the title, give it in words`,
      );
    body = retitled(lesson, title);
    slug = slugify(title);
  }
  const rel = `${posix.dirname(lesson.path)}/${slug}.md`;
  if (rel === lesson.path && body === lesson.body) return unchanged(lesson, `${lesson.id} already has this ${to.slug !== undefined ? "file name" : "title"}`);
  const renamed = relocation(kb, lesson, rel, body);
  const notes = rel === lesson.path ? ["the file name stays: the new title gives the same one"] : [`renamed from ${lesson.path}`];
  return {
    changes: renamed.changes,
    incidental: renamed.incidental,
    message: `rename(${posix.dirname(rel)}): ${title} [${lesson.id}]`,
    result: { action: "rename", id: lesson.id, path: rel, title, notes: [...notes, ...renamed.notes] },
  };
}

function unchanged(lesson: Lesson, message: string): Plan<Relocated> {
  return { changes: [], message: "", result: { unchanged: true, id: lesson.id, path: lesson.path, message } };
}

/** The scope folder a lesson path is in: general, projects/<p> or systems/<s>. */
function scopeOf(rel: string): string {
  const parts = rel.split("/");
  return parts[0] === "general" ? "general" : parts.slice(0, 2).join("/");
}

/** The scope of a full topic folder (`general/rust`, `projects/p/cmake`), which must be one. */
function scopeOfTopicFolder(folder: string): string {
  const parts = folder.split("/");
  const scope = parts[0]!;
  if (!(SCOPES as readonly string[]).includes(scope) || parts.length !== lessonDepth(scope) - 1 || !parts.every(isFolderName))
    throw usageError(
      `${shown(folder)} is not a topic folder of the knowledge base`,
      "name a topic (cmake), or a full topic folder: general/<topic>, projects/<project>/<topic> or systems/<system>/<topic>; nothing was written",
    );
  return parts[0] === "general" ? "general" : parts.slice(0, 2).join("/");
}

/** The body with its `# Title` line replaced; every other byte stays. */
function retitled(lesson: Lesson, title: string): string {
  const heading = lesson.scan.headings.find((h) => h.level === 1);
  if (!heading) throw new RkbError("invalid_lesson", `${lesson.path} has no \`# Title\` line`, "add one with `rkb edit`, then rename it");
  const lines = lesson.body.split("\n");
  const old = lines[heading.line - 1]!;
  lines[heading.line - 1] = `# ${title}${old.endsWith("\r") ? "\r" : ""}`;
  return lines.join("\n");
}

const assetsOf = (rel: string) => rel.replace(/\.md$/, ".assets");

/**
 * Whether anything (a file, a link, a folder with something in it) is at rel; a symlink is not
 * followed. An empty folder is free: git does not keep one, and a move killed after its commit may
 * leave its old folders behind.
 */
function taken(root: string, rel: string): boolean {
  try {
    return !lstatSync(join(root, rel)).isDirectory() || readdirSync(join(root, rel)).length > 0;
  } catch {
    return false;
  }
}

/**
 * The changes that put a lesson (with `body` as its new body) at `to`: its file and assets moved,
 * and the links to them rewritten in every lesson and folder note.
 */
function relocation(kb: Kb, lesson: Lesson, to: string, body: string): { changes: Change[]; notes: string[]; incidental: string[] } {
  const from = lesson.path;
  const [fromAssets, toAssets] = [assetsOf(from), assetsOf(to)];
  const moves = to !== from;
  if (moves) {
    for (const target of [to, toAssets]) {
      if (taken(kb.root, target)) throw new RkbError("refused", `${target} already exists`, "pick another topic, title or --slug; nothing was written");
    }
  }
  const moved = (target: string) =>
    target === from ? to : target === fromAssets || target.startsWith(fromAssets + "/") ? toAssets + target.slice(fromAssets.length) : undefined;
  const prefix = lesson.raw.slice(0, lesson.raw.length - lesson.body.length);
  const changes: Change[] = [{ rel: to, text: prefix + rewriteLinks(body, from, to, moved) }];
  const notes: string[] = [];
  if (moves) {
    changes.push({ rel: from, text: null });
    const assets = kb.files.filter((f) => f.startsWith(fromAssets + "/"));
    for (const rel of assets) {
      // pathInside refuses an asset that is a symlink: its bytes are never read from outside.
      const bytes = readFileSync(pathInside(kb.root, rel));
      changes.push({ rel, text: null }, { rel: toAssets + rel.slice(fromAssets.length), text: bytes.toString("base64"), encoding: "base64" });
    }
    if (assets.length) notes.push(`moved ${assets.length} image${assets.length > 1 ? "s" : ""} to ${toAssets}/`);
  }
  const relinked: string[] = [];
  // Every link to the lesson or its assets names its file name.
  const name = posix.basename(fromAssets, ".assets");
  for (const rel of kb.files) {
    const kind = classify(rel);
    if (rel === from || (kind !== "lesson" && kind !== "note")) continue;
    const text = readFileSync(join(kb.root, rel), "utf8");
    if (!text.includes(name)) continue;
    const split = bodyOf(text, rel);
    // A file that does not parse is lint's to report; its links are not rewritten.
    if (!split) continue;
    const rewritten = rewriteLinks(split.body, rel, rel, moved);
    if (rewritten === split.body) continue;
    changes.push({ rel, text: split.prefix + rewritten });
    relinked.push(rel);
  }
  if (relinked.length) notes.push(`rewrote the links in ${relinked.join(", ")}`);
  return { changes, notes, incidental: relinked };
}

function bodyOf(text: string, rel: string): { prefix: string; body: string } | undefined {
  if (!/^---\r?\n/.test(text)) return { prefix: "", body: text };
  try {
    const { body } = splitFrontmatter(text, rel);
    return { prefix: text.slice(0, text.length - body.length), body };
  } catch (e) {
    if (e instanceof LessonParseError) return undefined;
    throw e;
  }
}
