import { join } from "node:path";
import { writeAtomic } from "../base/fsutil.ts";
import { summary, type Lesson } from "../lesson/lesson.ts";
import type { FolderNote } from "../lesson/notes.ts";
import { isCurrent } from "../lesson/schema.ts";
import { loadKb, type Kb } from "./store.ts";
import type { YamlValue } from "../lesson/yaml.ts";
import { cacheDir } from "../machine/settings.ts";
import { encodeIndex, FORMAT, readCache } from "./index-file.ts";
import { kbSignature } from "./signature.ts";
import { termsOfToken, tokenCharTable, tokenize } from "../text/tokenize.ts";

// The search index: per term, which lessons hold it and how strongly (term frequency weighted by
// the field it occurs in). Building it means parsing every lesson, so it is cached in one binary
// file per knowledge base under the cache folder (index-file.ts) and reused while no lesson or folder note has
// changed (same paths, sizes and modification times). A search then reads one file and decodes
// only the lessons it shows.

/** How much one occurrence of a term counts in each part of a lesson. */
export const FIELD_WEIGHTS = {
  title: 3.0,
  tags: 2.5,
  queries: 2.0,
  /** The topic folder and its aliases, the project or system folder and theirs. */
  folder: 1.5,
  when: 1.5,
  headings: 1.0,
  /** The lead section (Symptom, Statement, …): how the problem shows up. */
  lead: 1.5,
  body: 1.0,
} as const;

/** What a search shows of a lesson, decoded only for the lessons it returns. */
export interface IndexedLesson {
  id: string;
  type: string;
  status: string;
  title: string;
  path: string;
  summary: string;
  tags: string[];
  when: Record<string, YamlValue>;
  verified: string;
  verifiedHow: string;
  /** `general`, `projects/<name>` or `systems/<name>`. */
  scope: string;
  /** Why the lesson was flagged stale, when it says (`stale_reason`); for `rkb review`. */
  staleReason?: string;
  /** The Evidence section as written, when the lesson has one; for review's evidence check. */
  evidence?: string;
}

export interface SearchIndex {
  root: string;
  size: number;
  avgLength: number;
  lengths: Float32Array;
  /** Index into `scopes` per lesson. */
  docScope: Uint32Array;
  /** Per lesson: 1 when its status is one search shows by default (active, stale), else 0. */
  docCurrent: Uint32Array;
  /** Per lesson: its place when lessons are ordered by title (equal titles by path), so ranking breaks ties without decoding lessons. */
  titleOrder: Uint32Array;
  scopes: string[];
  /** Sorted vocabulary; terms[i] is held by termStart[i+1] - termStart[i] lessons. */
  terms: string[];
  /** The vocabulary as one text, a term per line: what a regular expression scans (typo candidates). */
  vocabulary: string;
  termStart: Uint32Array;
  /** The lessons that hold terms[id], in ascending order, and how strongly (weighted term frequency). */
  postings(id: number): Postings;
  /** Every term's postings, term after term in vocabulary order (termStart[id] is where each starts): for work over the whole index. */
  allPostings(): Postings;
  /** Folder aliases (as typed, lowercased) → the terms of the folder name they stand for. */
  aliases: Record<string, string[]>;
  /** The terms of every folder name below a scope (`cmake`, `git`, a project's name): what lessons are filed under. */
  topics: string[];
  notes: FolderNote[];
  /** Note paths and one path per project and system folder: enough for place matching. */
  files: string[];
  /** Lesson files that do not parse (search leaves them out; review and list say they are there). */
  unreadable: Unreadable[];
  lesson(i: number): IndexedLesson;
}

export interface Postings {
  docs: Uint32Array;
  tf: Float32Array;
}

export interface Unreadable {
  path: string;
  line: number;
  message: string;
}

/**
 * The index last loaded in this process, per knowledge base. A long-running process (`rkb mcp`)
 * then skips reading and decoding the cache file while the signature still matches.
 */
const held = new Map<string, { signature: string; index: SearchIndex }>();

/** The index of the knowledge base at root, from memory or the cache when it is current. */
export function loadIndex(root: string, env: NodeJS.ProcessEnv = process.env): SearchIndex {
  const signature = FORMAT + kbSignature(root);
  const kept = held.get(root);
  if (kept?.signature === signature) return kept.index;
  const file = indexCacheFile(root, env);
  let index = readCache(file, root, signature);
  if (!index) {
    index = buildIndex(loadKb(root));
    try {
      writeAtomic(file, encodeIndex(index, signature));
    } catch {
      // A read-only cache folder costs speed, not correctness.
    }
  }
  held.set(root, { signature, index });
  return index;
}

export function indexCacheFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = Bun.hash(root).toString(16).padStart(16, "0");
  return join(cacheDir(env), "search", `${key}.idx`);
}

function scopeOf(path: string): string {
  const parts = path.split("/");
  return parts[0] === "general" ? "general" : `${parts[0]}/${parts[1]}`;
}

/** The folders a lesson sits in below its scope (`projects/p/cmake/x.md` → projects/p, projects/p/cmake). */
function enclosingFolders(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  const out: string[] = [];
  for (let i = 2; i <= parts.length; i++) out.push(parts.slice(0, i).join("/"));
  return out;
}

function whenText(when: Record<string, YamlValue>): string {
  return Object.entries(when)
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(" ") : String(v)}`)
    .join(" ");
}

/** Each searched part of a lesson with its text, in the order the index reads them. */
export function lessonFields(lesson: Lesson, notes: Map<string, FolderNote>): { field: keyof typeof FIELD_WEIGHTS; text: string }[] {
  const out: { field: keyof typeof FIELD_WEIGHTS; text: string }[] = [
    { field: "title", text: lesson.title },
    { field: "tags", text: lesson.tags.join(" ") },
    { field: "queries", text: lesson.queries.join("\n") },
  ];
  for (const folder of enclosingFolders(lesson.path)) {
    const name = folder.split("/").pop()!;
    out.push({ field: "folder", text: [name, ...(notes.get(folder)?.aliases ?? [])].join(" ") });
  }
  out.push({ field: "when", text: whenText(lesson.when) });
  out.push({ field: "headings", text: lesson.scan.sections.map((s) => s.heading).join("\n") });
  const lead = lesson.scan.sections[0];
  for (const section of lesson.scan.sections) out.push({ field: section === lead ? "lead" : "body", text: section.text });
  return out;
}

/**
 * Counts the weighted terms of one lesson at a time. Building the index reads every word of every
 * lesson, and most of them are the same few thousand words: each distinct raw token is analysed
 * once and its terms numbered, so counting a word is a lookup and an add into a typed array rather
 * than string map updates. The token memo is dropped when it grows past a bound (flat memory on any
 * input); term numbers live as long as the counter.
 */
class TermCounter {
  readonly terms: string[] = [];
  private readonly numbers = new Map<string, number>();
  /** Per term number: its weight in the current lesson (0 when the lesson does not hold it). */
  weights = new Float64Array(1024);
  /** The term numbers the current lesson holds, in the order first met. */
  readonly held: number[] = [];
  /** The current lesson's number of terms, unweighted. */
  length = 0;

  /** Adds a lesson's searched fields, each term weighted by its field. */
  addLesson(lesson: Lesson, notes: Map<string, FolderNote>): void {
    for (const { field, text } of lessonFields(lesson, notes)) this.add(text, FIELD_WEIGHTS[field]);
  }

  /**
   * Scans the text for tokens (runs of token characters, as tokenize splits it) and finds each in
   * the memo by a hash of its characters and a compare in place: no string is made for a token
   * seen before, and most are.
   */
  private add(text: string, weight: number): void {
    const tokenChar = this.tokenChar;
    const length = text.length;
    let i = 0;
    while (i < length) {
      let c = text.charCodeAt(i);
      if (c >= 128 || tokenChar[c] === 0) {
        i++;
        continue;
      }
      const start = i;
      let hash = 0x811c9dc5;
      do {
        hash = Math.imul(hash ^ c, 0x01000193);
        c = ++i < length ? text.charCodeAt(i) : 0;
      } while (i < length && c < 128 && tokenChar[c] === 1);
      const numbers = this.tokenTerms(text, start, i, hash >>> 0);
      for (let k = 0; k < numbers.length; k++) {
        const n = numbers[k]!;
        if (this.weights[n] === 0) this.held.push(n);
        this.weights[n] += weight;
      }
      this.length += numbers.length;
    }
  }

  private readonly tokenChar = tokenCharTable();
  /** The token memo: an open-addressing table of entry numbers + 1, and per entry its text, hash and term numbers. */
  private slots = new Int32Array(1 << 12);
  private tokens: string[] = [];
  private tokenHashes: number[] = [];
  private tokenNumbers: number[][] = [];

  /** The term numbers of the token text[start, end). */
  private tokenTerms(text: string, start: number, end: number, hash: number): number[] {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let e = this.slots[slot]!; e !== 0; e = this.slots[slot]!) {
      const token = this.tokens[e - 1]!;
      if (this.tokenHashes[e - 1] === hash && token.length === end - start && text.startsWith(token, start)) return this.tokenNumbers[e - 1]!;
      slot = (slot + 1) & mask;
    }
    if (this.tokens.length >= TOKEN_MEMO_LIMIT) {
      this.slots.fill(0);
      this.tokens = [];
      this.tokenHashes = [];
      this.tokenNumbers = [];
      return this.tokenTerms(text, start, end, hash);
    }
    const token = text.slice(start, end);
    const numbers = termsOfToken(token).map((t) => this.number(t));
    this.tokens.push(token);
    this.tokenHashes.push(hash);
    this.tokenNumbers.push(numbers);
    this.slots[slot] = this.tokens.length;
    if (this.tokens.length * 2 > this.slots.length) this.growSlots();
    return numbers;
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    this.tokenHashes.forEach((hash, e) => {
      let slot = hash & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = e + 1;
    });
  }

  private number(term: string): number {
    let n = this.numbers.get(term);
    if (n === undefined) {
      n = this.terms.length;
      this.numbers.set(term, n);
      this.terms.push(term);
      if (n >= this.weights.length) {
        const grown = new Float64Array(this.weights.length * 2);
        grown.set(this.weights);
        this.weights = grown;
      }
    }
    return n;
  }

  /** Starts the next lesson. */
  clear(): void {
    for (const n of this.held) this.weights[n] = 0;
    this.held.length = 0;
    this.length = 0;
  }
}

const TOKEN_MEMO_LIMIT = 50_000;
/** A counter for lessonTerms, renewed once it has numbered this many terms. */
const SHARED_COUNTER_TERMS = 200_000;
let shared: TermCounter | undefined;

/** The weighted terms of one lesson, and its length (the number of terms, unweighted). */
export function lessonTerms(lesson: Lesson, notes: Map<string, FolderNote>): { tf: Map<string, number>; length: number } {
  if (!shared || shared.terms.length > SHARED_COUNTER_TERMS) shared = new TermCounter();
  shared.addLesson(lesson, notes);
  const tf = new Map<string, number>();
  for (const n of shared.held) tf.set(shared.terms[n]!, shared.weights[n]!);
  const { length } = shared;
  shared.clear();
  return { tf, length };
}

/** Growable parallel arrays of postings (term number, lesson, weight), in lesson order. */
class PostingList {
  count = 0;
  terms = new Uint32Array(1 << 16);
  docs = new Uint32Array(1 << 16);
  weights = new Float32Array(1 << 16);

  push(term: number, doc: number, weight: number): void {
    if (this.count === this.terms.length) {
      const grow = <T extends Uint32Array | Float32Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.terms = grow(this.terms, (n) => new Uint32Array(n));
      this.docs = grow(this.docs, (n) => new Uint32Array(n));
      this.weights = grow(this.weights, (n) => new Float32Array(n));
    }
    this.terms[this.count] = term;
    this.docs[this.count] = doc;
    this.weights[this.count++] = weight;
  }
}

export function buildIndex(kb: Kb): SearchIndex {
  const notes = new Map(kb.notes.map((n) => [n.folder, n]));
  const lessons = [...kb.lessons].sort((a, b) => (a.path < b.path ? -1 : 1));
  const counter = new TermCounter();
  const found = new PostingList();
  const lengths = new Float32Array(lessons.length);
  const scopes: string[] = [];
  const docScope = new Uint32Array(lessons.length);
  const docCurrent = new Uint32Array(lessons.length);
  const meta: IndexedLesson[] = [];
  lessons.forEach((lesson, i) => {
    counter.addLesson(lesson, notes);
    lengths[i] = counter.length;
    for (const n of counter.held) found.push(n, i, counter.weights[n]!);
    counter.clear();
    const scope = scopeOf(lesson.path);
    if (!scopes.includes(scope)) scopes.push(scope);
    docScope[i] = scopes.indexOf(scope);
    docCurrent[i] = isCurrent(lesson.status) ? 1 : 0;
    const staleReason = lesson.frontmatter.stale_reason;
    const evidence = lesson.sections.get("Evidence");
    meta.push({
      id: lesson.id,
      type: lesson.type,
      status: lesson.status,
      title: lesson.title,
      path: lesson.path,
      summary: summary(lesson),
      tags: lesson.tags,
      when: lesson.when,
      verified: lesson.verified,
      verifiedHow: lesson.verifiedHow,
      scope,
      ...(staleReason ? { staleReason: String(staleReason) } : {}),
      ...(evidence !== undefined ? { evidence } : {}),
    });
  });
  // The vocabulary sorted; postings grouped by term in one counting pass, each term's lessons staying in order.
  const terms = [...counter.terms].sort();
  const placeOf = new Map(terms.map((t, i) => [t, i]));
  const place = Uint32Array.from(counter.terms, (t) => placeOf.get(t)!);
  const termStart = new Uint32Array(terms.length + 1);
  for (let p = 0; p < found.count; p++) termStart[place[found.terms[p]!]! + 1]!++;
  for (let t = 0; t < terms.length; t++) termStart[t + 1]! += termStart[t]!;
  const next = termStart.slice(0, terms.length);
  const postDocs = new Uint32Array(found.count);
  const postTf = new Float32Array(found.count);
  for (let p = 0; p < found.count; p++) {
    const at = next[place[found.terms[p]!]!]!++;
    postDocs[at] = found.docs[p]!;
    postTf[at] = found.weights[p]!;
  }
  const sum = lengths.reduce((a, b) => a + b, 0);
  const titleOrder = new Uint32Array(lessons.length);
  lessons
    .map((lesson, doc) => ({ title: lesson.title, doc }))
    .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0))
    .forEach(({ doc }, place) => (titleOrder[doc] = place));
  return {
    root: kb.root,
    size: lessons.length,
    avgLength: Math.max(1, lessons.length ? sum / lessons.length : 1),
    lengths,
    docScope,
    docCurrent,
    titleOrder,
    scopes,
    terms,
    vocabulary: terms.join("\n"),
    termStart,
    postings: (id) => ({ docs: postDocs.subarray(termStart[id], termStart[id + 1]), tf: postTf.subarray(termStart[id], termStart[id + 1]) }),
    allPostings: () => ({ docs: postDocs, tf: postTf }),
    aliases: folderAliases(kb.notes),
    topics: [...new Set(lessons.flatMap((l) => tokenize(l.path.split("/").slice(1, -1).join(" "))))].sort(),
    notes: kb.notes,
    files: placeFiles(kb),
    unreadable: kb.broken.filter((b) => b.kind === "lesson").map(({ path, line, message }) => ({ path, line, message })),
    lesson: (i) => meta[i]!,
  };
}

function folderAliases(notes: FolderNote[]): Record<string, string[]> {
  const aliases: Record<string, string[]> = {};
  for (const note of notes) {
    const terms = tokenize(note.folder.split("/").pop()!);
    if (!terms.length) continue;
    for (const alias of note.aliases) aliases[alias.toLowerCase()] = terms;
  }
  return aliases;
}

function placeFiles(kb: Kb): string[] {
  const out = new Set<string>(kb.notes.map((n) => n.path));
  for (const f of kb.files) {
    const parts = f.split("/");
    if ((parts[0] === "projects" || parts[0] === "systems") && parts.length > 2) out.add(`${parts[0]}/${parts[1]}/`);
  }
  return [...out];
}

/** A place-matching view of the knowledge base built from the index, without reading lessons. */
export function placeKb(index: SearchIndex): Kb {
  return { root: index.root, files: index.files, lessons: [], notes: index.notes, broken: [] };
}

/** Lessons per scope (`general`, `projects/<p>`, `systems/<s>`): those in search (active or stale), or with `inSearch` false the others (archived, superseded). */
export function lessonsByScope(index: SearchIndex, inSearch = true): Map<string, number> {
  const counts = new Map<string, number>();
  for (let doc = 0; doc < index.size; doc++) {
    if (Boolean(index.docCurrent[doc]) !== inSearch) continue;
    const scope = index.scopes[index.docScope[doc]!]!;
    counts.set(scope, (counts.get(scope) ?? 0) + 1);
  }
  return counts;
}

/** Every lesson of the index (current or not), as searches show them. */
export function indexedLessons(index: SearchIndex): IndexedLesson[] {
  return Array.from({ length: index.size }, (_, i) => index.lesson(i));
}

/** The position of the lesson with this id, or -1. */
export function docOfId(index: SearchIndex, id: string): number {
  for (let i = 0; i < index.size; i++) if (index.lesson(i).id === id) return i;
  return -1;
}
