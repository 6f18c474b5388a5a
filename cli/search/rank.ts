import { boundedDistance } from "../text/distance.ts";
import type { UsageCounts } from "../kb/usage.ts";
import { docFrequency, termId, type RankedIndex } from "../kb/lookup.ts";
import { synonymsOf } from "../text/synonyms.ts";
import { isVersion, tokenGroups } from "../text/tokenize.ts";

// Ranked search: BM25 over the field-weighted term frequencies of the index. A query word the
// knowledge base does not know is matched to the closest known words (a typo), a folder alias
// brings in its folder's name, and a lesson's score is scaled by where it lives (the current
// project and system first) and by how it has worked before.

export const K1 = 1.2;
export const B = 0.75;

/** Weight of a part of a compound whose whole form is already known (`hdf5::File` → file). */
const PART_WEIGHT = 0.5;
/** Weight of a known word standing in for a misspelled or abbreviated one. */
const TYPO_WEIGHT = 0.5;
/** Weight of a word that means the same in everyday technical English. */
const SYNONYM_WEIGHT = 0.5;
const MAX_TYPO_CANDIDATES = 3;

/** A term the ranking looks for, with the query word (group) it came from. */
export interface QueryTerm {
  term: string;
  weight: number;
  /** Index of the query word this term belongs to. */
  group: number;
  kind: "word" | "part" | "typo" | "synonym" | "alias";
}

export interface QueryWord {
  /** The word's main term (its whole form, or its first part). */
  term: string;
  /** True when the knowledge base has the word itself (or, for a compound, all of its parts). */
  known: boolean;
  /** A compound the knowledge base knows only in pieces (`externally-managed-environment`). */
  piecewise: boolean;
}

export interface ParsedQuery {
  terms: QueryTerm[];
  words: QueryWord[];
}

export function idf(index: RankedIndex, df: number): number {
  return Math.log(1 + (index.size - df + 0.5) / (df + 0.5));
}

/**
 * Known terms that an unknown one probably means: a misspelling (distance 1 for 4–7 characters,
 * 2 from 8 on) or an abbreviation (`repo` → repository, counted as distance 1). None below 4 letters.
 * Comparing the word with every known term costs more than the rest of a search in a fresh process,
 * so one native scan of the vocabulary picks the terms worth comparing: cut into 2k + 1 pieces, a
 * word keeps at least one piece whole in any term within distance k (an edit touches at most two
 * pieces, a swap across a cut both), and an abbreviated term holds the whole word.
 */
function typoCandidates(index: RankedIndex, term: string): string[] {
  if (term.length < 4 || !/^[a-z]+$/.test(term)) return [];
  const max = term.length >= 8 ? 2 : 1;
  const found: { term: string; distance: number }[] = [];
  const text = index.vocabulary;
  const pieces = new RegExp(cutInto(term, 2 * max + 1).join("|"), "g");
  for (let match = pieces.exec(text); match; match = pieces.exec(text)) {
    const start = text.lastIndexOf("\n", match.index) + 1;
    const end = text.indexOf("\n", match.index) + 1 || text.length + 1;
    pieces.lastIndex = end;
    const candidate = text.slice(start, end - 1);
    // A word of three letters is no sure typo of anything (`noth`, the stem of "nothing", is one edit from `not`).
    if (candidate.length < 4) continue;
    if (candidate.length > term.length + 1 && candidate.startsWith(term) && /^[a-z]+$/.test(candidate)) {
      found.push({ term: candidate, distance: 1 });
      continue;
    }
    if (Math.abs(candidate.length - term.length) > max) continue;
    const distance = boundedDistance(term, candidate, max);
    if (distance <= max) found.push({ term: candidate, distance });
  }
  found.sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : 1));
  return found.slice(0, MAX_TYPO_CANDIDATES).map((f) => f.term);
}

/** A word cut into n pieces of (nearly) equal length, in order. */
function cutInto(word: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(word.slice(Math.floor((i * word.length) / n), Math.floor(((i + 1) * word.length) / n)));
  return out;
}

/** The query's terms and weights: known words, compound parts, typo stand-ins and folder aliases. */
export function parseQuery(index: RankedIndex, text: string): ParsedQuery {
  const weights = new Map<string, QueryTerm>();
  const words: QueryWord[] = [];
  const put = (term: string, weight: number, group: number, kind: QueryTerm["kind"]) => {
    const prev = weights.get(term);
    if (!prev || prev.weight < weight) weights.set(term, { term, weight, group: prev?.group ?? group, kind });
  };
  const seen = new Set<string>();
  for (const g of tokenGroups(text)) {
    const main = g.whole ?? g.parts[0]!;
    if (seen.has(main)) continue;
    seen.add(main);
    const group = words.length;
    const wholeKnown = g.whole !== undefined && (docFrequency(index, g.whole) > 0 || isVersion(g.whole));
    const knownParts = g.parts.filter((p) => docFrequency(index, p) > 0);
    const piecewise = !wholeKnown && g.whole !== undefined && g.parts.length > 0;
    words.push({ term: main, known: wholeKnown || (g.parts.length > 0 && knownParts.length === g.parts.length), piecewise });
    if (g.whole && (wholeKnown || !g.parts.length)) put(g.whole, 1, group, "word");
    for (const part of g.parts) put(part, wholeKnown ? PART_WEIGHT : 1, group, "part");
    for (const term of [g.whole, ...g.parts]) {
      if (term === undefined || isVersion(term)) continue;
      for (const same of synonymsOf(term)) put(same, SYNONYM_WEIGHT, group, "synonym");
      if (docFrequency(index, term) > 0) continue;
      for (const near of typoCandidates(index, term)) put(near, TYPO_WEIGHT, group, "typo");
    }
  }
  for (const piece of text.toLowerCase().split(/\s+/)) {
    const alias = index.aliases[piece.replace(/^[^\w+#]+|[^\w+#]+$/g, "")];
    if (!alias) continue;
    const group = words.length;
    words.push({ term: alias[0]!, known: true, piecewise: false });
    for (const term of alias) put(term, 1, group, "alias");
  }
  return { terms: [...weights.values()].filter((t) => termId(index, t.term) >= 0), words };
}

/** The range of usageFactor. */
export const USAGE_FACTOR_MIN = 0.9;
export const USAGE_FACTOR_MAX = 1.1;

/** Ranking factor from use: lessons that worked rise a little, lessons that failed sink a little. */
export function usageFactor(c: UsageCounts | undefined): number {
  if (!c) return 1;
  const f = 1 + 0.05 * Math.log(1 + c.worked + 0.5 * c.inferred) - (0.1 * Math.min(c.failed, 3)) / 3;
  return Math.min(USAGE_FACTOR_MAX, Math.max(USAGE_FACTOR_MIN, f));
}

export interface RankOptions {
  /** Lessons in these scopes (`general`, `projects/x`, `systems/y`) are candidates; undefined = all. */
  scopes?: Set<string>;
  /** Include superseded and archived lessons too. */
  allStatuses?: boolean;
  /** Score multiplier per scope (the matched project and system rank first). */
  scopeBoost?: (scope: string) => number;
  /** Score multiplier per lesson id from its use records (0.9–1.1). */
  usage?: (id: string) => number;
}

export interface Ranked {
  doc: number;
  score: number;
}

/** Results whose score is below this share of the best one are noise, not answers. */
const MIN_SHARE_OF_BEST = 0.3;

/** The results of a query that score at least MIN_SHARE_OF_BEST of the best, ordered as they are read. */
export function ranking(index: RankedIndex, query: ParsedQuery, opts: RankOptions = {}): Ranking {
  const allowed = new Uint8Array(index.scopes.length);
  const boost = new Float64Array(index.scopes.length);
  index.scopes.forEach((s, i) => {
    allowed[i] = !opts.scopes || opts.scopes.has(s) ? 1 : 0;
    boost[i] = opts.scopeBoost?.(s) ?? 1;
  });
  // Dense score array: a search touches up to every lesson, and a Map costs more than the math.
  const scores = new Float64Array(index.size);
  const touched: number[] = [];
  // Locals, not property reads: this loop runs once per posting, in a process too young to be optimised.
  const { docScope, docCurrent, lengths, avgLength } = index;
  const allStatuses = Boolean(opts.allStatuses);
  // A word and its stand-ins (synonyms, the known words for a typo) say one thing, so they score as
  // one term: their occurrences add up under one saturation, led by the weightiest of them a lesson
  // has. Summed as separate terms, a word with three synonyms a lesson uses counted three times.
  const groups = new Map<number, QueryTerm[]>();
  for (const q of query.terms) {
    // A compound's parts and a folder alias are words of their own.
    const key = q.kind === "part" || q.kind === "alias" ? -1 - groups.size : q.group;
    groups.set(key, [...(groups.get(key) ?? []), q]);
  }
  let lead: Float64Array | undefined;
  let weighted: Float64Array | undefined;
  for (const group of groups.values()) {
    if (group.length === 1) {
      // A word alone (most of them): each lesson holds it once, so it is scored as its postings are
      // read, with the same arithmetic as a group (lead w, weighted w × tf).
      const { docs, tf: tfs } = index.postings(termId(index, group[0]!.term));
      const w = group[0]!.weight * idf(index, docs.length);
      for (let p = 0; p < docs.length; p++) {
        const doc = docs[p]!;
        if (!allowed[docScope[doc]!] || (!allStatuses && !docCurrent[doc])) continue;
        const tf = (w * tfs[p]!) / w;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] += (w * (K1 + 1) * tf) / (tf + K1 * (1 - B + (B * lengths[doc]!) / avgLength));
      }
      continue;
    }
    lead ??= new Float64Array(index.size);
    weighted ??= new Float64Array(index.size);
    const hit: number[] = [];
    for (const q of group) {
      const { docs, tf: tfs } = index.postings(termId(index, q.term));
      const w = q.weight * idf(index, docs.length);
      for (let p = 0; p < docs.length; p++) {
        const doc = docs[p]!;
        if (!allowed[docScope[doc]!] || (!allStatuses && !docCurrent[doc])) continue;
        if (weighted[doc] === 0) hit.push(doc);
        lead[doc] = Math.max(lead[doc]!, w);
        weighted[doc] += w * tfs[p]!;
      }
    }
    for (const doc of hit) {
      const tf = weighted[doc]! / lead[doc]!;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc] += (lead[doc]! * (K1 + 1) * tf) / (tf + K1 * (1 - B + (B * lengths[doc]!) / avgLength));
      lead[doc] = weighted[doc] = 0;
    }
  }
  let top = 0;
  for (let i = 0; i < touched.length; i++) {
    const doc = touched[i]!;
    const score = (scores[doc] = scores[doc]! * boost[docScope[doc]!]!);
    if (score > top) top = score;
  }
  // Use records move a score by at most ±10 %, so only lessons within that reach of the cut need them.
  const reach = opts.usage ? USAGE_FACTOR_MIN / USAGE_FACTOR_MAX : 1;
  const cut = MIN_SHARE_OF_BEST * reach * top;
  const ranked: Ranked[] = [];
  for (let i = 0; i < touched.length; i++) {
    const doc = touched[i]!;
    if (scores[doc]! >= cut) ranked.push({ doc, score: scores[doc]! });
  }
  if (!opts.usage) return new Ranking(index, ranked);
  let best = 0;
  for (const r of ranked) best = Math.max(best, (r.score *= opts.usage(index.lesson(r.doc).id)));
  return new Ranking(
    index,
    ranked.filter((r) => r.score >= MIN_SHARE_OF_BEST * best),
  );
}

/** Every result ranked, highest score first (equal scores by title). */
export function rank(index: RankedIndex, query: ParsedQuery, opts: RankOptions = {}): Ranked[] {
  const all = ranking(index, query, opts);
  return all.first(all.length);
}

/**
 * The results of a ranked search, put in order as far as they are read: a search can match most of
 * the knowledge base and shows ten. Each step orders the next best results (at least as many again
 * as are ordered so far) whole, ties included, so the order is the one a full sort gives.
 */
export class Ranking {
  private readonly ordered: Ranked[] = [];
  private rest: Ranked[];
  readonly length: number;

  constructor(
    private readonly index: RankedIndex,
    results: Ranked[],
  ) {
    this.rest = results;
    this.length = results.length;
  }

  /** The result at this place, or undefined past the end. */
  at(place: number): Ranked | undefined {
    if (place >= this.ordered.length) this.orderUpTo(place + 1);
    return this.ordered[place];
  }

  /** The first n results (fewer when there are fewer). */
  first(n: number): Ranked[] {
    this.orderUpTo(n);
    return this.ordered.slice(0, n);
  }

  private orderUpTo(n: number): void {
    while (this.ordered.length < n && this.rest.length) {
      const take = Math.max(n - this.ordered.length, this.ordered.length, 16);
      const rest = this.rest;
      let next = rest;
      if (take < rest.length) {
        // Plain loops: callbacks cost more than the sort in a process too young to be optimised.
        const scores = new Float64Array(rest.length);
        for (let i = 0; i < rest.length; i++) scores[i] = rest[i]!.score;
        const cut = scores.sort()[rest.length - take]!;
        next = [];
        this.rest = [];
        for (const r of rest) (r.score >= cut ? next : this.rest).push(r);
      } else this.rest = [];
      for (const r of byScore(this.index, next)) this.ordered.push(r);
    }
  }
}

/**
 * Highest score first, equal scores by title. A search can match most of the knowledge base, and a
 * comparator called from the sort costs more than the rest of the ranking in a fresh process, so the
 * scores are sorted natively as numbers and only lessons with equal scores are compared, by their
 * place in title order (equal titles by path), which the index keeps.
 */
function byScore(index: RankedIndex, ranked: Ranked[]): Ranked[] {
  const withScore = new Map<number, Ranked[]>();
  const scores = new Float64Array(ranked.length);
  let distinct = 0;
  for (const r of ranked) {
    const same = withScore.get(r.score);
    if (same) same.push(r);
    else {
      withScore.set(r.score, [r]);
      scores[distinct++] = r.score;
    }
  }
  const order = scores.subarray(0, distinct).sort();
  const { titleOrder } = index;
  const out: Ranked[] = [];
  for (let i = distinct - 1; i >= 0; i--) {
    const same = withScore.get(order[i]!)!;
    if (same.length > 1) same.sort((a, b) => titleOrder[a.doc]! - titleOrder[b.doc]!);
    for (const r of same) out.push(r);
  }
  return out;
}
