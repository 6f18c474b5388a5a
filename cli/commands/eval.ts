import { join, resolve } from "node:path";
import { defineCommand } from "./_shared.ts";
import { loadKb } from "../kb/store.ts";
import { appendReplay } from "../kb/usage.ts";
import { RkbError, usageError } from "../base/errors.ts";
import { shown } from "../base/fsutil.ts";
import { findSessionFiles } from "../sessions/extract.ts";
import { evalFailures, evalQueries, readFailures, readQueries, selfQueries, type EvalReport, type EvalRow } from "../search/eval.ts";
import { explainLines } from "../search/explain.ts";
import { failureEvidenceLine } from "../search/failure.ts";
import { replayFailures, type ReplayReport } from "../search/replay.ts";
import { openSearch } from "../search/search.ts";

export default defineCommand({
  name: "eval",
  description: "Measure search: rank of the expected lesson, recall@5, MRR, and right/wrong/silent injections",
  examples: [
    "rkb eval --queries eval/queries.toml --min-recall 0.9",
    "rkb eval --failures failures.toml --format json",
    "rkb eval --self",
    "rkb eval --replay ~/.pi/agent/sessions/*.jsonl",
    "rkb eval --replay sessions/ --record",
  ],
  input: (Type) =>
    Type.Object(
      {
        queries: Type.Optional(Type.String({ description: "Query file (default $RKB_HOME/eval/queries.toml)" })),
        failures: Type.Optional(Type.String({ description: "Failed-command file ([[failure]] command, error, expect)" })),
        self: Type.Optional(Type.Boolean({ description: "One query per lesson from the first line of its Symptom or Statement" })),
        replay: Type.Optional(Type.Boolean({ description: "Apply the failure rule to every failed bash command in the given session files" })),
        record: Type.Optional(
          Type.Boolean({
            description:
              "With --replay: keep the counts in .rkb/replays/ (committed with the use records) for the coverage plot of `rkb serve` and `rkb site build`",
          }),
        ),
        min_recall: Type.Optional(Type.String({ description: "Exit 1 when recall@5 is below this (0..1)" })),
        paths: Type.Optional(Type.Array(Type.String(), { description: "With --replay: session files, folders and globs" })),
        explain: Type.Optional(Type.Boolean({ description: "Per row: why the rule injected or stayed silent, and the evidence for each lesson it weighed" })),
      },
      { additionalProperties: false },
    ),
  cli: { variadic: "paths", flags: { queries: { valueHint: "FILE" }, failures: { valueHint: "FILE" }, min_recall: { valueHint: "F" } } },
  async run(input, { env, cwd, place }) {
    const chosen = [
      input.queries !== undefined && "--queries",
      input.failures !== undefined && "--failures",
      input.self && "--self",
      input.replay && "--replay",
    ].filter(Boolean);
    if (chosen.length > 1) throw usageError(`${chosen.join(" and ")} cannot be combined`, "run one evaluation at a time");
    if (input.record && !input.replay) throw usageError("--record goes with --replay", "e.g. rkb eval --replay sessions/ --record");
    const minRecall = input.min_recall === undefined ? undefined : Number(input.min_recall);
    if (minRecall !== undefined && !(minRecall >= 0 && minRecall <= 1))
      throw usageError(`--min-recall ${input.min_recall} is not a number between 0 and 1`, "e.g. --min-recall 0.9");
    const { index, place: here, usage } = openSearch(env, cwd, place);
    const root = index.root;
    const ctx = { index, here, usage, cwd, env };
    if (input.replay) {
      const paths = input.paths ?? [];
      if (!paths.length) throw usageError("`rkb eval --replay` needs session files", "e.g. rkb eval --replay ~/.pi/agent/sessions/*/*.jsonl");
      const { files, problems } = findSessionFiles(paths, cwd);
      if (!files.length) {
        throw new RkbError(
          "not_found",
          `no session file to replay: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`,
          "pass session files, folders of them, or a glob such as 'sessions/**/*.jsonl'",
        );
      }
      const report = await replayFailures(
        ctx,
        files.map((f) => f.path),
      );
      const recorded = input.record ? await recordReplay(root, report, env) : undefined;
      return { data: recorded ? { ...report, recorded } : report, human: replayHuman(report) + (recorded ? `recorded in ${recorded}\n` : "") };
    }
    const explain = Boolean(input.explain);
    const report =
      input.failures !== undefined
        ? evalFailures(ctx, readFailures(resolve(cwd, String(input.failures))), explain)
        : evalQueries(
            ctx,
            input.self
              ? selfQueries(loadKb(root))
              : readQueries(input.queries !== undefined ? resolve(cwd, String(input.queries)) : join(root, "eval", "queries.toml")),
            explain,
          );
    const below = minRecall !== undefined && report.recall_at_5 < minRecall;
    return { data: { ...report, ranked_by: "bm25", help: help(report, minRecall) }, human: evalHuman(report, minRecall), exit: below ? 1 : 0 };
  },
});

/** Keeps a replay's counts in the knowledge base; returns the file (relative to it). */
function recordReplay(root: string, report: ReplayReport, env: NodeJS.ProcessEnv): Promise<string> {
  const { files, failures, covered } = report;
  const lessons = Object.fromEntries(report.lessons.map((l) => [l.id, l.count]));
  return appendReplay(root, { time: new Date().toISOString(), files, failures, covered, lessons }, env);
}

function help(report: EvalReport, minRecall: number | undefined): string[] {
  const out: string[] = [];
  if (minRecall !== undefined)
    out.push(report.recall_at_5 >= minRecall ? `recall@5 meets the minimum ${minRecall}` : `recall@5 is BELOW the minimum ${minRecall}`);
  if (report.missed.length)
    out.push(`Look at the missed lessons with \`rkb show <id>\`: add the words people use for the problem to their title, tags or queries`);
  if (report.wrong) out.push("A wrong injection is worse than silence: check the rows with verdict `wrong`");
  return out;
}

function evalHuman(report: EvalReport, minRecall: number | undefined): string {
  const lines = ["rank  verdict  " + (report.rows[0]?.command !== undefined ? "command" : "query")];
  for (const r of report.rows) {
    const rank = r.answerable ? String(r.rank || "-").padStart(4) : "   n";
    const top = r.top.map((t) => `${t.id} ${t.relevance.toFixed(2)}`).join(", ");
    lines.push(`${rank}  ${r.verdict.padEnd(7)}  ${r.query ?? r.command}${top ? `   [${top}]` : ""}`);
    if (r.explain) lines.push(...explainRow(r.explain).map((l) => `        ${l}`));
  }
  lines.push("");
  lines.push(
    `${report.queries} queries (${report.queries - report.answerable} with no answer)  recall@5 ${report.recall_at_5.toFixed(2)}  mrr ${report.mrr.toFixed(2)}  ranked by: bm25`,
  );
  lines.push(`injections: ${report.right} right, ${report.wrong} wrong, ${report.silent} silent`);
  if (minRecall !== undefined) lines.push(report.recall_at_5 >= minRecall ? `(meets the minimum ${minRecall})` : `(BELOW the minimum ${minRecall})`);
  if (report.missed.length) lines.push(`not in the first 5: ${report.missed.join(", ")}`);
  return lines.join("\n") + "\n";
}

function explainRow(e: NonNullable<EvalRow["explain"]>): string[] {
  const out = [`why: ${e.reason}`];
  for (const h of e.hits ?? []) out.push(`${h.id}: ${explainLines(h).join(" | ")}`);
  for (const c of e.candidates ?? []) out.push(`${c.id}: ${failureEvidenceLine(c)}`);
  return out;
}

function replayHuman(report: ReplayReport): string {
  const lines = [
    `${report.failures} failed commands in ${report.files} session file(s): ${report.covered} would get a lesson (${Math.round(report.coverage * 100)}%)`,
  ];
  for (const l of report.lessons) lines.push(`  ${String(l.count).padStart(4)}  ${l.id}  ${l.title}`);
  if (report.not_sessions.length) {
    lines.push("", "Not session files (left out):");
    for (const n of report.not_sessions) lines.push(`  ${shown(n.path, 400)}${n.looks_like ? ` (looks like ${n.looks_like})` : ""}`);
  }
  if (report.uncovered.length) {
    lines.push("", "Not covered (most frequent first):");
    for (const u of report.uncovered) lines.push(`  ${String(u.count).padStart(4)}  ${u.program}: ${u.example}`);
  }
  return lines.join("\n") + "\n";
}
