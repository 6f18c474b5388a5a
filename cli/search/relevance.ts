import { docFrequency, termFrequency, type SearchIndex } from "./index.ts";
import { idf, type ParsedQuery, type Ranked } from "./rank.ts";

// How well a lesson fits a query, in 0..1, from lexical evidence alone: which share of the
// query's distinctive words the lesson holds (coverage, each word weighted by how rare it is in
// the knowledge base; a word the knowledge base never uses counts as rare and uncovered), and how
// far the lesson leads the next result. A lesson that holds every distinctive word and clearly
// beats the runner-up scores near 1; one that shares only common words, or ties with others, low.

/** Credit for a word matched only through a typo stand-in or a synonym: probably, not certainly, the same. */
const STAND_IN_CREDIT = 0.75;

/**
 * Credit for a compound matched only in pieces: an exact identifier the knowledge base has never
 * seen (`externally-managed-environment`) is weak evidence that a lesson using its words is about it.
 */
const PIECEWISE_CREDIT = 0.6;

/** Per query word: how distinctive it is, and what share of it the lesson holds (0..1). */
export function wordCredits(index: SearchIndex, query: ParsedQuery, doc: number): { importance: number; credit: number }[] {
  const rarest = idf(index, 1);
  return query.words.map((word, group) => {
    const terms = query.terms.filter((t) => t.group === group);
    const main = terms.filter((t) => t.kind !== "typo" && t.kind !== "synonym");
    let importance: number;
    if (word.known) importance = Math.max(...main.map((t) => idf(index, docFrequency(index, t.term))), 0);
    else {
      const typos = terms.filter((t) => t.kind === "typo");
      importance = typos.length ? Math.max(...typos.map((t) => idf(index, docFrequency(index, t.term)))) : rarest;
    }
    let credit = 0;
    const parts = main.filter((t) => t.kind === "part");
    for (const t of main) if (t.kind !== "part" && termFrequency(index, t.term, doc) > 0) credit = 1;
    if (credit < 1 && parts.length) {
      const total = parts.reduce((n, t) => n + idf(index, docFrequency(index, t.term)), 0);
      const held = parts.filter((t) => termFrequency(index, t.term, doc) > 0).reduce((n, t) => n + idf(index, docFrequency(index, t.term)), 0);
      credit = Math.max(credit, (total ? held / total : 0) * (word.piecewise ? PIECEWISE_CREDIT : 1));
    }
    if (credit < STAND_IN_CREDIT && terms.some((t) => (t.kind === "typo" || t.kind === "synonym") && termFrequency(index, t.term, doc) > 0)) credit = STAND_IN_CREDIT;
    return { importance: Math.min(importance, rarest), credit };
  });
}

/** The share of the query's distinctive weight that the lesson holds (0..1). */
export function coverage(index: SearchIndex, query: ParsedQuery, doc: number): number {
  const credits = wordCredits(index, query, doc);
  const total = credits.reduce((n, c) => n + c.importance, 0);
  return total ? credits.reduce((n, c) => n + c.importance * c.credit, 0) / total : 0;
}

/** How far a result's score is ahead of the next one, as a share of its own score (0..1). */
export function lead(ranked: Ranked[], i: number): number {
  const score = ranked[i]?.score ?? 0;
  const next = ranked[i + 1]?.score ?? 0;
  return score > 0 ? Math.max(0, (score - next) / score) : 0;
}

/**
 * Relevance of each ranked result: coverage, scaled by the result's standing. The first result
 * keeps its coverage when it clearly leads and loses up to a third of it when it ties with the next;
 * later results are scaled by their score relative to the first.
 */
export function relevances(index: SearchIndex, query: ParsedQuery, ranked: Ranked[], count: number): number[] {
  const best = ranked[0]?.score ?? 0;
  return ranked.slice(0, count).map((r, i) => {
    const cov = coverage(index, query, r.doc);
    const standing = i === 0 ? 2 / 3 + lead(ranked, 0) / 3 : (2 / 3) * (r.score / best);
    return Math.round(cov * standing * 100) / 100;
  });
}
