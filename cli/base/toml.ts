import { parse, TomlError as ParseError } from "smol-toml";

// Every TOML file rkb reads (kb.toml, config.toml, checkouts.toml, an eval query file, Codex's
// config.toml) is parsed here, by smol-toml, which says the line and column of an error and takes
// linear time. Bun's own parser (Bun.TOML, 1.4.5) names no line, and is quadratic in the keys of a
// table and in tables (40,000 `[tN]` tables: 19 s). A statement scan (one pass, no values decoded)
// gives the line of a key, for an error about a value that parsed, and the start of a value an error
// lies inside (an array left open is reported where the parser gives up, lines later).

// Every valid TOML file parses: an integer past 2^53 (valid TOML, 64 bits) comes back as a BigInt
// instead of refusing the file (a user's Codex config that rkb edits may hold one).
const OPTIONS = { integersAsBigInt: "asNeeded" } as const;

export class TomlError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** A top-level statement: the line it starts on, and the keys it defines (`[a.b]` → a, b; `x.y = 1` → x, y). */
interface TomlStatement {
  line: number;
  kind: "table" | "array" | "pair" | "comment";
  keys: string[];
}

/**
 * The text parsed; a TomlError naming the line that breaks it. An error inside a value that began on
 * an earlier line (an array left open, which the parser reports where it gives up) is named at the
 * line the value starts, saying where it broke.
 */
export function parseToml(text: string): Record<string, unknown> {
  try {
    return parse(text, OPTIONS) as Record<string, unknown>;
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    const holder = tomlStatements(text)
      .filter((s) => s.line <= e.line)
      .at(-1);
    const reason = why(e, text);
    if (holder && holder.kind === "pair" && holder.line < e.line)
      throw new TomlError(`the value of \`${holder.keys.join(".")}\` that starts here breaks at line ${e.line}, column ${e.column}: ${reason}`, holder.line);
    throw new TomlError(`${reason} (column ${e.column})`, e.line);
  }
}

/** The parser's reason, in words for the commonest break: a one-line string left open. */
function why(e: ParseError, text: string): string {
  const reason = (e.message.split("\n")[0] ?? "").replace(/^Invalid TOML document:\s*/, "");
  const rest = text.split("\n")[e.line - 1]?.slice(e.column - 1) ?? "";
  if (/control characters are not allowed in strings/.test(reason) && /^\r?$/.test(rest))
    return 'a string is left open at the end of the line (close its quote, or use """ for text over several lines)';
  const word = /^[A-Za-z_][\w-]*/.exec(rest)?.[0];
  if (reason === "invalid value" && word) return `\`${word}\` is no TOML value: write a number, true or false, or a string in quotes ("${word}")`;
  return reason;
}

/** A parsed value as an error shows it (JSON, which has no BigInt, for all but a 64-bit integer). */
export function valueText(value: unknown): string {
  return typeof value === "bigint" ? String(value) : JSON.stringify(value);
}

/** The text parsed, or undefined when it is no valid TOML (for a check that needs no line). */
export function tomlOrUndefined(text: string): Record<string, unknown> | undefined {
  try {
    return parse(text, OPTIONS) as Record<string, unknown>;
  } catch {
    return undefined;
  }
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
function tomlStatements(text: string): TomlStatement[] {
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
    const at = line;
    if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
      out.push({ line: at, kind: "comment", keys: [] });
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
    out.push({ line: at, kind, keys });
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
