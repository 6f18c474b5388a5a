// Text from sessions in the Markdown reports rkb leaves for CI (`extract --report`, `propose --report`).

/** Text safe inside a table cell or inline code: no `|` that ends the cell, no backquote that ends the code. */
export function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/`/g, "'");
}

/** A command's first line, cut to `max` characters, with ` …` when it had more lines. */
export function oneLine(s: string, max = 160): string {
  const first = s.split("\n")[0]!;
  return first.length > max ? first.slice(0, max - 1) + "…" : first + (s.includes("\n") ? " …" : "");
}
