import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { shown } from "../base/fsutil.ts";
import { RkbError } from "../base/errors.ts";
import type { LessonWrite } from "./changes.ts";
import type { KbConfig } from "../lesson/config.ts";
import { isFolderName } from "../base/folder-name.ts";
import { isMap, serializeLesson, splitFrontmatter, type Frontmatter, type Lesson } from "../lesson/lesson.ts";
import { noteRole, type FolderNote } from "../lesson/notes.ts";
import { SCOPES } from "../lesson/schema.ts";
import type { Kb } from "../kb/store.ts";
import type { Plan } from "../write/write.ts";
import { emitEntry, type YamlValue } from "../lesson/yaml.ts";

// Labels (kb.toml `[labels]`, e.g. sensitivity) decide where lessons may be published. `rkb label`
// sets or removes one on a lesson or on a folder note; a change that makes a lesson's effective label
// looser (a value earlier in the key's list: internal → public) waits for the user's yes.

/** A lesson's labels: `sensitivity: internal`, then folder-note labels from the scope down to its folder, then its own. */
export function effectiveLabels(notes: FolderNote[], folder: string, own: Record<string, string>): Record<string, string> {
  const labels: Record<string, string> = { sensitivity: "internal" };
  const parts = folder.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const note = notes.find((n) => n.folder === parts.slice(0, i).join("/"));
    if (note) Object.assign(labels, note.labels);
  }
  return { ...labels, ...own };
}

export type Labelled = LessonWrite | { unchanged: true; id: string; path: string; message: string };

/** Sets `key` to `value` (undefined: removes it) on a lesson, or on the note of a folder when `lesson` is undefined. */
export function planLabel(kb: Kb, config: KbConfig, target: { lesson: Lesson } | { folder: string }, key: string, value: string | undefined): Plan<Labelled> {
  const allowed = config.labels[key];
  if (!allowed) {
    const declared = Object.keys(config.labels);
    throw new RkbError(
      "refused",
      `the label \`${shown(key)}\` is not declared in kb.toml [labels]${declared.length ? ` (declared: ${declared.join(", ")})` : ""}`,
      "use a declared label, or declare it in kb.toml [labels] first; nothing was written",
    );
  }
  if (value !== undefined && !allowed.includes(value))
    throw new RkbError(
      "refused",
      `\`${key}: ${shown(value)}\` is not allowed; use one of ${allowed.join(", ")} (kb.toml [labels])`,
      `e.g. rkb label <id|folder> ${key}=${allowed[0]}; nothing was written`,
    );
  const plan = "lesson" in target ? lessonLabel(kb, target.lesson, key, value) : folderLabel(kb, target.folder, key, value);
  if (!plan.changes.length) return plan;
  const { before, after } = plan.effective;
  const rank = (v: string | undefined) => (v === undefined ? -1 : allowed.indexOf(v));
  const looser = before !== undefined && after !== undefined && rank(after) < rank(before);
  const result = plan.result as LessonWrite;
  result.notes.push(`its effective ${key} is ${after ?? "not set"}${before !== after ? ` (was ${before ?? "not set"})` : ""}`);
  return {
    changes: plan.changes,
    message: plan.message,
    result,
    ...(looser && {
      ask: {
        question: `make ${result.path} ${key} ${after} instead of ${before}? It widens who may see ${"lesson" in target ? "this lesson" : "the lessons under " + target.folder}.`,
        option: `loosen ${key} to ${after}`,
      },
    }),
  };
}

type LabelPlan = Plan<Labelled> & { effective: { before?: string; after?: string } };

function changed(own: Record<string, YamlValue>, key: string, value: string | undefined): Record<string, YamlValue> | undefined {
  if (own[key] === value || (value === undefined && !(key in own))) return undefined;
  const next = { ...own };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next;
}

const asStrings = (m: Record<string, YamlValue>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)]));

function lessonLabel(kb: Kb, lesson: Lesson, key: string, value: string | undefined): LabelPlan {
  const own = isMap(lesson.frontmatter.labels) ? lesson.frontmatter.labels : {};
  const next = changed(own, key, value);
  const folder = posix.dirname(lesson.path);
  if (!next) return noChange(lesson.id, lesson.path, key, value, `${lesson.id}`);
  const fm: Frontmatter = { ...lesson.frontmatter, labels: next };
  if (!Object.keys(next).length) delete fm.labels;
  return {
    changes: [{ rel: lesson.path, text: serializeLesson(fm, lesson.body) }],
    message: `label(${folder}): ${key} ${value ?? "unset"} [${lesson.id}]`,
    result: { action: "label", id: lesson.id, path: lesson.path, title: lesson.title, notes: [] },
    effective: {
      before: effectiveLabels(kb.notes, folder, asStrings(own))[key],
      after: effectiveLabels(kb.notes, folder, asStrings(next))[key],
    },
  };
}

function folderLabel(kb: Kb, target: string, key: string, value: string | undefined): LabelPlan {
  const folder = target.trim().replace(/\/+$/, "");
  const parts = folder.split("/");
  const notePath = `${folder}/README.md`;
  const isFolder = (SCOPES as readonly string[]).includes(parts[0]!) && parts.slice(1).every(isFolderName) && noteRole(notePath) !== "misplaced";
  if (!isFolder || !kb.files.some((f) => f.startsWith(folder + "/")))
    throw new RkbError(
      "not_found",
      `${shown(folder)} is not a folder of the knowledge base that can hold labels`,
      "name a lesson id, or a scope, project, system or topic folder that exists (see `rkb list`)",
    );
  const broken = kb.broken.find((b) => b.path === notePath);
  if (broken) throw new RkbError("invalid_lesson", `${broken.path}:${broken.line}: ${broken.message}`, "fix the note, then run `rkb label` again");
  const note = kb.notes.find((n) => n.path === notePath);
  const data: Record<string, YamlValue> = note ? { ...note.data } : {};
  const own = isMap(data.labels) ? data.labels : {};
  const next = changed(own, key, value);
  if (!next) return noChange(folder, notePath, key, value, folder);
  if (Object.keys(next).length) data.labels = next;
  else delete data.labels;
  const text = note ? readFileSync(join(kb.root, notePath), "utf8") : "";
  const body = /^---\r?\n/.test(text) ? splitFrontmatter(text, notePath).body : text;
  const lines = Object.entries(data).flatMap(([k, v]) => emitEntry(k, v));
  const written = lines.length ? `---\n${lines.join("\n")}\n---\n${body}` : body;
  // The folder's own note is the last one laid over its labels: the same as the folder's own labels.
  const others = kb.notes.filter((n) => n.path !== notePath);
  return {
    // A note left with nothing in it is removed rather than kept empty.
    changes: [{ rel: notePath, text: written.trim() ? written : null }],
    message: `label(${folder}): ${key} ${value ?? "unset"}`,
    result: { action: "label", id: folder, path: notePath, title: folder, notes: note ? [] : [`wrote the folder note ${notePath}`] },
    effective: {
      before: effectiveLabels(others, folder, asStrings(own))[key],
      after: effectiveLabels(others, folder, asStrings(next))[key],
    },
  };
}

function noChange(id: string, path: string, key: string, value: string | undefined, what: string): LabelPlan {
  return {
    changes: [],
    message: "",
    result: { unchanged: true, id, path, message: value === undefined ? `${what} has no ${key} label of its own` : `${what} already has ${key} ${value}` },
    effective: {},
  };
}
