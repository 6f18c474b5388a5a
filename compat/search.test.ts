import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox } from "../test/helpers.ts";

// The eval numbers the search issue promises, on the shared fixtures (absent from a user's clone).
const shared = join(import.meta.dir, "../../shared");
const fixtures = join(shared, "fixtures/rkb");
const failures = join(import.meta.dir, "../test/fixtures/failures.toml");

async function evalJson(kb: string, args: string[]) {
  const { env } = sandbox("rkb-compat-eval");
  const r = await rkb(["eval", ...args, "--format", "json"], { env: { ...env, RKB_HOME: join(fixtures, kb) } });
  expect(r.exit).toBe(0);
  return r.json();
}

describe.skipIf(!existsSync(shared))("search quality on the shared fixtures", () => {
  test("eval/kb: recall@5 ≥ 0.95, MRR ≥ 0.85, recall right on ≥ 60% of the answerable, at most 2 wrong", async () => {
    const d = await evalJson("eval/kb", ["--queries", join(fixtures, "eval/queries.toml")]);
    expect(d.queries).toBe(52);
    expect(d.recall_at_5).toBeGreaterThanOrEqual(0.95);
    expect(d.mrr).toBeGreaterThanOrEqual(0.85);
    expect(d.rows.filter((r: any) => r.answerable && r.verdict === "right").length).toBeGreaterThanOrEqual(0.6 * d.answerable);
    expect(d.wrong).toBeLessThanOrEqual(2);
  });
  test("search/kb: every expected lesson in the top 5", async () => {
    const d = await evalJson("search/kb", ["--queries", join(fixtures, "search/queries.toml")]);
    expect(d.recall_at_5).toBe(1);
  });
  test("failures against eval/kb: ≥ 80% right when a lesson fits, no wrong injection when nothing fits", async () => {
    const d = await evalJson("eval/kb", ["--failures", failures]);
    const unanswerable = d.rows.filter((r: any) => !r.answerable);
    expect(unanswerable.length).toBeGreaterThanOrEqual(10);
    expect(d.rows.length).toBeGreaterThanOrEqual(20);
    expect(d.rows.filter((r: any) => r.answerable && r.verdict === "right").length).toBeGreaterThanOrEqual(0.8 * d.answerable);
    expect(unanswerable.filter((r: any) => r.verdict === "wrong").length).toBe(0);
  });
});

// The real-failure development set (issue 21): 89 failed commands whose output users pasted in
// public threads, against the Rust eval/kb plus the set's own lessons. Before issue 21 the rule was
// right on 38 of 43 answerable and wrong on 20 of 89; its measured numbers (43 right, 5 wrong) are its floor now.
const realFailures = join(shared, "fixtures/real-failures");
describe.skipIf(!existsSync(realFailures))("the failure rule on real error output", () => {
  test("real-failures/failures.toml: right on ≥ 43 of 43, wrong on ≤ 5 of 89", async () => {
    const box = sandbox("rkb-compat-real");
    cpSync(join(fixtures, "eval/kb"), box.kb, { recursive: true });
    for (const topic of readdirSync(join(realFailures, "kb/general")))
      cpSync(join(realFailures, "kb/general", topic), join(box.kb, "general", topic), { recursive: true });
    const r = await rkb(["eval", "--failures", join(realFailures, "failures.toml"), "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    const d = r.json();
    expect([d.queries, d.answerable]).toEqual([89, 43]);
    expect(d.rows.filter((row: any) => row.answerable && row.verdict === "right").length).toBeGreaterThanOrEqual(43);
    expect(d.wrong).toBeLessThanOrEqual(5);
  });
});
