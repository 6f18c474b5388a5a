import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
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
