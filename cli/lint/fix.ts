import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathInside, writeAtomic } from "../base/fsutil.ts";
import { classify, walkFiles } from "../lesson/layout.ts";
import { LessonParseError, parseLesson, serializeLesson, splitFrontmatter } from "../lesson/lesson.ts";
import { parseNote } from "../lesson/notes.ts";
import { emitEntry, flowStyleLines } from "../lesson/yaml.ts";

// `rkb lint --fix`: frontmatter written in flow style rewritten in block style, the one finding lint
// can fix without a person. The caller holds the write lock (write/entry.ts).

/** Rewrites flow-style frontmatter (`[a, b]`, `{k: v}`) of lessons and folder notes to block style; returns the fixed rel paths. */
export function fixFlowStyle(root: string): string[] {
  const fixed: string[] = [];
  for (const rel of walkFiles(root)) {
    const kind = classify(rel);
    if (kind !== "lesson" && kind !== "note") continue;
    const text = readFileSync(join(root, rel), "utf8");
    try {
      const rewritten = kind === "lesson" ? blockStyleLesson(text, rel) : blockStyleNote(text, rel);
      if (rewritten !== undefined && rewritten !== text) {
        writeAtomic(pathInside(root, rel), rewritten);
        fixed.push(rel);
      }
    } catch (e) {
      // A file that does not parse cannot be rewritten safely; lint reports it instead.
      if (!(e instanceof LessonParseError)) throw e;
    }
  }
  return fixed;
}

function blockStyleLesson(text: string, rel: string): string | undefined {
  const lesson = parseLesson(text, rel);
  return lesson.flowStyle.length ? serializeLesson(lesson.frontmatter, lesson.body) : undefined;
}

function blockStyleNote(text: string, rel: string): string | undefined {
  if (!/^---\r?\n/.test(text)) return undefined;
  const { yaml, body } = splitFrontmatter(text, rel);
  if (!flowStyleLines(yaml).length) return undefined;
  const note = parseNote(text, rel);
  const lines = Object.entries(note.data).flatMap(([key, value]) => emitEntry(key, value));
  return `---\n${lines.join("\n")}\n---\n${body}`;
}
