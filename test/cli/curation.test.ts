// The curation commands on real git knowledge bases with the compiled binary: dupes (and the same
// measure in add and lint), review, log and changes, move/rename/label.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, kbFromFixture, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

/** A pitfall lesson about the vtable link error, worded a little differently from the fixture's. */
const VTABLE_AGAIN = `---
type: pitfall
verified_how: ran
tags:
  - cpp
  - linker
---

# Undefined reference to vtable: a virtual member function is never defined

## Symptom
The link fails with \`undefined reference to 'vtable for Decoder'\`.

## Cause
A virtual member function of the class is declared but has no definition, so no object file emits the vtable.

## Fix
Define every declared virtual function, or make it pure with \`= 0\`, and link the file that defines them.

## Evidence
Defining the missing \`Decoder::reset()\` fixed the link.
`;

function fixtureKb(name: string): Sandbox {
  const box = sandbox(name);
  kbFromFixture(box);
  return box;
}

describe("rkb dupes", () => {
  test("a lesson added in another folder that says the same is named by add, lint and dupes", async () => {
    const box = fixtureKb("rkb-dupes");
    const added = await rkb(["add", "--topic", "linking", "--format", "json"], { env: box.env, stdin: VTABLE_AGAIN });
    expect(added.exit).toBe(0);
    const result = added.json();
    expect(result.path).toStartWith("general/linking/");
    expect(result.notes.join("\n")).toContain(
      'looks like 3c0ffee002 "undefined reference to vtable means a virtual function has no definition" (general/cpp/missing-vtable.md',
    );

    const dupes = await rkb(["dupes", "--format", "json"], { env: box.env });
    expect(dupes.exit).toBe(0);
    const data = dupes.json();
    expect(data.min_similarity).toBe(0.4);
    expect(data.pairs).toHaveLength(1);
    const [pair] = data.pairs;
    expect(pair.similarity).toBeGreaterThanOrEqual(0.4);
    expect(pair.similarity).toBeLessThanOrEqual(1);
    expect(pair.a.path).toBe("general/cpp/missing-vtable.md");
    expect(pair.b.id).toBe(result.id);

    // A threshold above the pair's similarity hides it; kb.toml sets the default.
    const strict = (await rkb(["dupes", "--min-similarity", "0.99", "--format", "json"], { env: box.env })).json();
    expect(strict.pairs).toEqual([]);
    const human = await rkb(["dupes", "--min-similarity", "0.99"], { env: box.env });
    expect(human.stdout).toContain("No likely duplicates at 0.99");
    writeFile(join(box.kb, "kb.toml"), readFileSync(join(box.kb, "kb.toml"), "utf8") + "\n[dupes]\nmin_similarity = 0.99\n");
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json()).toMatchObject({ min_similarity: 0.99, pairs: [] });
    writeFile(join(box.kb, "kb.toml"), readFileSync(join(box.kb, "kb.toml"), "utf8").replace("min_similarity = 0.99", "min_similarity = 0.4"));

    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    const near = lint.findings.filter((f: any) => f.rule === "content/near-duplicate");
    expect(near).toHaveLength(1);
    expect(near[0]).toMatchObject({ path: "general/cpp/missing-vtable.md", severity: "warning" });
    expect(near[0].message).toContain(result.id);
    expect(near[0].message).toContain(result.path);
  });

  test("an exact copy of an existing lesson is refused, not saved under another name", async () => {
    const box = fixtureKb("rkb-dupes-exact");
    const fixture = readFileSync(join(box.kb, "general/cpp/missing-vtable.md"), "utf8");
    const copy = fixture.replace(/^schema: 1\n|^id: .*\n|^status: .*\n/gm, "");
    const r = await rkb(["add", "--topic", "cpp", "--format", "json"], { env: box.env, stdin: copy });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("refused");
    expect(r.json().error.message).toContain("3c0ffee002");
    expect(existsSync(join(box.kb, "general/cpp/undefined-reference-to-vtable-means-a-virtual-function-has-no-definition-2.md"))).toBe(false);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });

  test("unrelated lessons are not pairs; archived lessons are not compared", async () => {
    const box = fixtureKb("rkb-dupes-none");
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json().pairs).toEqual([]);
    const added = (await rkb(["add", "--topic", "linking", "--format", "json"], { env: box.env, stdin: VTABLE_AGAIN })).json();
    expect((await rkb(["archive", added.id, "--reason", "duplicate", "--format", "json"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json().pairs).toEqual([]);
  });
});

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

function lessonFile(id: string, title: string, evidence: string, opts: { verified: string; status?: string }): string {
  const stale = opts.status === "stale" ? "stale_reason: gcc 14 changed the message\n" : "";
  return `---\nschema: 1\nid: ${id}\ntype: fact\nstatus: ${opts.status ?? "active"}\n${stale}verified: ${opts.verified}\nverified_how: ran\ntags:\n  - review\n---\n\n# ${title}\n\n## Statement\nThe statement of lesson ${id}, with enough words to be specific about zstd and its levels.\n\n## Evidence\n${evidence}\n`;
}

describe("rkb review", () => {
  test("lists each lesson that needs a look with its reasons, and only those", async () => {
    const box = sandbox("rkb-review");
    writeFile(join(box.kb, "kb.toml"), '[labels]\nsensitivity = ["public", "internal", "confidential"]\n\n[review]\nstale_days = 30\n');
    const good = "`zstd -19 big.tar` took 41 s and wrote 12 MB.";
    const files: Record<string, string> = {
      "general/zstd/fine.md": lessonFile("1111111111", "zstd level 19 is slow but small", good, { verified: day(3) }),
      "general/zstd/flagged.md": lessonFile("2222222222", "zstd long mode needs the same window to decompress", good, { verified: day(3), status: "stale" }),
      "general/zstd/old.md": lessonFile("3333333333", "zstd dictionaries help small json files", good, { verified: day(45) }),
      "general/zstd/failing.md": lessonFile("4444444444", "zstd threads flag is -T0 for all cores", good, { verified: day(3) }),
      "general/zstd/unused.md": lessonFile("5555555555", "zstd checks frames with --check by default", good, { verified: day(400) }),
      "general/zstd/vague.md": lessonFile("6666666666", "Fix build error", "it works", { verified: day(3) }),
      "general/zstd/ignored.md": lessonFile("7777777777", "zstd --rsyncable keeps rsync deltas small", good, { verified: day(3) }),
    };
    for (const [rel, text] of Object.entries(files)) writeFile(join(box.kb, rel), text);
    const rec = (id: string, event: string, daysAgo = 1) =>
      JSON.stringify({ time: new Date(Date.now() - daysAgo * 86_400_000).toISOString(), id, event, session: "s1" });
    writeFile(
      join(box.kb, ".rkb/usage/test-0001.jsonl"),
      [
        rec("4444444444", "failed"),
        rec("4444444444", "failed"),
        rec("4444444444", "worked"),
        ...Array.from({ length: 5 }, () => rec("7777777777", "injected")),
        rec("1111111111", "worked"),
      ].join("\n") + "\n",
    );
    gitIn(box.kb, box.env, "init", "-q", "-b", "main");
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "-m", "fixture");

    const r = await rkb(["review", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    const kinds = Object.fromEntries(r.json().candidates.map((c: any) => [c.id, c.reasons.map((x: any) => x.kind).sort()]));
    expect(kinds).toEqual({
      "2222222222": ["flagged"],
      "3333333333": ["not_verified"],
      "4444444444": ["failed_more_than_worked"],
      "5555555555": ["not_verified", "unused"],
      "6666666666": ["missing_evidence", "vague_title"],
      "7777777777": ["never_helped"],
    });
    const failing = r.json().candidates.find((c: any) => c.id === "4444444444");
    expect(failing.reasons[0].detail).toBe("reported failed 2 times, worked 1");
    expect(failing.last_failed).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(failing.signals).toBeUndefined();

    const signals = (await rkb(["review", "general/zstd", "--signals", "--format", "json"], { env: box.env })).json();
    expect(signals.candidates.find((c: any) => c.id === "4444444444").signals).toMatchObject({ worked: 1, failed: 2, injected: 0 });
    const human = await rkb(["review", "--signals"], { env: box.env });
    expect(human.stdout).toContain("flagged: stale: gcc 14 changed the message");
    expect(human.stdout).toContain("used: worked 1, failed 2");

    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    expect(lint.findings.filter((f: any) => f.rule.startsWith("quality/")).map((f: any) => [f.path, f.rule])).toEqual([
      ["general/zstd/vague.md", "quality/title"],
      ["general/zstd/vague.md", "quality/evidence"],
    ]);
    expect((await rkb(["review", "general/nothing"], { env: box.env })).exit).toBe(1);
    // Nor is a folder outside the knowledge base (it held no lesson to review, and said nothing was wrong).
    for (const outside of ["../", "..", "/etc", "general/../.."]) {
      const r = await rkb(["review", outside, "--format", "json"], { env: box.env });
      expect({ outside, exit: r.exit, code: r.json().error?.code }).toEqual({ outside, exit: 1, code: "not_found" });
    }
  });

  test("a lesson changed in place, without rkb, is reviewed as it now reads (the cached index is not stale)", async () => {
    const box = sandbox("rkb-review-in-place");
    writeFile(join(box.kb, "kb.toml"), '[labels]\nsensitivity = ["public"]\n');
    const good = "`zstd -19 big.tar` took 41 s and wrote 12 MB.";
    const rel = "general/zstd/levels.md";
    writeFile(join(box.kb, rel), lessonFile("1111111111", "zstd level 19 is slow but small", good, { verified: day(1) }));
    writeFile(join(box.kb, "general/zstd/threads.md"), lessonFile("2222222222", "zstd threads flag is -T0 for all cores", good, { verified: day(1) }));
    gitIn(box.kb, box.env, "init", "-q", "-b", "main");
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "-m", "fixture");
    const review = async () => {
      const r = await rkb(["review", "--format", "json"], { env: box.env });
      expect(r.exit).toBe(0);
      return r.json().candidates.map((c: any) => [c.id, c.reasons.map((x: any) => `${x.kind}: ${x.detail}`)]);
    };
    expect(await review()).toEqual([]);
    // review reads the search index cache, which this run left current.
    expect(readdirSync(join(box.env.XDG_CACHE_HOME!, "rkb", "search")).some((f) => f.endsWith(".idx"))).toBe(true);

    writeFile(join(box.kb, rel), lessonFile("1111111111", "zstd level 19 is slow but small", good, { verified: day(1), status: "stale" }));
    expect(await review()).toEqual([["1111111111", ["flagged: stale: gcc 14 changed the message"]]]);

    writeFile(join(box.kb, rel), lessonFile("1111111111", "zstd level 19 is slow but small", "it works", { verified: day(1) }));
    expect(await review()).toEqual([
      [
        "1111111111",
        ['missing_evidence: the Evidence ("it works") does not show how you know; write the command you ran and what it printed, or where you read it'],
      ],
    ]);

    writeFile(join(box.kb, rel), lessonFile("1111111111", "Fix build error", good, { verified: day(1) }));
    expect((await review()).map(([id, reasons]: [string, string[]]) => [id, reasons.map((r) => r.split(":")[0])])).toEqual([["1111111111", ["vague_title"]]]);
  });

  test("a knowledge base with nothing to review says so", async () => {
    const box = sandbox("rkb-review-empty");
    writeFile(join(box.kb, "kb.toml"), '[labels]\nsensitivity = ["public"]\n');
    writeFile(
      join(box.kb, "general/zstd/fine.md"),
      lessonFile("1111111111", "zstd level 19 is slow but small", "`zstd -19 big.tar` wrote 12 MB.", { verified: day(1) }),
    );
    gitIn(box.kb, box.env, "init", "-q", "-b", "main");
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "-m", "fixture");
    expect((await rkb(["review", "--format", "json"], { env: box.env })).json().candidates).toEqual([]);
    expect((await rkb(["review"], { env: box.env })).stdout).toContain("Nothing to review");
  });
});

test("a [review] or [dupes] setting that is no number in its range is a config error naming its line, not a rule silently off", async () => {
  const box = fixtureKb("rkb-curation-config");
  const toml = readFileSync(join(box.kb, "kb.toml"), "utf8");
  writeFile(join(box.kb, "kb.toml"), `${toml}\n[review]\nstale_days = "ninety"\n`);
  const line = toml.split("\n").length + 2;
  const review = await rkb(["review", "--format", "json"], { env: box.env });
  expect(review.exit).toBe(1);
  expect(review.json().error).toMatchObject({
    code: "config",
    message: expect.stringContaining(`kb.toml:${line}: \`stale_days\` in [review] must be a number ≥ 0, not "ninety"`),
  });
  const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
  expect(lint.findings).toContainEqual(expect.objectContaining({ path: "kb.toml", line, severity: "error" }));
  writeFile(join(box.kb, "kb.toml"), `${toml}\n[dupes]\nmin_similarity = 3\n`);
  const dupes = await rkb(["dupes", "--format", "json"], { env: box.env });
  expect(dupes.exit).toBe(1);
  expect(dupes.json().error.message).toContain("`min_similarity` in [dupes] must be a number from 0 to 1, not 3");
});

test("unquoted numeric-looking ids are read as written, as the Rust rkb reads them", async () => {
  const box = sandbox("rkb-numeric-id");
  writeFile(join(box.kb, "kb.toml"), '[labels]\nsensitivity = ["public"]\n');
  const good = "`zstd -19 big.tar` wrote 12 MB.";
  writeFile(join(box.kb, "general/zstd/digits.md"), lessonFile("1234567890", "zstd level 19 is slow but small", good, { verified: day(1) }));
  writeFile(join(box.kb, "general/zstd/exponent.md"), lessonFile("12e4567890", "zstd long mode needs the same window", good, { verified: day(1) }));
  gitIn(box.kb, box.env, "init", "-q", "-b", "main");
  gitIn(box.kb, box.env, "add", "-A");
  gitIn(box.kb, box.env, "commit", "-q", "-m", "fixture");
  expect((await rkb(["show", "12e4567890", "--format", "json"], { env: box.env })).json().path).toBe("general/zstd/exponent.md");
  expect((await rkb(["show", "1234567890", "--format", "json"], { env: box.env })).json().path).toBe("general/zstd/digits.md");
  const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
  expect(lint.findings.filter((f: any) => f.severity === "error")).toEqual([]);
});

describe("rkb log and rkb changes", () => {
  test("the history of a lesson and rkb's changes, with the reasons, from git", async () => {
    const box = fixtureKb("rkb-changes");
    const added = (await rkb(["add", "--topic", "linking", "--format", "json"], { env: box.env, stdin: VTABLE_AGAIN })).json();
    expect((await rkb(["flag", added.id, "--reason", "gcc 15 words it differently", "--format", "json"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["archive", "3c0ffee002", "--reason", "merged into the newer lesson", "--format", "json"], { env: box.env })).exit).toBe(0);

    const log = (await rkb(["log", added.id, "--format", "json"], { env: box.env })).json();
    expect(log.path).toBe(added.path);
    expect(log.commits.map((c: any) => c.subject.split("(")[0])).toEqual(["flag", "add"]);
    expect(log.commits[0].date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const recent = (await rkb(["log", "--format", "json"], { env: box.env })).json();
    expect(recent.commits.map((c: any) => c.subject)).toContain("fixture");
    expect((await rkb(["log", "ffffffffff"], { env: box.env })).exit).toBe(1);

    const changes = (await rkb(["changes", "--format", "json"], { env: box.env })).json();
    expect(changes.since).toBe("7 days ago");
    // Newest first; the fixture commit is not an rkb change.
    expect(changes.changes.map((c: any) => [c.kind, c.id, c.reason ?? null])).toEqual([
      ["archive", "3c0ffee002", "merged into the newer lesson"],
      ["flag", added.id, "gcc 15 words it differently"],
      ["add", added.id, null],
    ]);
    expect(changes.changes[2]).toMatchObject({ folder: "general/linking", title: added.title });
    const later = (await rkb(["changes", "--since", "2090-01-01", "--format", "json"], { env: box.env })).json();
    expect(later.changes).toEqual([]);
    expect((await rkb(["changes", "--since", "2090-01-01"], { env: box.env })).stdout).toContain("No changes since 2090-01-01");
    // git reads words it does not know as "now" and would list nothing, silently.
    for (const since of ["garbage", ""]) {
      const bad = await rkb(["changes", "--since", since, "--format", "json"], { env: box.env });
      expect(bad.exit).toBe(2);
      expect(bad.json().error.message).toContain(`git does not read ${JSON.stringify(since)} as a date`);
    }
    expect((await rkb(["changes", "--since", "now", "--format", "json"], { env: box.env })).exit).toBe(0);
  });
});

test("/rkb-curate finds its candidates with rkb dupes and rkb review", async () => {
  const { SLASH_COMMANDS } = await import("../../cli/agent/prompts.ts");
  const curate = SLASH_COMMANDS.find((c) => c.name === "rkb-curate")!.prompt;
  expect(curate).toContain("rkb dupes --toon");
  expect(curate).toContain("rkb review --signals --toon");
});

test("lint cuts a long message at 200 characters unless --full", async () => {
  const box = sandbox("rkb-lint-full");
  writeFile(join(box.kb, "kb.toml"), '[labels]\nsensitivity = ["public"]\n');
  const long = "x".repeat(300);
  writeFile(
    join(box.kb, "general/zstd/long.md"),
    lessonFile("1111111111", "zstd level 19 is slow but small", "`zstd -19 big.tar` wrote 12 MB.", { verified: day(1) }).replace(
      "verified_how: ran",
      `verified_how: ${long}`,
    ),
  );
  gitIn(box.kb, box.env, "init", "-q", "-b", "main");
  const cut = (await rkb(["lint", "--format", "json"], { env: box.env })).json().findings.find((f: any) => f.rule === "format/parse");
  expect(cut.message).toMatch(/^.{200}\.\.\. \[\d+ chars; run `rkb lint --full` for all\]$/);
  const full = (await rkb(["lint", "--full", "--format", "json"], { env: box.env })).json().findings.find((f: any) => f.rule === "format/parse");
  expect(full.message).toContain(long);
});
