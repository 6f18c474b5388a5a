// What an agent's file edit or write tool call changed: the path and a short diff, read from the
// call's arguments (the session file holds no file contents otherwise). A draft pitfall names these
// as fix steps. Shapes: pi `edit {path, edits:[{oldText,newText}]}` (older pi: `{path, oldText,
// newText}`) and `write {path, content}`; omp `edit` in its replace (`{path, old_string,
// new_string}`), patch (`{path, edits:[{diff}]}`) and hashline or apply_patch (`{input}`) modes,
// and `write {path, content}`; Claude Code `Edit`, `MultiEdit`, `Write` and `NotebookEdit`.

import { maskSecrets } from "../text/secrets.ts";

export interface FileChange {
  verb: "edited" | "wrote";
  path: string;
  /** At most MAX_DIFF_LINES lines, `-` removed and `+` added (a count of the rest last). */
  diff: string[];
}

export const MAX_DIFF_LINES = 12;
const LINE_CHARS = 160;

/** The change an edit or write tool call makes, or undefined for any other tool. */
export function fileChange(toolName: string, args: unknown): FileChange | undefined {
  if (!args || typeof args !== "object") return undefined;
  const a = args as Record<string, unknown>;
  const name = toolName.toLowerCase();
  const path = str(a.path) ?? str(a.file_path) ?? str(a.notebook_path);
  if (name === "write") {
    if (path === undefined || typeof a.content !== "string") return undefined;
    // A written file can be large: only the lines that can be kept are split off.
    const { lines: head, more } = firstLines(a.content, MASKED_LINES);
    const diff = new DiffHead();
    for (const l of head) diff.push("+" + l);
    diff.count += more;
    return changeOf("wrote", path, diff);
  }
  if (name === "notebookedit") {
    if (path === undefined) return undefined;
    const diff = new DiffHead();
    for (const l of lines(str(a.new_source) ?? "")) diff.push("+" + l);
    return changeOf("edited", path, diff);
  }
  if (name !== "edit" && name !== "multiedit") return undefined;
  if (typeof a.input === "string") return patchChange(a.input);
  if (path === undefined) return undefined;
  const edits = Array.isArray(a.edits) ? a.edits.filter((e): e is Record<string, unknown> => !!e && typeof e === "object") : [];
  // The replacements first, then the diffs, in the order of the edits.
  const diff = new DiffHead();
  for (const o of [a, ...edits]) {
    const before = str(o.oldText) ?? str(o.old_string);
    const after = str(o.newText) ?? str(o.new_string);
    if (before !== undefined || after !== undefined) replacement(before ?? "", after ?? "", diff);
  }
  for (const e of edits) {
    const d = str(e.diff);
    if (d !== undefined) for (const l of lines(d)) if (/^[-+]/.test(l)) diff.push(l);
  }
  return changeOf("edited", path, diff);
}

/** `-`/`+` lines for one replacement, without the lines it leaves as they were at either end. */
function replacement(before: string, after: string, diff: DiffHead): void {
  const old = lines(before);
  const now = lines(after);
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < now.length - head && old[old.length - 1 - tail] === now[now.length - 1 - tail]) tail++;
  for (let i = head; i < old.length - tail; i++) diff.push("-" + old[i]);
  for (let i = head; i < now.length - tail; i++) diff.push("+" + now[i]);
}

/**
 * A diff as it is built: its first MASKED_LINES lines and how many it has in all. A replacement
 * of a whole file has thousands of lines, and only the first ones can ever be kept.
 */
class DiffHead {
  readonly lines: string[] = [];
  count = 0;
  push(line: string): void {
    if (this.lines.length < MASKED_LINES) this.lines.push(line);
    this.count++;
  }
}

/**
 * omp's hashline (`[PATH#TAG]` then `PUT`/`CUT` ops with `+` rows) and apply_patch (`*** Update
 * File: PATH` then `@@` hunks) inputs: the files named, and the op and `+`/`-` lines.
 */
function patchChange(input: string): FileChange | undefined {
  const paths: string[] = [];
  const diff = new DiffHead();
  for (const line of lines(input)) {
    const hashline = /^\[([^\]#]+)(?:#[^\]]*)?\]$/.exec(line.trim());
    const applyPatch = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/.exec(line.trim());
    if (hashline || applyPatch) paths.push((hashline ?? applyPatch)![1]!.trim());
    else if (/^\*\*\* (?:Begin|End) Patch/.test(line) || /^\*\*\* Move to: /.test(line)) continue;
    else if (/^[-+]|^(?:PUT|CUT|REM|MV)\b/.test(line)) diff.push(line);
  }
  if (!paths.length) return undefined;
  return changeOf("edited", [...new Set(paths)].join(", "), diff);
}

/** Lines masked before any is cut: enough past the kept ones for a private key to reach its END. */
const MASKED_LINES = 64;
const MASKED_LINE_CHARS = 2048;

/**
 * The change, its diff as kept: masked first, as one text, so a cut line or a key over several
 * lines keeps no part of a secret; only the lines that can be kept are masked, and more of them
 * only when a private key begins there (its END may lie further on). The lines that can be kept
 * are picked now (bounded, so memory follows the number of
 * edits, not their size) and masked and cut when the diff is first read: most edits never become
 * a fix step, and masking them was most of what reading an edit cost. Nothing reads the lines
 * unmasked: they are reachable only through `diff`.
 */
function changeOf(verb: FileChange["verb"], path: string, diff: DiffHead): FileChange {
  const head = diff.lines.slice(0, MAX_DIFF_LINES);
  const span = (head.some((l) => l.includes("-----BEGIN")) ? diff.lines : head).map((l) => l.slice(0, MASKED_LINE_CHARS));
  const rest = diff.count - span.length;
  let kept: string[] | undefined;
  return {
    verb,
    path,
    get diff() {
      return (kept ??= cap(span, rest));
    },
  };
}

function cap(span: string[], rest: number): string[] {
  const kept = maskSecrets(span.join("\n"))
    .split("\n")
    .map((l) => (l.length > LINE_CHARS ? l.slice(0, LINE_CHARS - 1) + "…" : l));
  const total = kept.length + rest;
  if (total <= MAX_DIFF_LINES) return kept;
  return [...kept.slice(0, MAX_DIFF_LINES - 1), `… ${total - (MAX_DIFF_LINES - 1)} more lines`];
}

/** The first `max` lines of a text and how many more there are, without splitting all of a big file. */
function firstLines(text: string, max: number): { lines: string[]; more: number } {
  const out: string[] = [];
  let at = 0;
  while (out.length < max && at < text.length) {
    const nl = text.indexOf("\n", at);
    const end = nl === -1 ? text.length : nl;
    out.push(text.slice(at, end > at && text[end - 1] === "\r" ? end - 1 : end));
    at = nl === -1 ? text.length : nl + 1;
  }
  let more = 0;
  for (let nl = text.indexOf("\n", at); at < text.length; nl = text.indexOf("\n", at)) {
    more++;
    at = nl === -1 ? text.length : nl + 1;
  }
  return { lines: out, more };
}

function lines(text: string): string[] {
  const all = text.replace(/\r\n/g, "\n").split("\n");
  if (all.length > 1 && all[all.length - 1] === "") all.pop();
  return all;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
