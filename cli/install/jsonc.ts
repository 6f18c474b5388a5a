// Entries rkb owns inside a user's JSON or JSONC file (opencode's `mcp.rkb`, rkb's groups in Codex's
// hooks.json), set and removed as text edits: only the text of that entry changes, and the comments,
// order and layout of the rest stay as the user wrote them. jsonc-parser (Microsoft's parser behind
// VS Code's settings editing; no dependencies) parses and finds where things are; the edits are
// rkb's: the entry is written pretty-printed at its place's indentation (jsonc-parser's own edits
// re-format the lines around an insertion, the user's sibling entry included, and cut an array's
// last element wrongly when the closing bracket has a line of its own).
import { findNodeAtLocation, type JSONPath, type Node, type ParseError, parse, parseTree, printParseErrorCode } from "jsonc-parser";
import { isDeepStrictEqual } from "node:util";
import { RkbError } from "../base/errors.ts";

/** The file's value, JSONC allowed (comments, trailing commas); a clear error naming the file and line. */
export function parseJsonc(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value = parse(withoutBom(text), errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split("\n").length;
    throw new RkbError("config", `${file}:${line} is not valid JSON: ${printParseErrorCode(e.error)}`, `fix ${file}, then run rkb install again`);
  }
  return value;
}

/** The value at `path` of a parsed document, or undefined. */
export function valueAt(doc: unknown, path: JSONPath): unknown {
  let node = doc;
  for (const key of path) node = node && typeof node === "object" ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}

// A byte-order mark (some Windows editors write one) is no JSON: it is kept as it was, outside the edit.
const BOM = "\uFEFF";
const withoutBom = (text: string) => (text.startsWith(BOM) ? text.slice(1) : text);

/**
 * `text` with the value at `path` set (undefined: removed; index -1: appended to the array). A new
 * property goes first in its object, before the user's first one, so that no line of theirs
 * changes (appending would put a comma on their last line, after which uninstall could not tell
 * their trailing comma or comment from rkb's); a new array element goes last, since positions in an
 * array can matter (Codex keys its trust of a hook by its group's index).
 */
export function setAt(text: string, path: JSONPath, value: unknown, file = "the JSON text"): string {
  const next = value === undefined ? removeAt(text, path) : insertAt(text, path, value, file);
  // Read back: an edit that did not land where a JSON reader looks (a key written twice, where the
  // last one counts) is refused, not written.
  // (An element removed from an array leaves the next one at its index: nothing to read back.)
  const key = path.at(-1);
  if (value === undefined && typeof key === "number") return next;
  const doc = parseJsonc(next, file);
  const at = key === -1 ? [...path.slice(0, -1), (valueAt(doc, path.slice(0, -1)) as unknown[]).length - 1] : path;
  if (!isDeepStrictEqual(valueAt(doc, at), value))
    throw new RkbError(
      "refused",
      `${file} holds a key of \`${path.filter((k) => k !== -1).join(".")}\` more than once, so rkb's edit would not be the one read`,
      `keep each key once in ${file}, then run rkb install again`,
    );
  return next;
}

function insertAt(text: string, path: JSONPath, value: unknown, file: string): string {
  if (text.startsWith(BOM)) return BOM + insertAt(text.slice(1), path, value, file);
  const base = text.trim() ? text : "{}\n";
  const unit = /^( +|\t)\S/m.exec(base)?.[1] ?? "  ";
  const eol = base.includes("\r\n") ? "\r\n" : "\n";
  const root = parseTree(base);
  if (!root) throw new Error("setAt: the text holds no JSON value");
  // Walk up to the nearest node that exists; what is missing below it becomes part of the value.
  const at = path.slice();
  let val = value;
  while (at.length && !findNodeAtLocation(root, at.slice(0, -1))) {
    const key = at.pop()!;
    val = typeof key === "number" ? [val] : { [key]: val };
  }
  const key = at.at(-1);
  const parent = findNodeAtLocation(root, at.slice(0, -1))!;
  const wanted = typeof key === "number" ? "array" : "object";
  if (parent.type !== wanted) {
    const where = at.length > 1 ? `\`${at.slice(0, -1).join(".")}\`` : "the file";
    const is = parent.type === "null" ? "null" : `${parent.type === "array" || parent.type === "object" ? "an" : "a"} ${parent.type}`;
    throw new RkbError(
      "refused",
      `${file}: ${where} is ${is}, not an ${wanted}, so rkb cannot put \`${path.join(".")}\` in it`,
      at.length > 1
        ? `make ${where} an ${wanted} (or remove it), then run rkb install again`
        : `make ${file} one JSON object ({ … }), then run rkb install again`,
    );
  }
  const pretty = (v: unknown, indent: string) => JSON.stringify(v, null, unit).replaceAll("\n", eol + indent);
  const existing = key !== undefined && key !== -1 ? findNodeAtLocation(root, at) : undefined;
  if (existing) {
    const indent = lineIndent(base, existing.parent?.type === "property" ? existing.parent.offset : existing.offset);
    return splice(base, existing.offset, existing.length, pretty(val, indent));
  }
  const children = parent.children ?? [];
  const last = children.at(-1);
  const entry = (indent: string) => (parent.type === "object" ? `${JSON.stringify(key)}: ${pretty(val, indent)}` : pretty(val, indent));
  const first = children[0];
  if (first && parent.type === "object") {
    const indent = lineIndent(base, first.offset);
    const sameLine = base.lastIndexOf("\n", first.offset - 1) < parent.offset;
    // On the first property's line (or after the brace when the object is on one line), then the user's.
    return splice(base, first.offset, 0, `${entry(indent)},${sameLine ? " " : eol + indent}`);
  }
  if (last) {
    const indent = lineIndent(base, last.offset);
    const end = last.offset + last.length;
    // A comment (or a trailing comma) after the last entry on its line stays with it: the new entry
    // goes on the next line.
    const lineEnd = base.indexOf("\n", end) < 0 ? base.length : base.indexOf("\n", end);
    const rest = /^(\s*,)?[ \t]*(\/\/.*|\/\*.*\*\/[ \t]*)?\r?$/.exec(base.slice(end, lineEnd));
    if (!rest) return splice(base, end, 0, `,${eol}${indent}${entry(indent)}`);
    const at = base[lineEnd - 1] === "\r" ? lineEnd - 1 : lineEnd;
    return splice(splice(base, at, 0, `${eol}${indent}${entry(indent)}`), end, 0, rest[1] ? "" : ",");
  }
  // An empty object or array: the entry goes on a line of its own inside it.
  const outer = lineIndent(base, parent.offset);
  const inner = outer + unit;
  return splice(base, parent.offset + 1, parent.length - 2, `${eol}${inner}${entry(inner)}${eol}${outer}`);
}

/** `text` without the property or array element at `path`, and the comma that joined it to a neighbour. */
function removeAt(text: string, path: JSONPath): string {
  if (text.startsWith(BOM)) return BOM + removeAt(text.slice(1), path);
  const root = parseTree(text);
  const node = root && findNodeAtLocation(root, path);
  if (!node) return text;
  const target = node.parent?.type === "property" ? node.parent : node;
  const siblings = target.parent?.children ?? [];
  const i = siblings.indexOf(target);
  const end = (n: Node) => n.offset + n.length;
  if (i > 0) return splice(text, end(siblings[i - 1]!), end(target) - end(siblings[i - 1]!), "");
  if (siblings.length > 1) return splice(text, target.offset, siblings[1]!.offset - target.offset, "");
  const parent = target.parent!;
  return splice(text, parent.offset + 1, parent.length - 2, "");
}

function splice(text: string, offset: number, length: number, content: string): string {
  return text.slice(0, offset) + content + text.slice(offset + length);
}

/** The indentation of the line that holds `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}
