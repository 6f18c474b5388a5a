// The failure rule's and the recall rule's numbers on every set in one table: the project's own
// sets (test/fixtures against test/fixtures/eval-kb) and, when ../shared is there, the real-failure
// development set (../shared/fixtures/real-failures against the Rust eval/kb plus its own lessons)
// and the Rust eval/kb queries. Measurement only: nothing of ../shared is kept.
// Set 4 (issue 21) runs against eval-kb plus specifics-kb; its held-out file only with --holdout.
//   bun scripts/eval-failures.ts [--bin dist/rkb] [--json] [--holdout]
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_IDENTITY, isolatedEnv } from "./bench-run.ts";

const root = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const binAt = args.indexOf("--bin");
const bin = binAt >= 0 ? args[binAt + 1]! : join(root, "dist/rkb");
const fixtures = join(root, "test/fixtures");
const shared = join(root, "../shared/fixtures");
const work = mkdtempSync(join(tmpdir(), "rkb-eval-failures-"));

interface Report {
  queries: number;
  answerable: number;
  recall_at_5: number;
  mrr: number;
  wrong: number;
  rows: { answerable: boolean; verdict: string }[];
}

function env(kb: string): Record<string, string> {
  return { ...isolatedEnv(work), ...BENCH_IDENTITY, RKB_HOME: kb };
}

function evalRun(kb: string, flag: "--failures" | "--queries", file: string): Report {
  const r = Bun.spawnSync([bin, "eval", flag, file, "--format", "json"], { env: env(kb), stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${file}: rkb eval exited ${r.exitCode}: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString()) as Report;
}

/** eval-kb with the lessons of set 4 (issue 21): the shapes where a lesson shares a frame, not the specifics. */
function specificsKb(): string {
  const kb = join(work, "specifics-kb");
  cpSync(join(fixtures, "eval-kb"), kb, { recursive: true });
  cpSync(join(fixtures, "specifics-kb"), kb, { recursive: true });
  return kb;
}

/** The development set's knowledge base: the Rust eval/kb with the set's own lessons, in a git repository. */
function devKb(): string {
  const kb = join(work, "dev-kb");
  cpSync(join(shared, "rkb/eval/kb"), kb, { recursive: true });
  const extra = join(shared, "real-failures/kb/general");
  for (const topic of readdirSync(extra)) cpSync(join(extra, topic), join(kb, "general", topic), { recursive: true });
  for (const git of [
    ["init", "-q"],
    ["add", "-A"],
    ["commit", "-qm", "fixture"],
  ])
    Bun.spawnSync(["git", ...git], { cwd: kb, env: env(kb) });
  return kb;
}

interface Row {
  set: string;
  cases: number;
  answerable: number;
  right: number;
  wrong: number;
  wrongUnanswerable: number;
  recall5?: number;
  mrr?: number;
}

function row(set: string, d: Report, queries = false): Row {
  const right = d.rows.filter((r) => r.answerable && r.verdict === "right").length;
  const wrongUnanswerable = d.rows.filter((r) => !r.answerable && r.verdict === "wrong").length;
  const out: Row = { set, cases: d.queries, answerable: d.answerable, right, wrong: d.wrong, wrongUnanswerable };
  if (queries) Object.assign(out, { recall5: d.recall_at_5, mrr: d.mrr });
  return out;
}

const rows: Row[] = [];
try {
  const evalKb = join(fixtures, "eval-kb");
  for (const f of ["failures.toml", "failures-holdout.toml", "failures-2.toml", "failures-2-holdout.toml", "failures-3-holdout.toml"])
    rows.push(row(f, evalRun(evalKb, "--failures", join(fixtures, f))));
  const kb4 = specificsKb();
  for (const f of ["failures-4.toml", ...(args.includes("--holdout") ? ["failures-4-holdout.toml"] : [])])
    rows.push(row(f, evalRun(kb4, "--failures", join(fixtures, f))));
  rows.push(row("recall-holdout.toml", evalRun(evalKb, "--queries", join(fixtures, "recall-holdout.toml")), true));
  if (existsSync(shared)) {
    const kb = devKb();
    rows.push(row("real-failures (dev, ../shared)", evalRun(kb, "--failures", join(shared, "real-failures/failures.toml"))));
    const rustKb = join(shared, "rkb/eval/kb");
    rows.push(row("failures.toml vs Rust eval/kb", evalRun(rustKb, "--failures", join(fixtures, "failures.toml"))));
    rows.push(row("Rust eval/kb queries", evalRun(rustKb, "--queries", join(shared, "rkb/eval/queries.toml")), true));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (args.includes("--json")) console.log(JSON.stringify(rows, null, 2));
else {
  console.log("| set | cases | answerable | right | wrong | wrong where none fits | recall@5 | MRR |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.set} | ${r.cases} | ${r.answerable} | ${r.right} | ${r.wrong} | ${r.wrongUnanswerable} | ${r.recall5?.toFixed(2) ?? ""} | ${r.mrr?.toFixed(3) ?? ""} |`,
    );
}
