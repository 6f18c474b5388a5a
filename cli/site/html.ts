// HTML text made safe where it is written: every value that came from a lesson, a session or a
// file goes through `esc` (text and attribute values alike), and pages are built from these parts.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** An exact rkb command with a copy button (the pages never run one: the viewer writes nothing). */
export function command(text: string): string {
  return `<div class="cmd"><code>${esc(text)}</code><button type="button" data-copy="${esc(text)}">Copy</button></div>`;
}

/** A date-time as its day (`2026-03-01`). */
export const day = (time: string | undefined) => (time ? time.slice(0, 10) : "");

/** A table with a head row; cells are HTML already (escaped by the caller); `n` marks numeric columns. */
export function table(head: string[], rows: string[][], numeric: number[] = []): string {
  const cell = (tag: string, i: number, html: string) => `<${tag}${numeric.includes(i) ? ' class="n"' : ""}>${html}</${tag}>`;
  return `<div class="table"><table><thead><tr>${head.map((h, i) => cell("th", i, esc(h))).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => cell("td", i, c)).join("")}</tr>`)
    .join("")}</tbody></table></div>`;
}
