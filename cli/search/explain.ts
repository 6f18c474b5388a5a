import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLesson } from "../lesson/lesson.ts";
import { lessonFields, type SearchIndex } from "../kb/index.ts";
import type { QueryTerm } from "./rank.ts";
import { fit } from "./relevance.ts";
import type { SearchResult } from "./search.ts";
import { tokenize } from "../text/tokenize.ts";

// `--explain`: the evidence behind each ranked result, read back from the lesson itself, so people
// can see why a lesson ranks where it does and why it would or would not be injected. Only the
// shown results are parsed (and the one lesson prompt recall is about to inject); a plain search
// never pays for this.

export interface TermMatch {
  /** The query word, and the term that matched it (itself, a compound's part, a typo stand-in, a synonym or a folder alias). */
  word: string;
  term: string;
  kind: QueryTerm["kind"];
  /** Where the lesson holds the term: title, tags, queries, folder, when, headings, lead (its first section), body. */
  fields: string[];
}

export interface HitExplanation {
  id: string;
  /** BM25 with the place and use factors. */
  score: number;
  /** Share of the query's distinctive weight the lesson holds, how much it holds in absolute terms, and its score as a share of the best: relevance is their product. */
  coverage: number;
  evidence: number;
  share: number;
  relevance: number;
  /** How far its relevance leads the next result's (negative: the next one is more relevant). */
  lead: number;
  matched: TermMatch[];
  /** Query words the lesson does not hold. */
  missing: string[];
}

const round = (x: number) => Math.round(x * 100) / 100;

/** The terms of each field of a lesson (empty when the file cannot be read or parsed any more). */
export function fieldTerms(index: SearchIndex, doc: number): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const lesson = index.lesson(doc);
  try {
    const parsed = parseLesson(readFileSync(join(index.root, lesson.path), "utf8"), lesson.path);
    const notes = new Map(index.notes.map((n) => [n.folder, n]));
    for (const { field, text } of lessonFields(parsed, notes)) {
      const terms = out.get(field) ?? new Set<string>();
      for (const t of tokenize(text)) terms.add(t);
      out.set(field, terms);
    }
  } catch {
    // Changed since the index was built: the numbers still stand, the fields are unknown.
  }
  return out;
}

/**
 * The query's words the hit does not hold. A word whose term is kept once for two words (one stem
 * twice, or a compound's part: `module` in `ModuleNotFoundError`) is not missing when that term matched.
 */
function missingWords(words: { term: string }[], held: Set<number>, matched: TermMatch[]): string[] {
  const found = new Set([...[...held].map((g) => words[g]!.term), ...matched.map((m) => m.term)]);
  return [...new Set(words.filter((w, g) => !held.has(g) && !found.has(w.term)).map((w) => w.term))];
}

/** The evidence for each hit of a ranked search. */
export function explainSearch(index: SearchIndex, result: SearchResult): HitExplanation[] {
  const parsed = result.parsed;
  if (!parsed) return [];
  const best = result.ranked?.at(0)?.score ?? 0;
  return result.hits.map((hit, i) => {
    const fields = fieldTerms(index, hit.doc);
    const matched: TermMatch[] = [];
    const held = new Set<number>();
    for (const t of parsed.terms) {
      const where = [...fields].filter(([, terms]) => terms.has(t.term)).map(([field]) => field);
      if (!where.length) continue;
      held.add(t.group);
      matched.push({ word: parsed.words[t.group]!.term, term: t.term, kind: t.kind, fields: where });
    }
    const { coverage, evidence } = fit(index, parsed, hit.doc);
    const relevance = hit.relevance ?? 0;
    return {
      id: hit.lesson.id,
      score: round(hit.score ?? 0),
      coverage: round(coverage),
      evidence: round(evidence),
      share: round(best ? (hit.score ?? 0) / best : 0),
      relevance,
      lead: round(relevance - (result.hits[i + 1]?.relevance ?? 0)),
      matched,
      missing: missingWords(parsed.words, held, matched),
    };
  });
}

/** One line per hit for people: relevance and its parts, then what matched where. */
export function explainLines(e: HitExplanation): string[] {
  const byField = new Map<string, string[]>();
  for (const m of e.matched)
    for (const f of m.fields) byField.set(f, [...(byField.get(f) ?? []), m.kind === "word" ? m.term : `${m.term} (${m.kind} of ${m.word})`]);
  return [
    `relevance ${e.relevance.toFixed(2)} = coverage ${e.coverage.toFixed(2)} × evidence ${e.evidence.toFixed(2)} × score share ${e.share.toFixed(2)} (bm25 ${e.score}); leads the next by ${e.lead.toFixed(2)}`,
    `matched: ${[...byField].map(([f, ts]) => `${f}: ${[...new Set(ts)].join(", ")}`).join("; ") || "nothing"}`,
    ...(e.missing.length ? [`not in it: ${e.missing.join(", ")}`] : []),
  ];
}
