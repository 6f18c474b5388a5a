import { lessonTerms, type SearchIndex } from "../kb/index.ts";
import { termId } from "../kb/lookup.ts";
import type { Lesson } from "../lesson/lesson.ts";
import type { FolderNote } from "../lesson/notes.ts";
import { isCurrent } from "../lesson/schema.ts";

// The one measure of how much two lessons say the same thing, used by `rkb dupes`, by `rkb add`
// (the "looks like" note) and by the `content/near-duplicate` lint warning.
//
// A lesson is a TF-IDF vector over its weighted terms, the same terms the search index holds (title,
// tags, queries, folder, lead section, body: kb/index.ts `lessonTerms`): weight =
// (1 + ln tf) · ln((1 + N) / (1 + df)), the 64 heaviest terms kept, L2-normalized; the similarity of
// two lessons is the dot product of their vectors (0..1). N counts at least MIN_LESSONS lessons.
//
// Pairs come from an inverted index with prefix filtering: each lesson indexes only its rarer terms,
// leaving out its most common ones as long as their share of the vector (its norm) stays below the
// threshold, so a pair that shares no indexed term cannot reach it; terms in more than 2% of the
// lessons (and in more than 50) are not indexed at all. Scores accumulate over the postings; only
// pairs whose bound reaches the threshold get an exact dot product.

const KEPT_TERMS = 64;
/**
 * How common a word is, is a share of the lessons, and a share of a few lessons says nothing: in a
 * knowledge base of two lessons every word the pair shares is in all of them, and its weight
 * ln((1 + N) / (1 + df)) would be 0. So N counts at least this many lessons (the missing ones hold
 * none of the words): a word weighs by how many lessons hold it, not by what share of a handful.
 * Above this many lessons nothing changes.
 */
const MIN_LESSONS = 50;
/**
 * Terms in more than this share of the lessons, and in more than COMMON_TERM_MIN of them, never make
 * a pair on their own (they still count in its score): lessons that share only such words share
 * vocabulary, not a subject. This keeps the pair search near linear: the postings it walks stay short.
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

/**
 * The weighted term frequencies of the compared lessons, packed: lesson i holds the terms
 * `terms[start[i] .. start[i + 1])` (ids ascending) with frequencies `tf[…]`. Term ids follow the
 * terms' alphabetical order, so the measure breaks ties the same way whichever source built it.
 */
interface TermCounts {
  termCount: number;
  /** The id of a term, or -1 when no compared lesson holds it. */
  termId(term: string): number;
  start: Uint32Array;
  terms: Int32Array;
  tf: Float64Array;
}

/**
 * TF-IDF vectors of lessons and the search for similar ones. Items come in path order (the order
 * pairs and ties are listed in); vectors are packed like TermCounts, holding only the kept terms.
 */
export class SimilarityIndex<T extends Comparable> {
  private readonly df: Uint32Array;
  /** ln((1 + N) / (1 + df)) per term, and for a term no compared lesson holds. */
  private readonly idf: Float64Array;
  private readonly unseenIdf: number;
  private readonly termId: (term: string) => number;
  private readonly vecStart: Uint32Array;
  private readonly vecTerms: Int32Array;
  private readonly vecWeights: Float64Array;

  constructor(
    readonly items: T[],
    counts: TermCounts,
  ) {
    const n = items.length;
    const counted = Math.max(n, MIN_LESSONS);
    this.termId = counts.termId;
    this.df = new Uint32Array(counts.termCount);
    for (let p = 0; p < counts.start[n]!; p++) this.df[counts.terms[p]!]!++;
    this.idf = new Float64Array(counts.termCount);
    for (let t = 0; t < counts.termCount; t++) this.idf[t] = Math.log((1 + counted) / (1 + this.df[t]!));
    this.unseenIdf = Math.log(1 + counted);
    this.vecStart = new Uint32Array(n + 1);
    this.vecTerms = new Int32Array(n * KEPT_TERMS);
    this.vecWeights = new Float64Array(n * KEPT_TERMS);
    const scratch = new VectorScratch();
    let at = 0;
    for (let i = 0; i < n; i++) {
      at += this.vector(counts.terms, counts.tf, counts.start[i]!, counts.start[i + 1]!, this.vecTerms, this.vecWeights, at, scratch);
      this.vecStart[i + 1] = at;
    }
  }

  /**
   * A lesson's vector: weight = (1 + ln tf) · ln((1 + N) / (1 + df)), the KEPT_TERMS heaviest kept
   * (ties: the term that sorts first), L2-normalized. Terms are ids ascending; -1 is a term no
   * compared lesson holds: it counts in the norm but cannot match, so it is left out of the result.
   * Reads terms/tf[from..to), writes the vector at outTerms/outWeights[at..], returns its length.
   */
  private vector(
    terms: Int32Array,
    tf: Float64Array,
    from: number,
    to: number,
    outTerms: Int32Array,
    outWeights: Float64Array,
    at: number,
    scratch: VectorScratch,
  ): number {
    const count = to - from;
    const weights = scratch.weights(count);
    for (let k = 0; k < count; k++) {
      const id = terms[from + k]!;
      weights[k] = (1 + Math.log(tf[from + k]!)) * (id < 0 ? this.unseenIdf : this.idf[id]!);
    }
    // The lightest weight kept: the KEPT_TERMS-th heaviest positive one, or the lightest positive
    // one when there are fewer (a selection, not a sort: Bun sorts a typed array far slower).
    const positive = scratch.selection(count);
    let positives = 0;
    let lightest = Infinity;
    for (let k = 0; k < count; k++) if (weights[k]! > 0) lightest = Math.min(lightest, (positive[positives++] = weights[k]!));
    if (positives > KEPT_TERMS) lightest = nthSmallest(positive, positives, positives - KEPT_TERMS);
    // Weights above the lightest kept one are all kept; of those equal to it, the first terms.
    let equalKept = Math.min(positives, KEPT_TERMS);
    for (let k = 0; k < positives; k++) if (positive[k]! > lightest) equalKept--;
    let norm = 0;
    let left = equalKept;
    for (let k = 0; k < count; k++) {
      const w = weights[k]!;
      if (w > lightest || (w === lightest && left-- > 0)) norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    let out = at;
    for (let k = 0; k < count; k++) {
      const w = weights[k]!;
      if (w < lightest) continue;
      if (w === lightest && equalKept-- <= 0) continue;
      if (terms[from + k]! < 0) continue;
      outTerms[out] = terms[from + k]!;
      outWeights[out++] = w / norm;
    }
    return out - at;
  }

  /** Items at least `min` similar to a lesson's terms (itself included when indexed), most similar first. */
  similarTo(tf: Map<string, number>, min: number): { similarity: number; item: T }[] {
    const query = [...tf].map(([term, f]) => ({ id: this.termId(term), f })).sort((x, y) => x.id - y.id);
    const terms = new Int32Array(KEPT_TERMS);
    const weights = new Float64Array(KEPT_TERMS);
    const length = this.vector(
      Int32Array.from(query, (q) => q.id),
      Float64Array.from(query, (q) => q.f),
      0,
      query.length,
      terms,
      weights,
      0,
      new VectorScratch(),
    );
    const out: { similarity: number; at: number }[] = [];
    for (let i = 0; i < this.items.length; i++) {
      const s = this.dot(terms, weights, 0, length, i);
      if (s >= min) out.push({ similarity: round(s), at: i });
    }
    return out.sort((x, y) => y.similarity - x.similarity || x.at - y.at).map(({ similarity, at }) => ({ similarity, item: this.items[at]! }));
  }

  /** Every pair at least `min` similar, most similar first (ties by path); `a` sorts before `b`. */
  pairs(min: number): SimilarPair<T>[] {
    const n = this.items.length;
    const { df, vecStart, vecTerms, vecWeights } = this;
    const bound = Math.max(min, 1e-9);
    const common = Math.max(COMMON_TERM_MIN, Math.ceil(n * COMMON_TERM_SHARE));
    // Which terms each lesson indexes: it leaves out its most common terms while their norm stays
    // below the threshold (suffixNorm bounds what a pair can gain from them), and terms in more
    // than `common` lessons. Decided up front, so the postings are laid out once.
    const indexed = new Uint8Array(vecTerms.length).fill(1);
    const suffixNorm = new Float64Array(n);
    const postCount = new Uint32Array(df.length + 1);
    const limit = (bound * SUFFIX_SHARE) ** 2;
    for (let i = 0; i < n; i++) {
      const from = vecStart[i]!;
      const to = vecStart[i + 1]!;
      // Most common first, ties in term order. Only a few terms fit under the limit, so they are
      // picked one by one rather than sorting every vector.
      let left = 0;
      for (;;) {
        let most = -1;
        for (let k = from; k < to; k++) if (indexed[k] && (most < 0 || df[vecTerms[k]!]! > df[vecTerms[most]!]!)) most = k;
        if (most < 0) break;
        const w = vecWeights[most]!;
        if (left + w * w >= limit) break;
        left += w * w;
        indexed[most] = 0;
      }
      suffixNorm[i] = Math.sqrt(left);
      for (let k = from; k < to; k++) {
        if (!indexed[k]) continue;
        if (df[vecTerms[k]!]! > common) indexed[k] = 0;
        else postCount[vecTerms[k]!]!++;
      }
    }
    // Postings of each term, filled lesson by lesson: while lesson i is compared they hold the
    // lessons before it.
    const postStart = new Uint32Array(df.length + 1);
    for (let t = 0; t < df.length; t++) postStart[t + 1] = postStart[t]! + postCount[t]!;
    const postFill = postStart.slice(0, df.length);
    const postDocs = new Uint32Array(postStart[df.length]!);
    const postWeights = new Float64Array(postStart[df.length]!);
    const acc = new Float64Array(n);
    const touched = new Uint32Array(n);
    const found: { similarity: number; a: number; b: number }[] = [];
    for (let i = 0; i < n; i++) {
      const from = vecStart[i]!;
      const to = vecStart[i + 1]!;
      let touchedCount = 0;
      for (let k = from; k < to; k++) {
        const t = vecTerms[k]!;
        const w = vecWeights[k]!;
        for (let p = postStart[t]!, end = postFill[t]!; p < end; p++) {
          const j = postDocs[p]!;
          if (acc[j] === 0) touched[touchedCount++] = j;
          acc[j]! += w * postWeights[p]!;
        }
      }
      for (let c = 0; c < touchedCount; c++) {
        const j = touched[c]!;
        if (acc[j]! + suffixNorm[j]! >= min) {
          const s = this.dot(vecTerms, vecWeights, from, to, j);
          if (s >= min) found.push({ similarity: round(s), a: j, b: i });
        }
        acc[j] = 0;
      }
      for (let k = from; k < to; k++) {
        if (!indexed[k]) continue;
        const t = vecTerms[k]!;
        postDocs[postFill[t]!] = i;
        postWeights[postFill[t]!++] = vecWeights[k]!;
      }
    }
    return found
      .sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b)
      .map(({ similarity, a, b }) => ({ similarity, a: this.items[a]!, b: this.items[b]! }));
  }

  /** The dot product of a vector (terms[from..to)) with item j's, at most 1. */
  private dot(terms: Int32Array, weights: Float64Array, from: number, to: number, j: number): number {
    const { vecTerms, vecWeights } = this;
    let s = 0;
    let x = from;
    let y = this.vecStart[j]!;
    const end = this.vecStart[j + 1]!;
    while (x < to && y < end) {
      const a = terms[x]!;
      const b = vecTerms[y]!;
      if (a === b) s += weights[x++]! * vecWeights[y++]!;
      else if (a < b) x++;
      else y++;
    }
    return Math.min(1, s);
  }
}

/** Reused buffers for building vectors, grown to the longest lesson. */
class VectorScratch {
  private weightBuffer = new Float64Array(256);
  private selectionBuffer = new Float64Array(256);

  weights(count: number): Float64Array {
    if (count > this.weightBuffer.length) this.weightBuffer = new Float64Array(count * 2);
    return this.weightBuffer.subarray(0, count);
  }

  selection(count: number): Float64Array {
    if (count > this.selectionBuffer.length) this.selectionBuffer = new Float64Array(count * 2);
    return this.selectionBuffer;
  }
}

/** The value that would sit at `rank` (0-based) if values[0..length) were sorted ascending; reorders them. */
function nthSmallest(values: Float64Array, length: number, rank: number): number {
  let lo = 0;
  let hi = length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (rank <= j) hi = j;
    else if (rank >= i) lo = i;
    else return values[rank]!;
  }
  return values[rank]!;
}

function round(s: number): number {
  return Math.round(s * 1000) / 1000;
}

/** The similarity index of current (active or stale) lessons, from parsed lessons (lint). */
export function lessonSimilarity(lessons: Lesson[], notes: FolderNote[]): SimilarityIndex<Lesson> {
  const byFolder = new Map(notes.map((n) => [n.folder, n]));
  const current = lessons.filter((l) => isCurrent(l.status)).sort((a, b) => (a.path < b.path ? -1 : 1));
  const frequencies = current.map((l) => lessonTerms(l, byFolder).tf);
  const vocabulary = [...new Set(frequencies.flatMap((tf) => [...tf.keys()]))].sort();
  const ids = new Map(vocabulary.map((term, id) => [term, id]));
  const start = new Uint32Array(current.length + 1);
  frequencies.forEach((tf, i) => (start[i + 1] = start[i]! + tf.size));
  const terms = new Int32Array(start[current.length]!);
  const tf = new Float64Array(start[current.length]!);
  frequencies.forEach((lessonTf, i) => {
    const sorted = [...lessonTf].map(([term, f]) => [ids.get(term)!, f] as const).sort((x, y) => x[0] - y[0]);
    sorted.forEach(([id, f], k) => ((terms[start[i]! + k] = id), (tf[start[i]! + k] = f)));
  });
  return new SimilarityIndex(current, { termCount: vocabulary.length, termId: (term) => ids.get(term) ?? -1, start, terms, tf });
}

/**
 * The same index from the cached search index, without reading a lesson (dupes, add): the term
 * counts are the index's postings, turned around; a lesson's id, title and path are decoded only
 * when it is shown.
 */
export function searchIndexSimilarity(index: SearchIndex): SimilarityIndex<Comparable> {
  // The index lists lessons in path order (buildIndex), the order the similarity index expects.
  const slot = new Int32Array(index.size).fill(-1);
  const items: Comparable[] = [];
  for (let d = 0; d < index.size; d++) {
    if (!index.docCurrent[d]) continue;
    slot[d] = items.length;
    items.push(indexedItem(index, d));
  }
  const n = items.length;
  const start = new Uint32Array(n + 1);
  const termCount = index.terms.length;
  const postings = index.allPostings();
  for (let p = 0; p < postings.docs.length; p++) {
    const i = slot[postings.docs[p]!]!;
    if (i >= 0) start[i + 1]!++;
  }
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const terms = new Int32Array(start[n]!);
  const tf = new Float64Array(start[n]!);
  // Terms in vocabulary order, so each lesson's terms come out ascending.
  for (let t = 0; t < termCount; t++) {
    for (let p = index.termStart[t]!; p < index.termStart[t + 1]!; p++) {
      const i = slot[postings.docs[p]!]!;
      if (i < 0) continue;
      terms[fill[i]!] = t;
      tf[fill[i]!++] = postings.tf[p]!;
    }
  }
  return new SimilarityIndex(items, { termCount, termId: (term) => termId(index, term), start, terms, tf });
}

/** A lesson of the search index that is decoded on first use: most compared lessons are never shown. */
function indexedItem(index: SearchIndex, doc: number): Comparable {
  return {
    get id() {
      return index.lesson(doc).id;
    },
    get title() {
      return index.lesson(doc).title;
    },
    get path() {
      return index.lesson(doc).path;
    },
  };
}

/** The weighted terms of a lesson, as the search index and the similarity measure read them. */
export function similarityTerms(lesson: Lesson, notes: FolderNote[]): Map<string, number> {
  return lessonTerms(lesson, new Map(notes.map((n) => [n.folder, n]))).tf;
}

/** A lesson body with whitespace and case evened out: two lessons with equal keys say exactly the same (title and body). */
export function contentKey(body: string): string {
  return body.replace(/\s+/g, " ").trim().toLowerCase();
}
