import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { classify, walkFiles } from "../lesson/layout.ts";
import { LessonParseError, parseLesson, type Lesson } from "../lesson/lesson.ts";
import { parseNote, type FolderNote } from "../lesson/notes.ts";
import { unreadableValue } from "../lesson/lint-lesson.ts";

// Loads a knowledge base's lessons and folder notes. Files that do not parse are kept aside with
// the reason, so readers skip them and lint reports them.

export interface Broken {
  path: string;
  line: number;
  message: string;
  kind: "lesson" | "note";
  text: string;
}

export interface Kb {
  root: string;
  files: string[];
  lessons: Lesson[];
  notes: FolderNote[];
  broken: Broken[];
}

export function loadKb(root: string): Kb {
  const files = walkFiles(root);
  const kb: Kb = { root, files, lessons: [], notes: [], broken: [] };
  for (const rel of files) {
    const kind = classify(rel);
    if (kind !== "lesson" && kind !== "note") continue;
    let text: string;
    try {
      text = readFileSync(join(root, rel), "utf8");
    } catch (e) {
      kb.broken.push({ path: rel, line: 1, message: `cannot read: ${(e as Error).message}`, kind, text: "" });
      continue;
    }
    try {
      if (kind === "note") kb.notes.push(parseNote(text, rel));
      else {
        const lesson = parseLesson(text, rel);
        // As the Rust rkb does, a lesson whose type, status or dates it cannot read is skipped by
        // search, show and list (lint reports it as format/parse).
        const unreadable = unreadableValue(lesson);
        if (unreadable) kb.broken.push({ path: rel, line: unreadable.line, message: unreadable.message, kind, text });
        else kb.lessons.push(lesson);
      }
    } catch (e) {
      if (!(e instanceof LessonParseError)) throw e;
      kb.broken.push({ path: rel, line: e.line, message: e.message, kind, text });
    }
  }
  return kb;
}

export function findLesson(kb: Kb, id: string): Lesson {
  const lesson = kb.lessons.find((l) => l.id === id);
  if (lesson) return lesson;
  const idLine = new RegExp(`^id:\\s*["']?${id.replace(/[^0-9a-z]/gi, "")}["']?\\s*$`, "m");
  const broken = kb.broken.find((b) => b.kind === "lesson" && idLine.test(b.text));
  if (broken) throw new RkbError("invalid_lesson", `${broken.path}:${broken.line}: ${broken.message}`, "fix the file, then run `rkb lint`");
  throw new RkbError("not_found", `no lesson with id \`${id}\``, "check the id with `rkb search <words>` or `rkb list`");
}
