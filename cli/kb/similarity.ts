import { tokenize } from "../search/tokenize.ts";
import type { Lesson } from "./lesson.ts";
import { isCurrent } from "./schema.ts";

// The one measure of how much two lessons say the same thing, used by `rkb dupes`, by `rkb add`
// (the "looks like" note) and by the `content/near-duplicate` lint warning.
//
// Each lesson is a TF-IDF vector over the terms of its title (weight 3), tags (2.5) and body (1):
// weight = (1 + ln tf) · ln((1 + N) / (1 + df)), the 64 heaviest terms kept, L2-normalized; the
// similarity of two lessons is the dot product of their vectors (0..1). Pairs are found through an
// inverted index over the terms, so the cost follows the shared terms, not the number of pairs.

const TITLE_WEIGHT = 3;
const TAG_WEIGHT = 2.5;
const KEPT_TERMS = 64;
/** Terms in more lessons than this say nothing about a pair; they add to a pair's score but never make one. */
const COMMON_TERM_SHARE = 0.05;
const COMMON_TERM_MIN = 50;

export const DEFAULT_MIN_SIMILARITY = 0.4;

export interface SimilarPair {
  similarity: number;
  a: Lesson;
  b: Lesson;
}

type Vector = Map<string, number>;

function termFrequencies(lesson: Pick<Lesson, "title" | "tags" | "body">): Map<string, number> {
  const tf = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const term of tokenize(text)) tf.set(term, (tf.get(term) ?? 0) + weight);
  };
  add(lesson.title, TITLE_WEIGHT);
  for (const tag of lesson.tags) add(tag, TAG_WEIGHT);
  add(lesson.body, 1);
  return tf;
}

/** The vectors of a set of lessons over one vocabulary, ready to compare with each other or with a new lesson. */
export class SimilarityIndex {
  private readonly frequencies: Map<string, number>[];
  private readonly df = new Map<string, number>();
  readonly vectors: Vector[];

  constructor(readonly lessons: Lesson[]) {
    this.frequencies = lessons.map(termFrequencies);
    for (const tf of this.frequencies) for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
    this.vectors = this.frequencies.map((tf) => this.vector(tf));
  }

  private vector(tf: Map<string, number>): Vector {
    const n = this.lessons.length;
    const weights = [...tf].map(([term, f]) => [term, (1 + Math.log(f)) * Math.log((1 + n) / (1 + (this.df.get(term) ?? 0)))] as const);
    weights.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    const kept = weights.slice(0, KEPT_TERMS).filter(([, w]) => w > 0);
    const norm = Math.sqrt(kept.reduce((s, [, w]) => s + w * w, 0)) || 1;
    return new Map(kept.map(([term, w]) => [term, w / norm]));
  }

  /** Lessons of the index at least `min` similar to a lesson that is not in it, most similar first. */
  similarTo(lesson: Pick<Lesson, "title" | "tags" | "body">, min: number): { similarity: number; lesson: Lesson }[] {
    const v = this.vector(termFrequencies(lesson));
    const out: { similarity: number; lesson: Lesson }[] = [];
    this.vectors.forEach((other, i) => {
      const s = dot(v, other);
      if (s >= min) out.push({ similarity: round(s), lesson: this.lessons[i]! });
    });
    return out.sort((x, y) => y.similarity - x.similarity || (x.lesson.path < y.lesson.path ? -1 : 1));
  }

  /** Every pair at least `min` similar, most similar first (ties by path). */
  pairs(min: number): SimilarPair[] {
    const common = Math.max(COMMON_TERM_MIN, Math.ceil(this.lessons.length * COMMON_TERM_SHARE));
    const postings = new Map<string, number[]>();
    const out: SimilarPair[] = [];
    this.vectors.forEach((v, i) => {
      const candidates = new Set<number>();
      for (const term of v.keys()) {
        const list = postings.get(term);
        if ((this.df.get(term) ?? 0) <= common) {
          if (list) for (const j of list) candidates.add(j);
        }
        if (list) list.push(i);
        else postings.set(term, [i]);
      }
      for (const j of candidates) {
        const s = dot(v, this.vectors[j]!);
        if (s >= min) {
          const [a, b] = this.lessons[j]!.path < this.lessons[i]!.path ? [this.lessons[j]!, this.lessons[i]!] : [this.lessons[i]!, this.lessons[j]!];
          out.push({ similarity: round(s), a, b });
        }
      }
    });
    return out.sort((x, y) => y.similarity - x.similarity || (x.a.path < y.a.path ? -1 : x.a.path > y.a.path ? 1 : x.b.path < y.b.path ? -1 : 1));
  }
}

function dot(x: Vector, y: Vector): number {
  const [small, large] = x.size <= y.size ? [x, y] : [y, x];
  let s = 0;
  for (const [term, w] of small) {
    const other = large.get(term);
    if (other !== undefined) s += w * other;
  }
  return Math.min(1, s);
}

function round(s: number): number {
  return Math.round(s * 1000) / 1000;
}

/** The lessons compared for duplicates: current ones (active or stale). */
export function comparableLessons(lessons: Lesson[]): Lesson[] {
  return lessons.filter((l) => isCurrent(l.status));
}

/** Whether two lessons say exactly the same: same title and body, whitespace and case aside. */
export function sameContent(a: Pick<Lesson, "body">, b: Pick<Lesson, "body">): boolean {
  const norm = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
  return norm(a.body) === norm(b.body);
}
