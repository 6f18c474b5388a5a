import { frontmatterKeyLines, splitFrontmatter } from "../lesson/lesson.ts";
import type { FieldLine } from "../lesson/compose.ts";
import type { Finding } from "../lesson/finding.ts";

// A lint finding on the lesson file an add writes, told on what the caller gave instead: a text
// (stdin, an imported file) by its name and lines, a lesson built from fields by the field. The
// file does not exist yet when the write is refused, and its lines are rkb's, not the caller's.

/**
 * A finding on the lesson rkb wrote, as it reads on the text it was given (stdin, an imported
 * file): that text's name, its line, and the line its message names. Body lines keep their distance
 * from the `# Title` line; a frontmatter line maps to the same key's line (rkb rewrites the
 * frontmatter in its own order, and keys it adds have no line there: line 1).
 */
export function asGiven(given: { name: string; text: string }, written: { rel: string; text: string }, f: Finding): Finding {
  if (!f.line) return { ...f, path: given.name };
  const line = givenLine(given, written, f.line);
  return { ...f, path: given.name, line, message: f.message.replaceAll(`on line ${f.line}`, `on line ${line}`) };
}

function givenLine(given: { name: string; text: string }, written: { rel: string; text: string }, line: number): number {
  const w = splitFrontmatter(written.text, written.rel);
  const source = /^---\r?\n/.test(given.text) ? splitFrontmatter(given.text, given.name) : { yaml: "", body: given.text, bodyLine: 1 };
  if (line >= w.bodyLine) {
    const title = (s: { body: string; bodyLine: number }) =>
      s.bodyLine + Math.max(0, s.body.slice(0, Math.max(0, s.body.search(/^# /m))).split("\n").length - 1);
    return Math.max(source.bodyLine, line - title(w) + title(source));
  }
  const [key, at] = keyAt(w.yaml, line) ?? ["", line];
  const from = frontmatterKeyLines(source.yaml)[key];
  return from === undefined ? 1 : from + (line - at);
}

/** The frontmatter keys a lesson built from fields takes from a field of the same name. */
const FIELD_KEYS = new Set(["type", "tags", "queries", "when", "verified_how"]);

/**
 * A finding on a lesson built from fields, as the caller wrote them: the field (named as the caller
 * names it) and the line in it; a line rkb wrote itself (a key it sets) keeps the file's path.
 */
export function inFields(fieldLines: (FieldLine | undefined)[], fieldName: (field: string) => string, written: string, f: Finding): Finding {
  if (!f.line) return f;
  const { yaml, bodyLine } = splitFrontmatter(written, f.path);
  let from: FieldLine | undefined;
  if (f.line >= bodyLine) from = fieldLines[f.line - bodyLine];
  else {
    const key = keyAt(yaml, f.line)?.[0];
    if (key && FIELD_KEYS.has(key)) from = { field: key, line: 0 };
  }
  if (!from) return f;
  const { line: _, ...rest } = f;
  const path = fieldName(from.field);
  if (!from.line) return { ...rest, path, message: f.message.replaceAll(` on line ${f.line}`, "") };
  return { ...rest, path, line: from.line, message: f.message.replaceAll(`on line ${f.line}`, `on line ${from.line}`) };
}

/** The frontmatter key whose value holds a file line, with the line the key is on. */
function keyAt(yaml: string, line: number): [string, number] | undefined {
  return Object.entries(frontmatterKeyLines(yaml))
    .filter(([, at]) => at <= line)
    .sort((a, b) => b[1] - a[1])[0];
}
