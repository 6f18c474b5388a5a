import { existsSync, readFileSync } from "node:fs";
import { RkbError } from "../base/errors.ts";
import { folderNameLike, isFolderName } from "../base/folder-name.ts";
import { keyLine, parseToml, TomlError, valueText } from "../base/toml.ts";
import { resolvePlace, type Place } from "../place/place.ts";
import type { Kb } from "../kb/store.ts";
import type { UsageCounts } from "../kb/usage.ts";
import { explainSearch, type HitExplanation } from "./explain.ts";
import { readFailure } from "../shell/failure.ts";
import type { FailureEvidence } from "./evidence.ts";
import { decideFailureIn } from "./failure.ts";
import { placeKb, type SearchIndex } from "../kb/index.ts";
import { recallDecision, recallGate } from "./recall.ts";
import { searchKb, type SearchResult } from "./search.ts";

// `rkb eval`: how well search ranks the lesson that answers each query, and how often the recall
// and failure rules inject the right lesson, a wrong one, or stay silent.

export interface EvalQuery {
  text: string;
  expect: string[];
  mode?: "search" | "literal";
  with?: Record<string, string>;
  project?: string;
  system?: string;
}

export interface EvalFailure {
  command: string;
  error: string;
  expect: string[];
}

export type Verdict = "right" | "wrong" | "silent";

export interface EvalRow {
  query?: string;
  command?: string;
  answerable: boolean;
  /** 1-based position of the first expected lesson in the top 10; 0 when absent (or unanswerable). */
  rank: number;
  verdict: Verdict;
  injected?: string;
  top: { id: string; relevance: number }[];
  /** With `--explain`: why the rule injected or stayed silent, and the evidence for each lesson it weighed. */
  explain?: { reason: string; hits?: HitExplanation[]; candidates?: FailureEvidence[] };
}

export interface EvalReport {
  queries: number;
  answerable: number;
  recall_at_5: number;
  mrr: number;
  right: number;
  wrong: number;
  silent: number;
  rows: EvalRow[];
  /** The first expected id of each answerable row that is not in the top 5. */
  missed: string[];
}

const QUERY_KEYS = new Set(["text", "expect", "mode", "with", "project", "system"]);
const FAILURE_KEYS = new Set(["command", "error", "expect"]);
const RANK_DEPTH = 10;

/** The entries of a query or failure file's [[table]], each checked against the keys it may have, with `where` naming its line. */
function entries(path: string, table: string, keys: Set<string>): { entry: Record<string, unknown>; where: (key?: string) => string }[] {
  if (!existsSync(path))
    throw new RkbError(
      "not_found",
      `no query file at ${path}`,
      'pass --queries FILE, or write eval/queries.toml in the knowledge base ([[query]] text = "…", expect = ["<id>"])',
    );
  const text = readFileSync(path, "utf8");
  let data: Record<string, unknown>;
  try {
    data = parseToml(text);
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    throw new RkbError("config", `${path}:${e.line} is not valid TOML: ${e.message}`, "fix the TOML syntax on that line");
  }
  const list = data[table];
  if (!Array.isArray(list) || !list.length)
    throw new RkbError("config", `${path} has no [[${table}]] entries`, `add entries like [[${table}]] with the fields ${[...keys].join(", ")}`);
  return list.map((entry: Record<string, unknown>, i) => {
    // `file:line: [[query]] number 2`: the line of the key, else of the entry's header.
    const where = (key?: string) => {
      const line = (key === undefined ? undefined : keyLine(text, [table, i, key])) ?? keyLine(text, [table, i]);
      return `${path}${line ? `:${line}` : ""}: [[${table}]] number ${i + 1}`;
    };
    for (const key of Object.keys(entry)) {
      if (!keys.has(key)) throw new RkbError("config", `${where(key)} has the unknown key \`${key}\``, `allowed keys: ${[...keys].join(", ")}`);
    }
    if (!Array.isArray(entry.expect))
      throw new RkbError("config", `${where("expect")} has no \`expect\` list`, 'write expect = ["<id>"], or expect = [] when no lesson should answer');
    const odd = entry.expect.find((id: unknown) => typeof id !== "string");
    if (odd !== undefined)
      throw new RkbError("config", `${where("expect")} expects ${valueText(odd)}, which is no lesson id`, 'write the ids as strings: expect = ["<id>"]');
    return { entry, where };
  });
}

export function readQueries(path: string): EvalQuery[] {
  return entries(path, "query", QUERY_KEYS).map(({ entry: q, where }) => {
    if (typeof q.text !== "string" || !q.text.trim()) throw new RkbError("config", `${where("text")} has no text`, 'write text = "<what the user would type>"');
    if (q.mode !== undefined && q.mode !== "search" && q.mode !== "literal")
      throw new RkbError("config", `${where("mode")} has mode \`${q.mode}\``, 'use mode = "search" (the default) or "literal"');
    for (const key of ["project", "system"] as const) {
      const name = q[key];
      if (name !== undefined && (typeof name !== "string" || !isFolderName(name)))
        throw new RkbError(
          "config",
          `${where(key)} has ${key} \`${String(name)}\`, which is not a ${key}'s folder name`,
          `write ${key} = "${folderNameLike(String(name)) || `my-${key}`}": lowercase letters, digits and single dashes`,
        );
    }
    return q as unknown as EvalQuery;
  });
}

export function readFailures(path: string): EvalFailure[] {
  return entries(path, "failure", FAILURE_KEYS).map(({ entry: f, where }) => {
    if (typeof f.command !== "string" || typeof f.error !== "string")
      throw new RkbError("config", `${where()} needs a command and an error`, "write command = \"…\" and error = '''…''' (the output as printed)");
    return f as unknown as EvalFailure;
  });
}

/** One query per lesson with a Symptom or Statement: its first line, answered by that lesson. */
export function selfQueries(kb: Kb): EvalQuery[] {
  const out: EvalQuery[] = [];
  for (const lesson of kb.lessons) {
    const section = lesson.sections.get("Symptom") ?? lesson.sections.get("Statement");
    const line = section?.split("\n").find((l) => l.trim() && !/^(`{3,}|~{3,})/.test(l.trim()));
    if (line) out.push({ text: line.trim(), expect: [lesson.id] });
  }
  return out;
}

/** Every expected id must be a lesson of the knowledge base, or the numbers mean nothing. */
function checkIds(index: SearchIndex, expected: string[][]): void {
  const ids = new Set<string>();
  for (let i = 0; i < index.size; i++) ids.add(index.lesson(i).id);
  const missing = [...new Set(expected.flat().filter((id) => !ids.has(id)))];
  if (missing.length)
    throw new RkbError(
      "refused",
      `expected lesson(s) not in the knowledge base: ${missing.join(", ")}`,
      "fix the ids in the query file, or point RKB_HOME at the knowledge base it was written for",
    );
}

function verdict(injected: string | undefined, expect: string[]): Verdict {
  return injected === undefined ? "silent" : expect.includes(injected) ? "right" : "wrong";
}

function summarize(rows: EvalRow[], expects: string[][]): EvalReport {
  const answerable = rows.filter((r) => r.answerable);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  return {
    queries: rows.length,
    answerable: answerable.length,
    recall_at_5: round(answerable.length ? answerable.filter((r) => r.rank >= 1 && r.rank <= 5).length / answerable.length : 0),
    mrr: round(answerable.length ? answerable.reduce((n, r) => n + (r.rank ? 1 / r.rank : 0), 0) / answerable.length : 0),
    right: count("right"),
    wrong: count("wrong"),
    silent: count("silent"),
    rows,
    missed: rows.flatMap((r, i) => (r.answerable && !(r.rank >= 1 && r.rank <= 5) ? [expects[i]![0]!] : [])),
  };
}

export interface EvalContext {
  index: SearchIndex;
  /** The place the user is at (for failures and for queries that set no place). */
  here: Place;
  usage: Map<string, UsageCounts>;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function placeFor(ctx: EvalContext, q: EvalQuery): Place {
  if (!q.project && !q.system && !q.with) return ctx.here;
  return resolvePlace({
    root: ctx.index.root,
    kb: placeKb(ctx.index),
    cwd: ctx.cwd,
    env: ctx.env,
    options: { project: q.project, system: q.system, with: q.with ?? {} },
  });
}

/** A row's scores: where the expected lesson ranked, what the rule injected, and the top two. */
function scored(result: SearchResult, expect: string[], injected: string | undefined): Omit<EvalRow, "query" | "command" | "explain"> {
  return {
    answerable: expect.length > 0,
    rank: rankOf(
      result.hits.map((h) => h.lesson.id),
      expect,
    ),
    verdict: verdict(injected, expect),
    ...(injected ? { injected } : {}),
    top: result.hits.slice(0, 2).map((h) => ({ id: h.lesson.id, relevance: h.relevance ?? 0 })),
  };
}

function rankOf(ids: string[], expect: string[]): number {
  const at = ids.slice(0, RANK_DEPTH).findIndex((id) => expect.includes(id));
  return at + 1;
}

/** Results `--explain` shows per query: the ones the recall rule reads, and one more. */
const EXPLAINED = 3;

export function evalQueries(ctx: EvalContext, queries: EvalQuery[], explain = false): EvalReport {
  checkIds(
    ctx.index,
    queries.map((q) => q.expect),
  );
  const rows = queries.map((q): EvalRow => {
    const place = placeFor(ctx, q);
    const result = searchKb({ index: ctx.index, query: q.text, mode: q.mode === "literal" ? "literal" : "ranked", place, limit: RANK_DEPTH, usage: ctx.usage });
    const gate = result.mode === "ranked" ? recallGate(q.text) : "literal search never recalls";
    const decision = gate ? { reason: gate } : recallDecision(ctx.index, result);
    return {
      query: q.text,
      ...scored(result, q.expect, decision.lesson?.id),
      ...(explain ? { explain: { reason: decision.reason, hits: explainSearch(ctx.index, { ...result, hits: result.hits.slice(0, EXPLAINED) }) } } : {}),
    };
  });
  return summarize(
    rows,
    queries.map((q) => q.expect),
  );
}

export function evalFailures(ctx: EvalContext, failures: EvalFailure[], explain = false): EvalReport {
  checkIds(
    ctx.index,
    failures.map((f) => f.expect),
  );
  const rows = failures.map((f): EvalRow => {
    const decision = decideFailureIn(ctx.index, ctx.here, ctx.usage, readFailure(f.command, f.error));
    const result = searchKb({ index: ctx.index, query: decision.query, place: ctx.here, limit: RANK_DEPTH, usage: ctx.usage });
    return {
      command: f.command,
      ...scored(result, f.expect, decision.lesson?.id),
      ...(explain ? { explain: { reason: decision.reason, candidates: decision.candidates } } : {}),
    };
  });
  return summarize(
    rows,
    failures.map((f) => f.expect),
  );
}
