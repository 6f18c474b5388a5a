import type { SearchIndex } from "./index.ts";

// Reading the index's vocabulary and postings. Ranking reads an index only through these and the
// arrays of RankedIndex, so the site's search in the browser runs the same ranking source over the
// index file a site build writes (cli/site/browser/search.ts), without the cache and the file system.

/** What ranking reads of an index: the CLI's cached index, or the one a site build writes. */
export type RankedIndex = Pick<
  SearchIndex,
  "size" | "avgLength" | "lengths" | "docScope" | "docCurrent" | "titleOrder" | "scopes" | "terms" | "vocabulary" | "termStart" | "postings" | "aliases"
> & { lesson(i: number): { id: string } };

/** Position of a term in the vocabulary, or -1. */
export function termId(index: RankedIndex, term: string): number {
  let lo = 0;
  let hi = index.terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = index.terms[mid]!;
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function docFrequency(index: RankedIndex, term: string): number {
  const id = termId(index, term);
  return id < 0 ? 0 : index.termStart[id + 1]! - index.termStart[id]!;
}

/** The weighted frequency of a term in a lesson (0 when absent). */
export function termFrequency(index: RankedIndex, term: string, doc: number): number {
  const id = termId(index, term);
  if (id < 0) return 0;
  const { docs, tf } = index.postings(id);
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = docs[mid]!;
    if (d === doc) return tf[mid]!;
    if (d < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}
