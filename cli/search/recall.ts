import type { Place, PlaceOptions } from "../place/place.ts";
import type { UsageCounts } from "../kb/usage.ts";
import { fieldTerms } from "./explain.ts";
import type { SearchIndex } from "../kb/index.ts";
import { termFrequency } from "../kb/lookup.ts";
import { openSearch, searchKb, type SearchHit, type SearchResult } from "./search.ts";
import { tokenize } from "../text/tokenize.ts";

// Prompt recall: whether to put a lesson in front of the agent because of what the user wrote.
// An injected lesson that does not fit costs tokens and trust, so the rule stays silent unless the
// top result is clearly relevant, clearly ahead of the next, names the topics the prompt names,
// and is about what the prompt asks (its title, tags or queries hold some of the prompt's words).
// The hook and `rkb eval` share it.

export interface InjectedLesson {
  id: string;
  title: string;
  summary: string;
  verified: string;
  verified_how: string;
  applies: "yes" | "no" | "unknown";
  path: string;
  relevance: number;
}

/** The top result must be at least this relevant… */
export const RECALL_MIN_RELEVANCE = 0.45;
/** …and this much more relevant than the second. */
export const RECALL_MIN_MARGIN = 0.2;

/** Why a hit may not be injected at all (undefined: it may). */
export function injectable(hit: SearchHit | undefined): string | undefined {
  if (!hit) return "no lesson matches";
  if (hit.applies === "no") return `${hit.lesson.id} does not apply here`;
  if (hit.lesson.status !== "active") return `${hit.lesson.id} is ${hit.lesson.status}`;
  return undefined;
}

export function toInjected(hit: SearchHit): InjectedLesson {
  const l = hit.lesson;
  return {
    id: l.id,
    title: l.title,
    summary: l.summary,
    verified: l.verified,
    verified_how: l.verifiedHow,
    applies: hit.applies,
    path: l.path,
    relevance: hit.relevance ?? 0,
  };
}

export interface RecallDecision {
  lesson?: InjectedLesson;
  reason: string;
}

/**
 * Topics the text names (words that are folder names in the knowledge base, such as `cmake` or
 * `git`) that a lesson never mentions: a lesson about cross-compiling Go is not the answer to a
 * question about cross-compiling with CMake, however many other words they share.
 */
export function unnamedTopics(index: SearchIndex, text: string, doc: number): string[] {
  const topics = new Set(index.topics);
  return [...new Set(tokenize(text))].filter((t) => topics.has(t) && termFrequency(index, t, doc) === 0);
}

/** Fields that say what a lesson is about, as opposed to its prose. */
const SUBJECT_FIELDS = ["title", "tags", "queries"];
/**
 * Lesson types whose first section names the situation they are for ("When to use", "Context"), so
 * it says what they are about too; a pitfall's title already names its symptom.
 */
const SITUATION_LEAD = new Set(["recipe", "decision"]);

/**
 * The prompt's words (beyond the topic folders it names) that a lesson holds in its title, tags,
 * queries or (recipes and decisions) the section naming the situation it is for: a fact that
 * mentions a table of contents in passing is not about adding one.
 */
export function subjectWords(index: SearchIndex, result: SearchResult, doc: number): string[] {
  if (!result.parsed) return [];
  const topics = new Set(index.topics);
  const fields = fieldTerms(index, doc);
  const names = SITUATION_LEAD.has(index.lesson(doc).type) ? [...SUBJECT_FIELDS, "lead"] : SUBJECT_FIELDS;
  const subject = new Set(names.flatMap((f) => [...(fields.get(f) ?? [])]));
  return [...new Set(result.parsed.terms.filter((t) => t.kind !== "alias" && !topics.has(t.term) && subject.has(t.term)).map((t) => t.term))];
}

/** The recall rule on a ranked search: a clear, relevant winner that names the topics the prompt names, or nothing. */
export function recallDecision(index: SearchIndex, result: SearchResult): RecallDecision {
  const [top, next] = result.hits;
  const gate = injectable(top);
  if (!top || gate) return { reason: gate ?? "no lesson matches" };
  const relevance = top.relevance ?? 0;
  const margin = relevance - (next?.relevance ?? 0);
  if (relevance < RECALL_MIN_RELEVANCE) return { reason: `relevance ${relevance.toFixed(2)} is below ${RECALL_MIN_RELEVANCE}` };
  if (margin < RECALL_MIN_MARGIN) return { reason: `${top.lesson.id} leads the next lesson by only ${margin.toFixed(2)}` };
  const unnamed = unnamedTopics(index, result.query, top.doc);
  if (unnamed.length) return { reason: `the prompt names ${unnamed.join(", ")}, which ${top.lesson.id} never mentions` };
  if (!subjectWords(index, result, top.doc).length)
    return { reason: `${top.lesson.id} holds the prompt's words only in its text, not in its title, tags, queries or situation` };
  return { lesson: toInjected(top), reason: `matches the prompt with relevance ${relevance.toFixed(2)}, ${margin.toFixed(2)} ahead of the next lesson` };
}

/** Prompts recall never looks at: slash commands and prompts too short to say what they are about. */
export function recallGate(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith("/")) return "a slash command";
  if (trimmed.split(/\s+/).length < 3) return "fewer than three words";
  return undefined;
}

/**
 * What of a prompt recall reads: its start says what it is about; a pasted log or file after that
 * would only make the query, and the time to rank it, grow with the paste.
 */
const MAX_RECALL_CHARS = 2_000;

/** Recall from a known place (eval holds the index and place already). */
function decideRecallIn(index: SearchIndex, place: Place, usage: Map<string, UsageCounts>, text: string): RecallDecision {
  const gate = recallGate(text.slice(0, MAX_RECALL_CHARS));
  if (gate) return { reason: gate };
  return recallDecision(index, searchKb({ index, query: text.slice(0, MAX_RECALL_CHARS).trim(), place, limit: 2, usage }));
}

export async function decideRecall(input: { text: string; cwd: string; env: NodeJS.ProcessEnv; place?: PlaceOptions }): Promise<RecallDecision> {
  const { index, place, usage } = openSearch(input.env, input.cwd, input.place ?? { with: {} });
  return decideRecallIn(index, place, usage, input.text);
}
