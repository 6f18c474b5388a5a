import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requireReadableKb } from "../lesson/layout.ts";
import { resolvePlace, type Place, type PlaceOptions } from "../place/place.ts";
import { kbRoot } from "../machine/settings.ts";
import { readUsage, type UsageCounts } from "../kb/usage.ts";
import { evaluateWhen, type KeyVerdict, type Verdict } from "../place/when.ts";
import { usageError } from "../base/errors.ts";
import { loadIndex, placeKb, type IndexedLesson, type SearchIndex } from "../kb/index.ts";
import { parseQuery, ranking, usageFactor, type ParsedQuery, type Ranking } from "./rank.ts";
import { relevances } from "./relevance.ts";

// The search the `search` command, the agent tool, the hooks and eval all run: ranked (BM25),
// literal or regex, over the lessons in scope (general plus the matched project and system, or
// every folder with `all`), with `applies` per result and the results that do not apply hidden.

export type SearchMode = "ranked" | "literal" | "regex";

export interface SearchInput {
  index: SearchIndex;
  query: string;
  mode?: SearchMode;
  place: Place;
  /** Search every folder and show lessons that do not apply here. */
  all?: boolean;
  /** Include superseded and archived lessons. */
  allStatuses?: boolean;
  limit?: number;
  usage?: Map<string, UsageCounts>;
  /** When the results do not fill the limit, count the lessons of other projects and systems that match, as hidden by their folder. */
  countOtherPlaces?: boolean;
}

export interface SearchHit {
  lesson: IndexedLesson;
  /** The lesson's position in the index. */
  doc: number;
  applies: Verdict;
  applyKeys: KeyVerdict[];
  /** Ranked mode: the BM25 score with place and use factors. */
  score?: number;
  /** Ranked mode: how well the lesson fits the query (0..1). */
  relevance?: number;
  /** Literal and regex modes: the first matching line, `<n>: <text>`. */
  line?: string;
}

export interface SearchResult {
  query: string;
  mode: SearchMode;
  hits: SearchHit[];
  hidden: number;
  hiddenBy: Record<string, number>;
  /** Ranked mode: the parsed query and the full ranking before `applies` and the limit (ordered as far as it is read). */
  parsed?: ParsedQuery;
  ranked?: Ranking;
}

/** Score multipliers for lessons of the matched project and system. */
const PLACE_BOOST = { project: 1.3, system: 1.15 } as const;

/** Opens the knowledge base at $RKB_HOME for searching: its index, the place, and the use records. */
export function openSearch(env: NodeJS.ProcessEnv, cwd: string, options: PlaceOptions): { index: SearchIndex; place: Place; usage: Map<string, UsageCounts> } {
  const root = kbRoot(env);
  requireReadableKb(root);
  const index = loadIndex(root, env);
  const place = resolvePlace({ root, kb: placeKb(index), cwd, env, options });
  return { index, place, usage: readUsage(root) };
}

function scopeOrder(place: Place): (scope: string) => number {
  return (scope) => (place.project && scope === `projects/${place.project.name}` ? 0 : place.system && scope === `systems/${place.system.name}` ? 1 : 2);
}

export function searchKb(input: SearchInput): SearchResult {
  const { index, place } = input;
  const mode = input.mode ?? "ranked";
  const limit = input.limit ?? 10;
  const scopes = input.all
    ? undefined
    : new Set(["general", ...(place.project ? [`projects/${place.project.name}`] : []), ...(place.system ? [`systems/${place.system.name}`] : [])]);
  const result: SearchResult = { query: input.query, mode, hits: [], hidden: 0, hiddenBy: {} };
  let candidate: (place: number) => { doc: number; score?: number; line?: string } | undefined;
  if (mode === "ranked") {
    const parsed = parseQuery(index, input.query);
    const usage = input.usage;
    const ranked = ranking(index, parsed, {
      scopes,
      allStatuses: input.allStatuses,
      scopeBoost: (s) =>
        place.project && s === `projects/${place.project.name}`
          ? PLACE_BOOST.project
          : place.system && s === `systems/${place.system.name}`
            ? PLACE_BOOST.system
            : 1,
      usage: usage?.size ? (id) => usageFactor(usage.get(id)) : undefined,
    });
    result.parsed = parsed;
    result.ranked = ranked;
    candidate = (place) => ranked.at(place);
  } else {
    const lines = matchLines(index, input.query, mode, scopes, input.allStatuses, scopeOrder(place));
    candidate = (place) => lines[place];
  }
  // The place of each hit in the ranking.
  const shown: number[] = [];
  for (let at = 0; result.hits.length < limit; at++) {
    const c = candidate(at);
    if (!c) break;
    const lesson = index.lesson(c.doc);
    const verdict = evaluateWhen(lesson.when, place.facts, { isAncestor: place.isAncestor });
    if (verdict.result === "no" && !input.all) {
      result.hidden++;
      for (const k of verdict.keys) if (k.result === "no") result.hiddenBy[k.key] = (result.hiddenBy[k.key] ?? 0) + 1;
      continue;
    }
    result.hits.push({ lesson, doc: c.doc, applies: verdict.result, applyKeys: verdict.keys, score: c.score, line: c.line });
    shown.push(at);
  }
  if (scopes && input.countOtherPlaces && result.hits.length < limit) {
    const others = new Set(index.scopes.filter((s) => !scopes.has(s)));
    const docs =
      mode === "ranked"
        ? ranking(index, result.parsed!, { scopes: others, allStatuses: input.allStatuses })
            .first(index.size)
            .map((r) => r.doc)
        : matchLines(index, input.query, mode, others, input.allStatuses, scopeOrder(place)).map((m) => m.doc);
    for (const doc of docs) {
      const scope = index.scopes[index.docScope[doc]!]!;
      result.hidden++;
      result.hiddenBy[scope] = (result.hiddenBy[scope] ?? 0) + 1;
    }
  }
  if (mode === "ranked" && result.ranked && result.parsed) {
    const count = Math.max(...shown, -1) + 1;
    const rel = relevances(index, result.parsed, result.ranked.first(count), count);
    result.hits.forEach((h, i) => (h.relevance = rel[shown[i]!]));
  }
  return result;
}

function matchLines(
  index: SearchIndex,
  text: string,
  mode: "literal" | "regex",
  scopes: Set<string> | undefined,
  allStatuses: boolean | undefined,
  order: (scope: string) => number,
) {
  let pattern: RegExp;
  try {
    pattern = new RegExp(mode === "literal" ? text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : text);
  } catch (e) {
    throw usageError(
      `\`${text}\` is not a valid regular expression: ${(e as Error).message}`,
      "fix the pattern, or use --literal to search for the text as it is",
    );
  }
  const found: { doc: number; line: string; scope: string; title: string }[] = [];
  for (let doc = 0; doc < index.size; doc++) {
    const scope = index.scopes[index.docScope[doc]!]!;
    if ((scopes && !scopes.has(scope)) || (!allStatuses && !index.docCurrent[doc])) continue;
    const lesson = index.lesson(doc);
    let raw: string;
    try {
      raw = readFileSync(join(index.root, lesson.path), "utf8");
    } catch {
      continue;
    }
    const lines = raw.split("\n");
    const n = lines.findIndex((l) => pattern.test(l));
    if (n >= 0) found.push({ doc, line: `${n + 1}: ${lines[n]!.trim()}`, scope, title: lesson.title });
  }
  found.sort((a, b) => order(a.scope) - order(b.scope) || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  return found;
}
