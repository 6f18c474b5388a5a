import { lessonTerms, type SearchIndex } from "../search/index.ts";
import type { Lesson } from "./lesson.ts";
import type { FolderNote } from "./notes.ts";
import { isCurrent } from "./schema.ts";

// The one measure of how much two lessons say the same thing, used by `rkb dupes`, by `rkb add`
// (the "looks like" note) and by the `content/near-duplicate` lint warning.
//
// A lesson is a TF-IDF vector over its weighted terms, the same terms the search index holds (title,
// tags, queries, folder, lead section, body: search/index.ts `lessonTerms`): weight =
// (1 + ln tf) · ln((1 + N) / (1 + df)), the 64 heaviest terms kept, L2-normalized; the similarity of
// two lessons is the dot product of their vectors (0..1).
//
// Pairs come from an inverted index with prefix filtering: each lesson indexes only its rarer terms,
// leaving out its most common ones as long as their share of the vector (its norm) stays below the
// threshold, so a pair that shares no indexed term cannot reach it; terms in more than 2% of the
// lessons are not indexed at all. Scores accumulate over the
// postings; only pairs whose bound reaches the threshold get an exact dot product.

const KEPT_TERMS = 64;
/**
 * Terms in more lessons than this never make a pair on their own (they still count in its score):
 * lessons that share only such words share vocabulary, not a subject. This keeps the pair search
 * near linear: the postings it walks stay short.
 */
const COMMON_TERM_SHARE = 0.02;
const COMMON_TERM_MIN = 50;
/**
 * The unindexed part of a vector may hold at most this share of the threshold: a smaller part
 * indexes more terms but leaves a tighter bound, so fewer pairs need an exact dot product.
 */
const SUFFIX_SHARE = 0.5;

export interface Comparable {
  id: string;
  title: string;
  path: string;
}

export interface SimilarPair<T extends Comparable> {
  similarity: number;
  a: T;
  b: T;
}

interface Vector {
  /** Term ids, ascending. */
  terms: Int32Array;
  weights: Float64Array;
}

export class SimilarityIndex<T extends Comparable> {
  private readonly termIds = new Map<string, number>();
  private readonly df: number[] = [];
  private readonly vectors: Vector[];

  constructor(
    readonly items: T[],
    frequencies: Map<string, number>[],
  ) {
    for (const tf of frequencies) {
      for (const term of tf.keys()) {
        let id = this.termIds.get(term);
        if (id === undefined) this.termIds.set(term, (id = this.df.length)), this.df.push(0);
        this.df[id]!++;
      }
    }
    this.vectors = frequencies.map((tf) => this.vector(tf));
  }

  private vector(tf: Map<string, number>): Vector {
    const n = this.items.length;
    const weighted: [number, number][] = [];
    for (const [term, f] of tf) {
      const id = this.termIds.get(term);
      const w = (1 + Math.log(f)) * Math.log((1 + n) / (1 + (id === undefined ? 0 : this.df[id]!)));
      // A term no indexed lesson has cannot match; it still counts in the norm.
      if (w > 0) weighted.push([id ?? -1, w]);
    }
    weighted.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    const kept = weighted.slice(0, KEPT_TERMS);
    const norm = Math.sqrt(kept.reduce((s, [, w]) => s + w * w, 0)) || 1;
    const matchable = kept.filter(([id]) => id >= 0).sort((x, y) => x[0] - y[0]);
    return { terms: Int32Array.from(matchable.map(([id]) => id)), weights: Float64Array.from(matchable.map(([, w]) => w / norm)) };
  }

  /** Items at least `min` similar to a lesson's terms (itself included when indexed), most similar first. */
  similarTo(tf: Map<string, number>, min: number): { similarity: number; item: T }[] {
    const v = this.vector(tf);
    const out: { similarity: number; item: T }[] = [];
    this.vectors.forEach((other, i) => {
      const s = dot(v, other);
      if (s >= min) out.push({ similarity: round(s), item: this.items[i]! });
    });
    return out.sort((x, y) => y.similarity - x.similarity || (x.item.path < y.item.path ? -1 : 1));
  }

  /** Every pair at least `min` similar, most similar first (ties by path); `a` sorts before `b`. */
  pairs(min: number): SimilarPair<T>[] {
    const n = this.items.length;
    const postDocs: number[][] = this.df.map(() => []);
    const postWeights: number[][] = this.df.map(() => []);
    const suffixNorm = new Float64Array(n);
    const acc = new Float64Array(n);
    const touched: number[] = [];
    const out: SimilarPair<T>[] = [];
    const bound = Math.max(min, 1e-9);
    const common = Math.max(COMMON_TERM_MIN, Math.ceil(n * COMMON_TERM_SHARE));
    for (let i = 0; i < n; i++) {
      const v = this.vectors[i]!;
      for (let k = 0; k < v.terms.length; k++) {
        const docs = postDocs[v.terms[k]!]!;
        const weights = postWeights[v.terms[k]!]!;
        const w = v.weights[k]!;
        for (let p = 0; p < docs.length; p++) {
          const j = docs[p]!;
          if (acc[j] === 0) touched.push(j);
          acc[j]! += w * weights[p]!;
        }
      }
      for (const j of touched) {
        if (acc[j]! + suffixNorm[j]! >= min) {
          const s = dot(v, this.vectors[j]!);
          if (s >= min) {
            const [a, b] = this.items[j]!.path < this.items[i]!.path ? [this.items[j]!, this.items[i]!] : [this.items[i]!, this.items[j]!];
            out.push({ similarity: round(s), a, b });
          }
        }
        acc[j] = 0;
      }
      touched.length = 0;
      // Leave the most common terms out of the index while their norm stays below the threshold.
      const byCommonness = [...v.terms.keys()].sort((x, y) => this.df[v.terms[y]!]! - this.df[v.terms[x]!]!);
      let left = 0;
      let cut = 0;
      while (cut < byCommonness.length && left + v.weights[byCommonness[cut]!]! ** 2 < (bound * SUFFIX_SHARE) ** 2)
        left += v.weights[byCommonness[cut++]!]! ** 2;
      suffixNorm[i] = Math.sqrt(left);
      for (const k of byCommonness.slice(cut)) {
        if (this.df[v.terms[k]!]! > common) continue;
        postDocs[v.terms[k]!]!.push(i);
        postWeights[v.terms[k]!]!.push(v.weights[k]!);
      }
    }
    return out.sort((x, y) => y.similarity - x.similarity || (x.a.path < y.a.path ? -1 : x.a.path > y.a.path ? 1 : x.b.path < y.b.path ? -1 : 1));
  }
}

function dot(x: Vector, y: Vector): number {
  let s = 0;
  let i = 0;
  let j = 0;
  while (i < x.terms.length && j < y.terms.length) {
    const a = x.terms[i]!;
    const b = y.terms[j]!;
    if (a === b) s += x.weights[i++]! * y.weights[j++]!;
    else if (a < b) i++;
    else j++;
  }
  return Math.min(1, s);
}

function round(s: number): number {
  return Math.round(s * 1000) / 1000;
}

/** The similarity index of current (active or stale) lessons, from parsed lessons (lint). */
export function lessonSimilarity(lessons: Lesson[], notes: FolderNote[]): SimilarityIndex<Lesson> {
  const byFolder = new Map(notes.map((n) => [n.folder, n]));
  const current = lessons.filter((l) => isCurrent(l.status));
  return new SimilarityIndex(
    current,
    current.map((l) => lessonTerms(l, byFolder).tf),
  );
}

/** The same index from the cached search index, without reading a lesson (dupes, add). */
export function searchIndexSimilarity(index: SearchIndex): SimilarityIndex<Comparable> {
  const docs: number[] = [];
  for (let d = 0; d < index.size; d++) if (index.docCurrent[d]) docs.push(d);
  const slot = new Map(docs.map((d, i) => [d, i]));
  const frequencies = docs.map(() => new Map<string, number>());
  index.terms.forEach((term, t) => {
    for (let p = index.termStart[t]!; p < index.termStart[t + 1]!; p++) {
      const i = slot.get(index.postDocs[p]!);
      if (i !== undefined) frequencies[i]!.set(term, index.postTf[p]!);
    }
  });
  return new SimilarityIndex(
    docs.map((d) => {
      const l = index.lesson(d);
      return { id: l.id, title: l.title, path: l.path };
    }),
    frequencies,
  );
}

/** The weighted terms of a lesson, as the search index and the similarity measure read them. */
export function similarityTerms(lesson: Lesson, notes: FolderNote[]): Map<string, number> {
  return lessonTerms(lesson, new Map(notes.map((n) => [n.folder, n]))).tf;
}

/** Whether two lessons say exactly the same: same title and body, whitespace and case aside. */
export function sameContent(a: Pick<Lesson, "body">, b: Pick<Lesson, "body">): boolean {
  const norm = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
  return norm(a.body) === norm(b.body);
}
