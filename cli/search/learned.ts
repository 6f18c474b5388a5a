import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLesson } from "../lesson/lesson.ts";
import { replaceVolatile } from "../shell/result.ts";
import type { SearchIndex } from "../kb/index.ts";
import type { SearchHit } from "./search.ts";
import { tokenize } from "../text/tokenize.ts";

// A lesson distilled from a failure (`rkb add --from`) keeps that failure's key error lines among
// its example queries. When the same error comes back, a query that is its key line is strong
// evidence: the lesson was written for exactly this failure, so the failure rule injects it without
// weighing words. Kept apart from the word-based rule in failure.ts, which calls it first.

/** Fewer distinctive words than this and a line could be any failure ("error: failed"). */
const MIN_WORDS = 3;

/** A line as it compares: volatile parts (paths, numbers, ids) out, case and spacing ignored. */
function comparable(line: string): string {
  return replaceVolatile(line, " ").toLowerCase().replace(/\s+/g, " ").trim();
}

/** The query of the lesson that is one of the failure's key lines (or held whole in one), if any. */
export function matchingQuery(queries: string[], keyLines: string[]): string | undefined {
  const lines = keyLines.map(comparable).filter((l) => tokenize(l).length >= MIN_WORDS);
  for (const query of queries) {
    const q = comparable(query);
    if (tokenize(q).length < MIN_WORDS) continue;
    if (lines.some((l) => l === q || l.includes(q))) return query;
  }
  return undefined;
}

/** The first of the hits whose lesson has a query matching a key line, with that query. */
export function learnedHit(index: SearchIndex, hits: SearchHit[], keyLines: string[]): { hit: SearchHit; query: string } | undefined {
  for (const hit of hits) {
    const query = matchingQuery(lessonQueries(index, hit.doc), keyLines);
    if (query) return { hit, query };
  }
  return undefined;
}

function lessonQueries(index: SearchIndex, doc: number): string[] {
  const path = index.lesson(doc).path;
  try {
    return parseLesson(readFileSync(join(index.root, path), "utf8"), path).queries;
  } catch {
    return [];
  }
}
