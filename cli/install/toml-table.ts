// One table of a user's TOML file that rkb owns (Codex's `[mcp_servers.rkb]` in ~/.codex/config.toml),
// set or removed by editing only its own lines: every other line, comment and blank line stays as the
// user wrote it. No maintained TOML library keeps comments when it writes a file back, so the edit is
// a line edit, checked afterwards: the file parsed before and after must agree on everything but the
// table, and the table must parse to exactly what was meant. A file where that fails (the table spelt
// as dotted keys or an inline table elsewhere) is refused, never half edited.
import { RkbError } from "../base/errors.ts";
import { parseToml as parseTomlText, TomlError, tomlOrUndefined } from "../base/toml.ts";

export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };

/** A table's lines as rkb writes them: `key = value`, values rendered as TOML (inline tables for objects). */
export function renderTable(path: string[], body: Record<string, TomlValue>, comment?: string): string {
  const lines = [`[${path.map(tomlKey).join(".")}]`, ...(comment ? [`# ${comment}`] : [])];
  for (const [key, value] of Object.entries(body)) lines.push(`${tomlKey(key)} = ${tomlValue(value)}`);
  return lines.join("\n") + "\n";
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

function tomlValue(v: TomlValue): string {
  // A JSON string is a TOML basic string: the same quotes and escapes.
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`;
  return `{ ${Object.entries(v)
    .map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`)
    .join(", ")} }`;
}

/** The table at `path` as parsed from `text` (of `file`, named in the error when it is no TOML), or undefined. */
export function tableIn(text: string, path: string[], file?: string): unknown {
  let node: unknown = parseToml(text, file);
  for (const key of path) node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** `text` with the table at `path` replaced by `block` (or appended), or removed when `block` is undefined. */
export function editTable(text: string, path: string[], block: string | undefined, file: string): string {
  const before = parseToml(text, file);
  const span = tableSpan(text, path);
  const lines = text.split("\n");
  // The table is written in the file's own line ends (CRLF stays CRLF), and a file that did not end
  // in a line end does not get one: uninstall then gives back exactly what was there.
  const cr = text.includes("\r\n") ? "\r" : "";
  const blank = (line: string | undefined) => line === "" || line === "\r";
  let next: string;
  if (span) {
    const replacement =
      block === undefined
        ? []
        : block
            .replace(/\n$/, "")
            .split("\n")
            .map((l) => l + cr);
    const out = [...lines.slice(0, span.start), ...replacement, ...lines.slice(span.end)];
    // Removing the table leaves one blank line where two met.
    if (block === undefined && span.start > 0 && blank(out[span.start - 1]) && blank(out[span.start] ?? "")) out.splice(span.start - 1, 1);
    next = out.join("\n");
  } else if (block === undefined) {
    return text;
  } else {
    const body = text.replace(/(\r?\n)*$/, "");
    const eol = `${cr}\n`;
    const table = block.replace(/\n$/, "").replaceAll("\n", eol) + (!body || /\n$/.test(text) ? eol : "");
    next = body ? `${body}${eol}${eol}${table}` : table;
  }
  // An edit that made the file no valid TOML is refused.
  const after = tomlOrUndefined(next);
  const meant = block === undefined ? undefined : parseToml(block, file);
  // Compared as values: parsed tables have no prototype, and the copies `without` makes do.
  const same = after !== undefined && Bun.deepEquals(without(after, path), without(before, path)) && Bun.deepEquals(at(after, path), meant && at(meant, path));
  if (!same) {
    const name = `[${path.join(".")}]`;
    throw new RkbError(
      "refused",
      `${file} writes ${name}, or a table holding it, as dotted keys or an inline table, which rkb cannot edit line by line`,
      `write it as a ${name} table of its own, or remove it, then run rkb install again`,
    );
  }
  return next;
}

function parseToml(text: string, file = "the TOML text"): Record<string, unknown> {
  try {
    return parseTomlText(text);
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    throw new RkbError("config", `${file}:${e.line} is not valid TOML: ${e.message}`, `fix that line of ${file}, then run rkb install again`);
  }
}

function at(doc: unknown, path: string[]): unknown {
  let node = doc;
  for (const key of path) node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** A copy of `doc` without the table at `path`, and without the tables that held only it. */
function without(doc: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined || !(key in doc)) return doc;
  const { [key]: child, ...others } = doc;
  if (!rest.length || !child || typeof child !== "object" || Array.isArray(child)) return others;
  const kept = without(child as Record<string, unknown>, rest);
  return Object.keys(kept).length ? { ...others, [key]: kept } : others;
}

/**
 * The lines of the table at `path` and its subtables: from its header to the next other header,
 * leaving out the comments and blank lines just before that header (they belong to it). Headers
 * inside multi-line strings are no headers.
 */
function tableSpan(text: string, path: string[]): { start: number; end: number } | undefined {
  const lines = text.split("\n");
  let start = -1;
  let end = lines.length;
  let open: '"""' | "'''" | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const wasOpen = open;
    open = multilineStateAfter(line, open);
    if (wasOpen) continue;
    const header = headerKeys(line);
    if (!header) continue;
    const inside = header.length >= path.length && path.every((k, j) => header[j] === k);
    if (start < 0 && inside && header.length === path.length) start = i;
    else if (start >= 0 && !inside) {
      end = i;
      break;
    }
  }
  if (start < 0) return undefined;
  while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!)) end--;
  return { start, end };
}

/** The keys of a `[a.b."c"]` or `[[a.b]]` header line, or undefined for any other line. */
function headerKeys(line: string): string[] | undefined {
  const m = /^\s*\[\[?(.*?)\]\]?\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  const keys: string[] = [];
  let rest = m[1]!.trim();
  while (rest) {
    let key: string;
    const quoted = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(rest);
    if (quoted) {
      key = quoted[2] ?? (JSON.parse(`"${quoted[1]}"`) as string);
      rest = rest.slice(quoted[0].length).trim();
    } else {
      const bare = /^[A-Za-z0-9_-]+/.exec(rest);
      if (!bare) return undefined;
      key = bare[0];
      rest = rest.slice(key.length).trim();
    }
    keys.push(key);
    if (!rest) break;
    if (!rest.startsWith(".")) return undefined;
    rest = rest.slice(1).trim();
  }
  return keys.length ? keys : undefined;
}

/** Whether a multi-line string is still open after this line, given whether one was open before it. */
function multilineStateAfter(line: string, open: '"""' | "'''" | undefined): '"""' | "'''" | undefined {
  let i = 0;
  while (i < line.length) {
    if (open) {
      const close = line.indexOf(open, i);
      if (close < 0) return open;
      i = close + 3;
      open = undefined;
      continue;
    }
    const c = line[i]!;
    if (c === "#") return undefined;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      open = line.slice(i, i + 3) as '"""' | "'''";
      i += 3;
    } else if (c === '"' || c === "'") {
      // A one-line string: skip to its closing quote (escapes only in basic strings).
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += c === '"' && line[j] === "\\" ? 2 : 1;
      i = j + 1;
    } else i++;
  }
  return open;
}
