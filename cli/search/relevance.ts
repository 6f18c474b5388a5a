import type { SearchIndex } from "../kb/index.ts";
import { docFrequency, termFrequency } from "../kb/lookup.ts";
import { idf, type ParsedQuery, type Ranked } from "./rank.ts";

// How well a lesson fits a query, in 0..1, from lexical evidence alone. Three factors:
// - coverage: the share of the query's distinctive weight the lesson holds (each word weighted by
//   how rare it is in the knowledge base; a word the knowledge base never uses counts as rare and
//   uncovered, so a question about something no lesson mentions stays low);
// - evidence: how much distinctive weight it holds in absolute terms, saturating at about as much
//   as two and a half of the rarest words: one shared rare word out of a three-word query is not
//   enough to say a lesson is about it;
// - standing: its BM25 score as a share of the best result's (1 for the first).
// The decision rules (recall, failure) read the first two results' relevance: high enough, and
// far enough ahead of the next.

/** Credit for a word matched only through a typo stand-in or a synonym: probably, not certainly, the same. */
const STAND_IN_CREDIT = 0.75;

/**
 * Credit for a compound matched only in pieces: an exact identifier the knowledge base has never
 * seen (`externally-managed-environment`) is weak evidence that a lesson using its words is about it.
 */
const PIECEWISE_CREDIT = 0.6;

/** Evidence saturates when the held words weigh this many times the rarest word's weight. */
const FULL_EVIDENCE_WORDS = 2.5;

/** A query word's terms by role, and how distinctive it is: the same for every lesson, so worked out once per query. */
interface WordTerms {
  importance: number;
  /** The word itself (or its compound whole): holding one of these is full credit. */
  whole: string[];
  /** A compound's parts, with their weights (idf). */
  parts: { term: string; weight: number }[];
  /** The sum of the parts' weights. */
  partsWeight: number;
  piecewise: boolean;
  /** Typo stand-ins and synonyms. */
  standIns: string[];
}

const wordTermsOf = new WeakMap<ParsedQuery, { index: SearchIndex; words: WordTerms[] }>();

function wordTerms(index: SearchIndex, query: ParsedQuery): WordTerms[] {
  const known = wordTermsOf.get(query);
  if (known?.index === index) return known.words;
  const rarest = idf(index, 1);
  const words = query.words.map((word, group) => {
    const terms = query.terms.filter((t) => t.group === group);
    const main = terms.filter((t) => t.kind !== "typo" && t.kind !== "synonym");
    let importance: number;
    if (word.known) importance = Math.max(...main.map((t) => idf(index, docFrequency(index, t.term))), 0);
    else {
      const typos = terms.filter((t) => t.kind === "typo");
      importance = typos.length ? Math.max(...typos.map((t) => idf(index, docFrequency(index, t.term)))) : rarest;
    }
    const parts = main.filter((t) => t.kind === "part").map((t) => ({ term: t.term, weight: idf(index, docFrequency(index, t.term)) }));
    return {
      importance: Math.min(importance, rarest),
      whole: main.filter((t) => t.kind !== "part").map((t) => t.term),
      parts,
      partsWeight: parts.reduce((n, p) => n + p.weight, 0),
      piecewise: word.piecewise,
      standIns: terms.filter((t) => t.kind === "typo" || t.kind === "synonym").map((t) => t.term),
    };
  });
  wordTermsOf.set(query, { index, words });
  return words;
}

/** Per query word: how distinctive it is, and what share of it the lesson holds (0..1). */
export function wordCredits(index: SearchIndex, query: ParsedQuery, doc: number): { importance: number; credit: number }[] {
  const holds = (term: string) => termFrequency(index, term, doc) > 0;
  return wordTerms(index, query).map((word) => {
    let credit = word.whole.some(holds) ? 1 : 0;
    if (credit < 1 && word.parts.length) {
      const held = word.parts.filter((p) => holds(p.term)).reduce((n, p) => n + p.weight, 0);
      credit = Math.max(credit, (word.partsWeight ? held / word.partsWeight : 0) * (word.piecewise ? PIECEWISE_CREDIT : 1));
    }
    if (credit < STAND_IN_CREDIT && word.standIns.some(holds)) credit = STAND_IN_CREDIT;
    return { importance: word.importance, credit };
  });
}

/** The share of the query's distinctive weight that the lesson holds (0..1). */
export function coverage(index: SearchIndex, query: ParsedQuery, doc: number): number {
  return fit(index, query, doc).coverage;
}

/** Coverage and evidence of one lesson for a query (both 0..1). */
export function fit(index: SearchIndex, query: ParsedQuery, doc: number): { coverage: number; evidence: number } {
  const credits = wordCredits(index, query, doc);
  const total = credits.reduce((n, c) => n + c.importance, 0);
  const held = credits.reduce((n, c) => n + c.importance * c.credit, 0);
  return { coverage: total ? held / total : 0, evidence: Math.min(1, held / (FULL_EVIDENCE_WORDS * idf(index, 1))) };
}

/** Relevance of each of the first `count` ranked results: coverage × evidence × score share of the best. */
export function relevances(index: SearchIndex, query: ParsedQuery, ranked: Ranked[], count: number): number[] {
  const best = ranked[0]?.score ?? 0;
  return ranked.slice(0, count).map((r) => {
    const { coverage, evidence } = fit(index, query, r.doc);
    return Math.round(coverage * evidence * (best ? r.score / best : 0) * 100) / 100;
  });
}
