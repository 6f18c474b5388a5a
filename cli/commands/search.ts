import { defineCommand, type TypeBuilder } from "./_shared.ts";
import { usageError } from "../base/errors.ts";
import { openSearch, searchKb, type SearchHit, type SearchMode, type SearchResult } from "../search/search.ts";
import type { UsageCounts } from "../kb/usage.ts";
import { counted } from "../output/words.ts";

// Room for a whole first sentence (a wrapped Symptom); the cut is for a runaway paragraph only.
const SUMMARY_MAX = 300;

export const searchInput = (Type: TypeBuilder) =>
  Type.Object(
    {
      query: Type.Optional(Type.String({ description: "Words to look for, e.g. the error message or the task" })),
      literal: Type.Optional(Type.String({ description: "Find lessons containing this exact text" })),
      regex: Type.Optional(Type.String({ description: "Find lessons with a line matching this regular expression" })),
      all: Type.Optional(Type.Boolean({ description: "Also list lessons that do not apply in this place" })),
      status: Type.Optional(Type.String({ description: "`all` includes superseded and archived lessons" })),
      limit: Type.Optional(Type.Integer({ minimum: 1, default: 10, description: "Most results to return" })),
      explain: Type.Optional(Type.Boolean({ description: "Show the evidence behind each result's score and whether prompt recall would inject the first" })),
    },
    { additionalProperties: false },
  );

export default defineCommand({
  name: "search",
  description: "Find lessons by words, a literal text or a regular expression",
  examples: ['rkb search "undefined reference to vtable"', 'rkb search --literal "--start-group" --toon', "rkb search --regex 'H5[A-Z]open' --all"],
  input: searchInput,
  cli: {
    positionals: ["query"],
    flags: { literal: { valueHint: "text" }, regex: { valueHint: "pattern" }, status: { valueHint: "all" }, limit: { valueHint: "N" } },
  },
  async run(input, { env, cwd, place }) {
    const given = [input.query ? "words" : "", input.literal !== undefined ? "--literal" : "", input.regex !== undefined ? "--regex" : ""].filter(Boolean);
    if (given.length !== 1) {
      throw usageError(
        given.length
          ? `give only one of words, --literal and --regex (got ${given.join(", ")})`
          : "`rkb search` needs words, --literal <text> or --regex <pattern>",
        'e.g. rkb search "cmake cannot find hdf5"',
      );
    }
    const mode: SearchMode = input.literal !== undefined ? "literal" : input.regex !== undefined ? "regex" : "ranked";
    const query = String(input.literal ?? input.regex ?? input.query);
    if (!query.trim()) throw usageError("the search text is empty", 'e.g. rkb search "cmake cannot find hdf5"');
    if (input.status !== undefined && input.status !== "all")
      throw usageError(`--status ${input.status} is not known`, "use --status all, or leave it out for active and stale lessons");
    const { index, place: here, usage } = openSearch(env, cwd, place);
    const result = searchKb({
      index,
      query,
      mode,
      place: here,
      all: Boolean(input.all),
      allStatuses: input.status === "all",
      limit: input.limit ?? 10,
      usage,
      countOtherPlaces: true,
    });
    if (!input.explain || mode !== "ranked") return { data: searchData(result, usage), human: searchHuman(result) };
    // Loaded for --explain only: a plain search does not pay for loading them.
    const [{ explainLines, explainSearch }, { recallDecision, recallGate }] = await Promise.all([
      import("../search/explain.ts"),
      import("../search/recall.ts"),
    ]);
    const explained = explainSearch(index, result);
    const gate = recallGate(query);
    const recall = gate ? { reason: gate } : recallDecision(index, result);
    const data = searchData(result, usage);
    (data.results as Record<string, unknown>[]).forEach((row, i) => (row.explain = explained[i]));
    data.recall = { inject: recall.lesson?.id ?? null, reason: recall.reason };
    return {
      data,
      human:
        searchHuman(result, explained.map(explainLines)) +
        `\nPrompt recall: ${recall.lesson ? `would inject ${recall.lesson.id}` : "would inject nothing"} (${recall.reason})\n`,
    };
  },
});

function cut(text: string, id: string): string {
  return text.length <= SUMMARY_MAX ? text : `${text.slice(0, SUMMARY_MAX - 1).trimEnd()}… (rkb show ${id})`;
}

/** The search result as agents and scripts read it (reference §4: one row per lesson). */
function searchData(result: SearchResult, usage: Map<string, UsageCounts>) {
  const rows = result.hits.map((h) => {
    const u = usage.get(h.lesson.id);
    const row: Record<string, unknown> = {
      id: h.lesson.id,
      type: h.lesson.type,
      title: h.lesson.title,
      path: h.lesson.path,
      status: h.lesson.status,
      applies: h.applies,
      worked: u?.worked ?? 0,
      failed: u?.failed ?? 0,
      injected: u?.injected ?? 0,
      irrelevant: u?.irrelevant ?? 0,
    };
    if (result.mode === "ranked") {
      row.relevance = h.relevance ?? 0;
      row.summary = cut(h.lesson.summary, h.lesson.id);
    } else row.line = cut(h.line ?? "", h.lesson.id);
    return row;
  });
  const data: Record<string, unknown> = { query: result.query, mode: result.mode };
  if (result.mode === "ranked") data.ranked_by = "bm25";
  data.results = rows;
  data.hidden = result.hidden;
  if (result.hidden) data.hidden_by = result.hiddenBy;
  data.help = help(result);
  return data;
}

function help(result: SearchResult): string[] {
  const out: string[] = [];
  if (result.hits.length) out.push(`Read a lesson with \`rkb show <id>\`; after using one, report it with \`rkb used <id> --worked\` (or --failed --reason …)`);
  else out.push("Nothing matched: try other words (an error message, a tool name), or `--all` to search every folder");
  if (result.hidden) out.push(`${hiddenWords(result)}; \`--all\` shows ${result.hidden === 1 ? "it" : "them"}`);
  return out;
}

/** `2 lessons that do not apply here are hidden (projects/other: 1, hdf5: 1)`: by the folder of another project or system, or by a `when` key. */
function hiddenWords(result: SearchResult): string {
  const by = Object.entries(result.hiddenBy)
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
  return `${counted(result.hidden, "lesson")} that ${result.hidden === 1 ? "does" : "do"} not apply here ${result.hidden === 1 ? "is" : "are"} hidden (${by})`;
}

function marker(h: SearchHit): string {
  return h.applies === "yes" ? "" : h.applies === "no" ? "  (does not apply here)" : "  (may apply: unknown)";
}

/** The results for people; `explanations` holds each shown result's --explain lines. */
function searchHuman(result: SearchResult, explanations?: string[][]): string {
  if (!result.hits.length) {
    const hidden = result.hidden ? `; ${hiddenWords(result)}, \`--all\` shows ${result.hidden === 1 ? "it" : "them"}` : "";
    return `no lessons match \`${result.query}\` here${hidden}\n`;
  }
  const lines: string[] = [];
  result.hits.forEach((h, i) => {
    const rel = h.relevance !== undefined ? `  relevance ${h.relevance.toFixed(2)}` : "";
    lines.push(`${i + 1}. ${h.lesson.title}  [${h.lesson.type}${h.lesson.status === "active" ? "" : ", " + h.lesson.status}]${rel}${marker(h)}`);
    lines.push(`   ${h.lesson.id}  ${h.lesson.path}`);
    const text = result.mode === "ranked" ? h.lesson.summary : h.line;
    if (text) lines.push(`   ${cut(text, h.lesson.id)}`);
    if (explanations?.[i]) lines.push(...explanations[i]!.map((l) => `   ${l}`));
  });
  if (result.hidden) lines.push("", `${hiddenWords(result)}; --all shows ${result.hidden === 1 ? "it" : "them"}`);
  lines.push("", "Next: rkb show <id>");
  return lines.join("\n") + "\n";
}
