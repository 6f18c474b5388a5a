import { randomHex, sha256Hex } from "../base/hash.ts";
import { scanBody, firstSentence, type BodyScan } from "./body.ts";
import { FRONTMATTER_KEYS, LEAD_SECTION, LESSON_TYPES, type FrontmatterKey, type LessonType, type Status } from "./schema.ts";
import { emitEntry, flowStyleLines, type YamlValue } from "./yaml.ts";

export type Frontmatter = Partial<Record<FrontmatterKey, YamlValue>>;

export interface Lesson {
  /** Path relative to the knowledge base, `/`-separated. */
  path: string;
  raw: string;
  frontmatter: Frontmatter;
  /** 1-based file line of each top-level frontmatter key. */
  keyLines: Record<string, number>;
  /** Lines (file-relative) where the frontmatter uses flow style. */
  flowStyle: number[];
  body: string;
  /** File line where the body starts (the line after the closing `---`). */
  bodyLine: number;
  scan: BodyScan;
  id: string;
  type: LessonType | string;
  status: Status | string;
  title: string;
  tags: string[];
  queries: string[];
  when: Record<string, YamlValue>;
  verified: string;
  verifiedHow: string;
  sections: Map<string, string>;
}

/** A problem that stops a file from being read as a lesson at all. */
export class LessonParseError extends Error {
  constructor(
    readonly path: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

export function splitFrontmatter(text: string, path: string): { yaml: string; body: string; bodyLine: number } {
  const first = /^---\r?\n/.exec(text);
  if (!first) throw new LessonParseError(path, 1, "the file must start with a `---` line that opens the YAML frontmatter");
  const rest = text.slice(first[0].length);
  const close = /^---\r?$/m.exec(rest);
  if (!close) throw new LessonParseError(path, 1, "the frontmatter is never closed: add a line `---` after it");
  const yaml = rest.slice(0, close.index);
  let bodyStart = first[0].length + close.index + close[0].length;
  if (text[bodyStart] === "\n") bodyStart++;
  const bodyLine = yaml.split("\n").length + 2;
  return { yaml: yaml.replace(/\r\n/g, "\n"), body: text.slice(bodyStart), bodyLine };
}

/** The file line of each top-level key of a frontmatter (line 1 is the opening `---`). */
export function frontmatterKeyLines(yaml: string): Record<string, number> {
  // No prototype: a key named `__proto__` or `constructor` is a key like any other here.
  const lines: Record<string, number> = Object.create(null);
  yaml.split("\n").forEach((line, i) => {
    const m = /^([A-Za-z_][\w-]*)\s*:/.exec(line);
    if (m && !(m[1]! in lines)) lines[m[1]!] = i + 2;
  });
  return lines;
}

/** Throws on a top-level key written twice: YAML readers disagree on which one wins (Bun keeps the last, the Rust rkb refuses). */
function refuseDuplicateKeys(yaml: string, path: string): void {
  const seen = new Map<string, number>();
  yaml.split("\n").forEach((line, i) => {
    const key = /^([A-Za-z_][\w-]*)\s*:/.exec(line)?.[1];
    if (key === undefined) return;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new LessonParseError(path, i + 2, `the frontmatter key \`${key}\` appears twice (lines ${first} and ${i + 2}); keep one of them`);
    }
    seen.set(key, i + 2);
  });
}

const parses = (yaml: string): boolean => {
  try {
    Bun.YAML.parse(yaml);
    return true;
  } catch {
    return false;
  }
};

/**
 * Bun's YAML errors carry no line, so find the line where the text stops parsing (0-based): the
 * first top-level entry whose addition breaks the parse, then the first of its lines that does.
 * Both searches are binary (a prefix that parses is followed by ones that do not), so a broken
 * frontmatter of n lines costs O(n log n), not one parse per line.
 */
function firstBadLine(yaml: string): number {
  const lines = yaml.split("\n");
  const prefix = (n: number) => lines.slice(0, n).join("\n");
  // Entry starts: lines a top-level key (or anything unindented) opens; the text before the first one parses alone.
  const starts = lines.flatMap((line, i) => (i > 0 && /^[^\s#]/.test(line) ? [i] : []));
  starts.push(lines.length);
  const lastGood = (candidates: number[], lo: number): number => {
    // candidates ascending; returns the largest candidate whose prefix parses (lo when none does)
    let [good, bad] = [-1, candidates.length];
    while (bad - good > 1) {
      const mid = (good + bad) >> 1;
      if (parses(prefix(candidates[mid]!))) good = mid;
      else bad = mid;
    }
    return good === -1 ? lo : candidates[good]!;
  };
  const entryStart = lastGood(starts, 0);
  const entryEnd = starts.find((s) => s > entryStart) ?? lines.length;
  const within: number[] = [];
  for (let n = entryStart + 1; n <= entryEnd; n++) within.push(n);
  return Math.min(lastGood(within, entryStart), lines.length - 1);
}

/** Parses YAML frontmatter text into a map, with the failing line on error. */
export function parseYamlMap(yaml: string, path: string, firstLine: number): Record<string, YamlValue> {
  let data: unknown;
  try {
    data = yaml.trim() === "" ? {} : Bun.YAML.parse(yaml);
  } catch (e) {
    const line = firstLine + firstBadLine(yaml);
    const message = (e as Error).message;
    // A chain of aliases (`*a` repeating `*b` repeating …, "billion laughs") expands past what the parser allows.
    if (/excessive aliasing/i.test(message)) {
      throw new LessonParseError(
        path,
        line,
        "the frontmatter's YAML aliases (`*name`) expand to too much data; write the values out instead of repeating anchors",
      );
    }
    throw new LessonParseError(path, line, `the frontmatter is not valid YAML (${message}); fix the YAML syntax on this line`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new LessonParseError(path, firstLine, "the frontmatter must be a YAML map of `key: value` lines");
  }
  return data as Record<string, YamlValue>;
}

/** Throws on the first key that is no frontmatter key (`__proto__` included: YAML makes it an own key). */
export function refuseUnknownKeys(data: Record<string, YamlValue>, path: string, keyLines: Record<string, number>): void {
  for (const key of Object.keys(data)) {
    if (!(FRONTMATTER_KEYS as readonly string[]).includes(key)) {
      const line = keyLines[key] ?? 2;
      throw new LessonParseError(path, line, `unknown frontmatter key \`${key}\` on line ${line}; allowed keys: ${FRONTMATTER_KEYS.join(", ")}`);
    }
  }
}

/**
 * Ids are hex: an unquoted `id: 1234567890` or `12e4567890` is YAML's number, but the id as
 * written (the Rust rkb reads it the same way).
 */
export function idsAsWritten(data: Record<string, YamlValue>, yaml: string): void {
  for (const key of ["id", "superseded_by"]) {
    if (typeof data[key] !== "number") continue;
    const written = new RegExp(`^${key}:[ \\t]*([0-9A-Za-z.+-]+)[ \\t]*(?:#.*)?$`, "m").exec(yaml);
    if (written) data[key] = written[1]!;
  }
}

export function parseLesson(text: string, path: string): Lesson {
  const { yaml, body, bodyLine } = splitFrontmatter(text, path);
  const data = parseYamlMap(yaml, path, 2);
  const keyLines = frontmatterKeyLines(yaml);
  refuseUnknownKeys(data, path, keyLines);
  refuseDuplicateKeys(yaml, path);
  idsAsWritten(data, yaml);
  const frontmatter: Frontmatter = {};
  for (const key of FRONTMATTER_KEYS) if (key in data) frontmatter[key] = data[key]!;
  const scan = scanBody(body);
  const sections = new Map<string, string>();
  for (const s of scan.sections) if (!sections.has(s.heading)) sections.set(s.heading, s.text);
  const h1 = scan.headings.find((h) => h.level === 1);
  return {
    path,
    raw: text,
    frontmatter,
    keyLines,
    flowStyle: flowStyleLines(yaml).map((l) => l + 1),
    body,
    bodyLine,
    scan,
    id: str(data.id),
    type: str(data.type),
    status: str(data.status),
    title: h1?.text ?? "",
    tags: strList(data.tags),
    queries: strList(data.queries),
    when: isMap(data.when) ? data.when : {},
    verified: str(data.verified),
    verifiedHow: str(data.verified_how),
    sections,
  };
}

function str(v: YamlValue | undefined): string {
  return v === undefined || v === null ? "" : typeof v === "object" ? "" : String(v);
}

function strList(v: YamlValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x) => x !== null && typeof x !== "object").map(String) : [];
}

export function isMap(v: unknown): v is Record<string, YamlValue> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Writes frontmatter in canonical key order, block style; the body is kept byte for byte. */
export function serializeLesson(frontmatter: Frontmatter, body: string): string {
  const lines: string[] = [];
  for (const key of FRONTMATTER_KEYS) {
    const value = frontmatter[key];
    if (value === undefined) continue;
    lines.push(...emitEntry(key, value));
  }
  return `---\n${lines.join("\n")}\n---\n${body}`;
}

/** The lesson's content hash: the first 6 bytes of SHA-256 over the whole file, as 12 hex chars. */
export function contentHash(text: string): string {
  return sha256Hex(text).slice(0, 12);
}

/** What contentHash gives: 12 lowercase hex characters. */
export const CONTENT_HASH = /^[0-9a-f]{12}$/;

/** A new lesson id: 10 lowercase hex chars that YAML reads as a string and no lesson has yet. */
export function newId(taken: (id: string) => boolean): string {
  for (;;) {
    const id = randomHex(5);
    if (/^\d+$/.test(id) || /^\d+e\d+$/.test(id) || taken(id)) continue;
    return id;
  }
}

/** The lesson's one-sentence summary, from its lead section. */
export function summary(lesson: Lesson): string {
  const lead = LEAD_SECTION[lesson.type as LessonType];
  return lead ? firstSentence(lesson.sections.get(lead) ?? "") : "";
}

export function isLessonType(t: string): t is LessonType {
  return (LESSON_TYPES as readonly string[]).includes(t);
}
