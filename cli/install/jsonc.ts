// Entries rkb owns inside a user's JSON or JSONC file (opencode's `mcp.rkb`, rkb's groups in Codex's
// hooks.json), set and removed with jsonc-parser's edits: only the text of that entry changes, and the
// comments, order and indentation of the rest stay as the user wrote them (jsonc-parser is
// Microsoft's parser behind VS Code's settings editing; no dependencies).
import { applyEdits, type JSONPath, modify, type ParseError, parse, printParseErrorCode } from "jsonc-parser";
import { RkbError } from "../base/errors.ts";

/** The file's value, JSONC allowed (comments, trailing commas); a clear error naming the file and line. */
export function parseJsonc(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split("\n").length;
    throw new RkbError("config", `${file}:${line} is not valid JSON: ${printParseErrorCode(e.error)}`, `fix ${file}, then run rkb install again`);
  }
  return value;
}

/** `text` with the value at `path` set (undefined: removed), indented like the file. */
export function setAt(text: string, path: JSONPath, value: unknown): string {
  const indent = /^( +|\t)\S/m.exec(text)?.[1] ?? "  ";
  const formattingOptions = { insertSpaces: indent !== "\t", tabSize: indent === "\t" ? 1 : indent.length, eol: text.includes("\r\n") ? "\r\n" : "\n" };
  const base = text.trim() ? text : "{}\n";
  return applyEdits(base, modify(base, path, value, { formattingOptions }));
}

/** The value at `path` of a parsed document, or undefined. */
export function valueAt(doc: unknown, path: JSONPath): unknown {
  let node = doc;
  for (const key of path) node = node && typeof node === "object" ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}
