import { describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox, writeFile } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/search-kb");

function withKb() {
  const box = sandbox("rkb-eval");
  cpSync(FIXTURE, box.kb, { recursive: true });
  writeFile(
    join(box.kb, "eval/queries.toml"),
    `[[query]]
text = "undefined reference to vtable for my class"
expect = ["3c00000002"]

[[query]]
text = "cmake still cannot find Eigen3 after installing it"
expect = ["3c00000001"]

[[query]]
text = "request gpus for a batch job"
expect = ["3c00000005"]
system = "lab1"

[[query]]
text = "how do I plot a histogram in gnuplot"
expect = []
`,
  );
  return box;
}

describe("rkb eval", () => {
  test("reports rank, verdicts, recall@5 and MRR", async () => {
    const { env } = withKb();
    const r = await rkb(["eval", "--format", "json"], { env });
    expect(r.exit).toBe(0);
    const d = r.json();
    expect(d).toMatchObject({ queries: 4, answerable: 3, recall_at_5: 1, mrr: 1 });
    expect(d.rows[3]).toMatchObject({ query: "how do I plot a histogram in gnuplot", answerable: false, rank: 0, verdict: "silent" });
    expect(d.right + d.wrong + d.silent).toBe(4);
    const human = await rkb(["eval"], { env });
    expect(human.stdout).toContain("recall@5 1.00");
  });
  test("--min-recall fails below the minimum; unknown expected ids are refused", async () => {
    const box = withKb();
    writeFile(join(box.dir, "q.toml"), `[[query]]\ntext = "gnuplot histogram colors"\nexpect = ["3c00000001"]\n`);
    const below = await rkb(["eval", "--queries", join(box.dir, "q.toml"), "--min-recall", "0.9"], { env: box.env });
    expect(below.exit).toBe(1);
    writeFile(join(box.dir, "bad.toml"), `[[query]]\ntext = "x y z"\nexpect = ["ffffffffff"]\n`);
    const bad = await rkb(["eval", "--queries", join(box.dir, "bad.toml"), "--format", "json"], { env: box.env });
    expect(bad.json().error.code).toBe("refused");
  });
  test("--failures applies the failure rule", async () => {
    const box = withKb();
    writeFile(
      join(box.dir, "f.toml"),
      `[[failure]]
command = "make"
error = '''
/usr/bin/ld: shape.o: undefined reference to \`vtable for ShapeRenderer'
collect2: error: ld returned 1 exit status'''
expect = ["3c00000002"]

[[failure]]
command = "git push"
error = "error: failed to push some refs"
expect = []
`,
    );
    const d = (await rkb(["eval", "--failures", join(box.dir, "f.toml"), "--format", "json"], { env: box.env })).json();
    expect(d.rows[0]).toMatchObject({ command: "make", answerable: true, rank: 1, verdict: "right" });
    expect(d.rows[1].verdict).toBe("silent");
    const explained = (await rkb(["eval", "--failures", join(box.dir, "f.toml"), "--explain", "--format", "json"], { env: box.env })).json();
    expect(explained.rows[0].explain.reason).toContain("quotes");
    expect(explained.rows[0].explain.candidates[0]).toMatchObject({ id: "3c00000002", quoted: expect.arrayContaining(["vtabl"]) });
    expect(explained.rows[1].explain.reason).not.toBe("");
    const human = await rkb(["eval", "--failures", join(box.dir, "f.toml"), "--explain"], { env: box.env });
    expect(human.stdout).toMatch(/why: quotes \d+% of the error line/);
  });
  test("--self asks one question per lesson", async () => {
    const { env } = withKb();
    const d = (await rkb(["eval", "--self", "--format", "json"], { env })).json();
    expect(d.queries).toBe(4); // the archived lesson has a Statement too
    expect(d.recall_at_5).toBeGreaterThan(0.6);
  });
});
