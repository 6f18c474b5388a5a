import { posix } from "node:path";
import { scanBody } from "./body.ts";

// Relative Markdown links between files of the knowledge base: where one points (lint's
// `links/broken`), and rewriting them when a file moves (`rkb move`, `rkb rename`).

/**
 * Where a link in the file at `from` points inside the knowledge base: a path ("" is the root),
 * null when it leaves the knowledge base, undefined when it is not a relative link (a scheme, `#…`, `/…`).
 */
export function resolveLink(from: string, target: string): string | null | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#") || target.startsWith("/")) return undefined;
  const pathPart = linkPath(target);
  if (pathPart === "") return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    decoded = pathPart.replace(/%20/g, " ");
  }
  const joined = posix.normalize(posix.join(posix.dirname(from), decoded)).replace(/\/$/, "");
  if (joined === ".." || joined.startsWith("../")) return null;
  return joined === "." ? "" : joined;
}

/** The path part of a link target, before its `#anchor` or `?query`. */
function linkPath(target: string): string {
  return target.split(/[#?]/)[0]!;
}

/**
 * Rewrites the relative links of a Markdown body that was at `from` and is now at `to`: each link
 * points where `moved` sends its target (a path inside the knowledge base; undefined: it stays),
 * written relative to `to`'s folder, with its `#anchor` or `?query` kept. Links that still point
 * to the same place are left byte for byte.
 */
export function rewriteLinks(body: string, from: string, to: string, moved: (target: string) => string | undefined): string {
  const links = scanBody(body).links;
  if (!links.length) return body;
  // Per line, the replacements in column order: each line is rebuilt once, so a line of a million
  // links is rewritten in linear time.
  const edits = new Map<number, { column: number; length: number; path: string }[]>();
  for (const link of links) {
    const target = resolveLink(from, link.target);
    if (target === undefined || target === null) continue;
    const destination = moved(target) ?? target;
    if (resolveLink(to, link.target) === destination) continue;
    const oldPath = linkPath(link.target);
    let path = posix.relative(posix.dirname(to), destination || ".") || ".";
    if (oldPath.endsWith("/") && !path.endsWith("/")) path += "/";
    if (oldPath.includes("%")) path = path.replace(/ /g, "%20");
    const line = edits.get(link.line) ?? [];
    line.push({ column: link.column, length: oldPath.length, path });
    edits.set(link.line, line);
  }
  if (!edits.size) return body;
  const lines = body.split("\n");
  for (const [n, lineEdits] of edits) {
    const line = lines[n - 1]!;
    const parts: string[] = [];
    let at = 0;
    for (const edit of lineEdits) {
      parts.push(line.slice(at, edit.column), edit.path);
      at = edit.column + edit.length;
    }
    parts.push(line.slice(at));
    lines[n - 1] = parts.join("");
  }
  return lines.join("\n");
}
