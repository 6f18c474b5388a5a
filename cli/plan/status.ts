import { dirname, relative } from "node:path";
import { RkbError, usageError } from "../base/errors.ts";
import { shown } from "../base/fsutil.ts";
import { refuseSecrets } from "../lint/leak.ts";
import { isMap, serializeLesson, type Frontmatter, type Lesson } from "../lesson/lesson.ts";
import { isCurrent } from "../lesson/schema.ts";
import { counted } from "../output/words.ts";
import type { Kb } from "../kb/store.ts";
import type { Plan } from "../write/write.ts";
import type { LessonWrite } from "./changes.ts";

// Plans for a lesson's status: flag, supersede, archive (one lesson or a folder), unarchive. Each
// names the lesson and the reason in its commit, and keeps the reason in the lesson's body.

function appendSection(body: string, heading: string, text: string): string {
  const base = body.endsWith("\n") ? body : body + "\n";
  return `${base}\n## ${heading}\n${text.trim()}\n`;
}

function removeSection(body: string, heading: string): string {
  const lines = body.split("\n");
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) return body;
  let end = lines.findIndex((l, i) => i > start && /^##\s/.test(l));
  if (end < 0) end = lines.length;
  const kept = [...lines.slice(0, start), ...lines.slice(end)];
  return kept
    .join("\n")
    .replace(/\n{3,}$/, "\n")
    .replace(/\n*$/, "\n");
}

function requireCurrent(lesson: Lesson, verb: string): void {
  if (!isCurrent(lesson.status)) {
    throw new RkbError(
      "refused",
      `${lesson.id} is ${lesson.status}; only active or stale lessons can be ${verb}`,
      lesson.status === "archived" ? `run \`rkb unarchive ${lesson.id}\` first` : "pick the lesson that replaced it",
    );
  }
}

function requireReason(reason: string | undefined, cmd: string): string {
  if (!reason?.trim()) throw usageError(`\`rkb ${cmd}\` needs --reason`, `say why, e.g. rkb ${cmd} <id> --reason "the flag was renamed in 2.0"`);
  if (reason.includes("\0")) throw usageError("the reason holds a NUL byte", "write the reason as plain text");
  refuseSecrets(reason, "--reason");
  return reason.trim();
}

/** A status change; its commit names the lesson in the subject and the reason in the body. */
function statusChange(lesson: Lesson, action: string, fm: Frontmatter, body: string, reason: string | undefined, notes: string[] = []): Plan<LessonWrite> {
  return {
    changes: [{ rel: lesson.path, text: serializeLesson(fm, body) }],
    message: `${action}(${dirname(lesson.path)}): ${lesson.title} [${lesson.id}]${reason ? `\n\n${reason}` : ""}`,
    result: { action, id: lesson.id, path: lesson.path, title: lesson.title, notes },
  };
}

export function planFlag(lesson: Lesson, reason: string | undefined): Plan<LessonWrite> {
  const why = requireReason(reason, "flag");
  requireCurrent(lesson, "flagged");
  return statusChange(lesson, "flag", { ...lesson.frontmatter, status: "stale", stale_reason: why }, lesson.body, why);
}

export function planSupersede(old: Lesson, by: Lesson, reason: string | undefined): Plan<LessonWrite> {
  const why = requireReason(reason, "supersede");
  if (old.id === by.id) throw new RkbError("refused", "a lesson cannot supersede itself", "pass the id of the lesson that replaces it with --by");
  requireCurrent(old, "superseded");
  requireCurrent(by, "used as a replacement");
  const fm: Frontmatter = { ...old.frontmatter, status: "superseded", superseded_by: by.id };
  delete fm.stale_reason;
  const link = relative(dirname(old.path), by.path);
  const body = appendSection(old.body, "Why superseded", `${why}\n\nReplaced by [${by.title}](${link}).`);
  return statusChange(old, "supersede", fm, body, `${why}\n\nReplaced by ${by.id} (${by.path}).`, [`${by.id} "${by.title}" replaces it`]);
}

/** Where an archived lesson keeps the reason it was stale for (`stale_reason` belongs to `status: stale` only), so unarchive brings it back stale. */
const STALE_BEFORE_ARCHIVE = "stale_before_archive";

function archivedFrontmatter(lesson: Lesson): Frontmatter {
  const fm: Frontmatter = { ...lesson.frontmatter, status: "archived" };
  if (lesson.status === "stale" && typeof fm.stale_reason === "string")
    fm.meta = { ...(isMap(fm.meta) ? fm.meta : {}), [STALE_BEFORE_ARCHIVE]: fm.stale_reason };
  delete fm.stale_reason;
  return fm;
}

export function planArchive(lesson: Lesson, reason: string | undefined): Plan<LessonWrite> {
  const why = requireReason(reason, "archive");
  requireCurrent(lesson, "archived");
  return statusChange(lesson, "archive", archivedFrontmatter(lesson), appendSection(lesson.body, "Why archived", why), why, [
    "the file stays where it is; search skips it",
  ]);
}

/** Archives every current lesson under a folder: one commit, and only after the user allows it. */
export function planArchiveFolder(kb: Kb, folder: string, reason: string | undefined): Plan<LessonWrite> {
  const why = requireReason(reason, "archive");
  const f = folder.replace(/\/+$/, "");
  const lessons = kb.lessons.filter((l) => l.path.startsWith(f + "/") && isCurrent(l.status));
  if (!lessons.length) throw new RkbError("not_found", `no active or stale lesson under ${shown(f)}`, "check the folder with `rkb list`");
  const changes = lessons.map((l) => ({ rel: l.path, text: serializeLesson(archivedFrontmatter(l), appendSection(l.body, "Why archived", why)) }));
  const n = lessons.length;
  return {
    changes,
    message: `archive(${f}): ${counted(n, "lesson")}\n\n${why}`,
    result: {
      action: "archive",
      id: lessons.map((l) => l.id).join(","),
      path: f,
      title: counted(n, "lesson"),
      notes: ["the files stay where they are; search skips them"],
    },
    ask: { question: `archive ${n === 1 ? "the 1 lesson" : `all ${n} lessons`} under ${f} (${why})?`, option: `archive ${f}` },
  };
}

export function planUnarchive(lesson: Lesson): Plan<LessonWrite> {
  if (lesson.status !== "archived") throw new RkbError("refused", `${lesson.id} is ${lesson.status}, not archived`, "only archived lessons can be unarchived");
  const fm: Frontmatter = { ...lesson.frontmatter, status: "active" };
  const meta = isMap(fm.meta) ? { ...fm.meta } : undefined;
  const stale = meta?.[STALE_BEFORE_ARCHIVE];
  if (meta && typeof stale === "string") {
    delete meta[STALE_BEFORE_ARCHIVE];
    Object.assign(fm, { status: "stale", stale_reason: stale, meta });
  }
  const notes = [typeof stale === "string" ? `the lesson is back in search, stale as before it was archived: ${stale}` : "the lesson is back in search"];
  return statusChange(lesson, "unarchive", fm, removeSection(lesson.body, "Why archived"), undefined, notes);
}
