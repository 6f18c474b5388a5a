// The TOML files rkb reads (kb.toml, config.toml, checkouts.toml, an eval query file, Codex's
// config.toml) are parsed by Bun, whose errors name no line. The line is found here: a scan splits
// the text into its statements (a table header, a key/value pair however many lines its value takes,
// a comment), and a bisection over them finds the first one whose prefix of the file fails to parse.
// A prefix made of whole statements that parses stays valid when statements are taken off its end,
// so the bisection is sound; it parses log2(statements) prefixes, and the scan is one pass.
// The same scan gives the line of a key, for an error about a value Bun parsed.

export class TomlError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** A top-level statement: where it starts, and the keys it defines (`[a.b]` → a, b; `x.y = 1` → x, y). */
export interface TomlStatement {
  start: number;
  line: number;
  kind: "table" | "array" | "pair" | "comment";
  keys: string[];
}

/** The text parsed; a TomlError naming the line of the first statement that breaks it. */
export function parseToml(text: string): Record<string, unknown> {
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (e) {
    const message = String((e as Error).message).replace(/^TOML Parse error:\s*/, "");
    throw new TomlError(message, errorLine(text));
  }
}

/** The text parsed, or undefined when it is no valid TOML (for a check that needs no line). */
export function tomlOrUndefined(text: string): Record<string, unknown> | undefined {
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const parses = (text: string) => tomlOrUndefined(text) !== undefined;

/** The line of the first statement whose prefix of the file does not parse (the whole text does not). */
function errorLine(text: string): number {
  const statements = tomlStatements(text);
  const end = (j: number) => statements[j + 1]?.start ?? text.length;
  let lo = 0;
  let hi = statements.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (parses(text.slice(0, end(mid)))) lo = mid + 1;
    else hi = mid;
  }
  return statements[lo]?.line ?? 1;
}

/**
 * The line where a key is defined: path names tables and keys, a number the entry of an array of
 * tables (["query", 1, "mode"]: `mode` in the second [[query]]). The first statement at or under the
 * path, else the pair whose value holds it (an inline table); undefined when the text has none.
 */
export function keyLine(text: string, path: (string | number)[]): number | undefined {
  const want = path.map(String);
  const entries = new Map<string, number>();
  let table: string[] = [];
  let holder: number | undefined;
  for (const s of tomlStatements(text)) {
    if (s.kind === "comment") continue;
    let resolved: string[];
    if (s.kind === "pair") resolved = [...table, ...s.keys];
    else {
      // A header's keys, each array of tables among them followed by the number of its latest entry.
      resolved = [];
      s.keys.forEach((key, i) => {
        resolved.push(key);
        const id = JSON.stringify(resolved);
        if (s.kind === "array" && i === s.keys.length - 1) entries.set(id, (entries.get(id) ?? -1) + 1);
        if (entries.has(id)) resolved.push(String(entries.get(id)));
      });
      table = resolved;
    }
    if (want.every((k, i) => resolved[i] === k)) return s.line;
    if (s.kind === "pair" && holder === undefined && resolved.length < want.length && resolved.every((k, i) => want[i] === k)) holder = s.line;
  }
  return holder;
}

/** The text's top-level statements, in one pass; broken text still splits (the statement that breaks it runs to where the scan can resync). */
export function tomlStatements(text: string): TomlStatement[] {
  const out: TomlStatement[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  const newline = () => {
    line++;
    i++;
  };
  /** Past a string that starts at i (a quote), counting the lines of a multi-line one. */
  const skipString = () => {
    const quote = text[i]!;
    if (text.startsWith(quote.repeat(3), i)) {
      i += 3;
      while (i < n && !text.startsWith(quote.repeat(3), i)) {
        if (quote === '"' && text[i] === "\\") i++; // an escape, or a backslash that ends the line
        if (text[i] === "\n") newline();
        else i++;
      }
      i += 3;
      while (text[i] === quote) i++; // up to two quotes end the content
      return;
    }
    i++;
    while (i < n && text[i] !== quote && text[i] !== "\n") i += quote === '"' && text[i] === "\\" && text[i + 1] !== "\n" ? 2 : 1;
    if (text[i] === quote) i++;
  };
  const skipBlanks = () => {
    while (text[i] === " " || text[i] === "\t") i++;
  };
  /** Dotted keys: bare, "basic" or 'literal', decoded. */
  const readKeys = (): string[] => {
    const keys: string[] = [];
    for (;;) {
      skipBlanks();
      const from = i;
      if (text[i] === '"' || text[i] === "'") {
        skipString();
        keys.push(decodeKey(text.slice(from, i)));
      } else {
        while (i < n && /[A-Za-z0-9_-]/.test(text[i]!)) i++;
        if (i === from) return keys;
        keys.push(text.slice(from, i));
      }
      skipBlanks();
      if (text[i] !== ".") return keys;
      i++;
    }
  };
  /** Past a value: strings, nested arrays and inline tables, comments; it ends at a newline outside them. */
  const skipValue = () => {
    let depth = 0;
    while (i < n) {
      const c = text[i]!;
      if (c === '"' || c === "'") skipString();
      else if (c === "#") while (i < n && text[i] !== "\n") i++;
      else if (c === "\n") {
        if (depth === 0) return;
        newline();
      } else {
        if (c === "[" || c === "{") depth++;
        else if ((c === "]" || c === "}") && depth > 0) depth--;
        i++;
      }
    }
  };
  while (i < n) {
    const c = text[i]!;
    if (c === "\n") {
      newline();
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    const start = i;
    const at = line;
    if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
      out.push({ start, line: at, kind: "comment", keys: [] });
      continue;
    }
    let kind: TomlStatement["kind"] = "pair";
    if (c === "[") {
      kind = text[i + 1] === "[" ? "array" : "table";
      i += kind === "array" ? 2 : 1;
    }
    const keys = readKeys();
    // The rest of a header's line, or a pair's value (which may run over lines).
    if (kind === "pair" && text[i] === "=") i++;
    skipValue();
    out.push({ start, line: at, kind, keys });
  }
  return out;
}

function decodeKey(quoted: string): string {
  if (quoted.startsWith("'")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}
