import { encode } from "@toon-format/toon";

// TOON for agents. Inline primitive arrays (`help[2]: a,b`) are expanded to one item per
// indented line so that sentences with commas stay readable; an empty array prints `key[0]:`.
export function toToon(data: unknown): string {
  const lines = encode(data, { indent: 2 }).split("\n");
  const out: string[] = [];
  for (const line of lines) {
    const empty = /^(\s*)([^\s:[]+|"[^"]*"): \[\]$/.exec(line);
    if (empty) {
      out.push(`${empty[1]}${empty[2]}[0]:`);
      continue;
    }
    const inline = /^(\s*)([^\s:[]+|"[^"]*")\[(\d+)\]: (.+)$/.exec(line);
    if (inline && Number(inline[3]) > 0) {
      const [, indent, key, count, rest] = inline;
      const items = splitToonRow(rest!);
      if (items.length === Number(count)) {
        out.push(`${indent}${key}[${count}]:`);
        for (const item of items) out.push(`${indent}  ${item}`);
        continue;
      }
    }
    out.push(line);
  }
  return out.join("\n");
}

// Splits a comma-delimited TOON row, keeping quoted cells (which may hold commas) whole.
function splitToonRow(row: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < row.length; i++) {
    const ch = row[i]!;
    if (quoted && ch === "\\") {
      cell += ch + (row[i + 1] ?? "");
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
      cell += ch;
    } else if (ch === "," && !quoted) {
      cells.push(cell);
      cell = "";
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}
