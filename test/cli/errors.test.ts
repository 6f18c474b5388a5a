import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { kbFromFixture, rkb, sandbox, writeFile } from "../helpers.ts";

describe("errors are one record, with a fix, never a stack trace", () => {
  test("a missing knowledge base", async () => {
    const box = sandbox();
    const json = await rkb(["search", "x", "--format", "json"], { env: box.env });
    expect(json.exit).toBe(1);
    const err = json.json().error;
    expect(err.code).toBe("not_a_kb");
    expect(err.message).toContain(box.kb);
    expect(err.fix).toContain("rkb init");
    const human = await rkb(["list"], { env: box.env });
    expect(human.exit).toBe(1);
    expect(human.stdout).toBe("");
    expect(human.stderr).toMatch(/^error: no knowledge base at .*\nfix: run `rkb init`/);
    const toon = await rkb(["show", "0123456789", "--toon"], { env: box.env });
    expect(toon.stdout).toContain("code: not_a_kb");
  });

  test("an unknown id", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const r = await rkb(["show", "ffffffffff", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "not_found" });
    expect(r.json().error.fix).toContain("rkb search");
  });

  test("a broken lesson is named with its file and line", async () => {
    const box = sandbox();
    kbFromFixture(box);
    writeFile(join(box.kb, "general/git/broken.md"), "---\nschema: 1\nid: 3c0ffee099\ntype: fact\nfoo: bar\n---\n\n# Broken\n");
    const r = await rkb(["show", "3c0ffee099", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("invalid_lesson");
    expect(r.json().error.message).toContain("general/git/broken.md:5");
    const lint = await rkb(["lint"], { env: box.env });
    expect(lint.exit).toBe(1);
    expect(lint.stdout + lint.stderr).toContain("general/git/broken.md:5");
  });

  test("a broken TOML file is a `config` error naming the file", async () => {
    const box = sandbox();
    kbFromFixture(box);
    writeFile(join(box.kb, "kb.toml"), "[layout\n");
    const flag = await rkb(["flag", "3c0ffee001", "--reason", "old", "--format", "json"], { env: box.env });
    expect(flag.exit).toBe(1);
    expect(flag.json().error.code).toBe("config");
    expect(flag.json().error.message).toContain("kb.toml");
    writeFile(join(box.dir, "q.toml"), "[[query]\ntext = 1\n");
    const evaluated = await rkb(["eval", "--queries", join(box.dir, "q.toml"), "--format", "json"], { env: box.env });
    expect(evaluated.json().error).toMatchObject({ code: "config" });
  });

  test("usage errors exit 2: unknown flag, unknown command, missing argument, flag without value, bad --with", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const flag = await rkb(["search", "x", "--limt", "3", "--format", "json"], { env: box.env });
    expect(flag.exit).toBe(2);
    expect(flag.json().error.code).toBe("usage");
    expect(flag.json().error.fix).toContain("--limit");
    const cmd = await rkb(["serch", "x"], { env: box.env });
    expect(cmd.exit).toBe(2);
    expect(cmd.stderr).toContain("rkb search");
    // The closest command is named, not the first one within reach: `lsit` is one swap from `list`, two changes from `init`.
    expect((await rkb(["lsit"], { env: box.env })).stderr).toContain("did you mean `rkb list`?");
    expect((await rkb(["show"], { env: box.env })).exit).toBe(2);
    expect((await rkb(["flag", "3c0ffee001", "--reason"], { env: box.env })).exit).toBe(2);
    const w = await rkb(["show", "3c0ffee001", "--with", "hdf5", "--format", "json"], { env: box.env });
    expect(w.exit).toBe(2);
    expect(w.json().error.message).toContain("has no `=`");
    const fmt = await rkb(["list", "--format", "yaml"], { env: box.env });
    expect(fmt.exit).toBe(2);
    // A number out of its range is named as such: 2 is a number, just not one from 0 to 1.
    const range = await rkb(["dupes", "--min-similarity", "2"], { env: box.env });
    expect(range.exit).toBe(2);
    expect(range.stderr).toContain("--min-similarity 2 is not a number from 0 to 1");
    expect((await rkb(["dupes", "--min-similarity", "abc"], { env: box.env })).stderr).toContain("is not a number from 0 to 1");
  });

  test("--help on every command exits 0 and shows an example", async () => {
    const box = sandbox();
    const { commandNames } = await import("../../cli/commands/index.ts");
    for (const name of commandNames) {
      const r = await rkb([name, "--help"], { env: box.env });
      expect(r.exit).toBe(0);
      expect(r.stdout).toContain(`rkb ${name}`);
      expect(r.stdout).toMatch(/Example:\n {2}.*rkb\b/);
      expect(r.stdout).not.toContain("(repeatable) (repeatable)");
    }
  });
});

describe("status, context and list read the place", () => {
  test("project by git remote, system by host name, counts per scope", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const repo = join(box.dir, "imgtool-checkout");
    const { gitIn } = await import("../helpers.ts");
    require("node:fs").mkdirSync(repo);
    gitIn(repo, box.env, "init", "-q");
    gitIn(repo, box.env, "remote", "add", "origin", "git@example.com:acme/imgtool.git");
    const env = { ...box.env, RKB_HOSTNAME: "orion12.cluster" };
    const s = (await rkb(["--format", "json"], { env, cwd: repo })).json();
    expect(s.project).toEqual({ name: "imgtool", rule: "remote example.com/acme/imgtool" });
    expect(s.system).toEqual({ name: "orion", rule: "hostname orion*" });
    expect(s.lessons).toEqual({ project: 1, system: 1, general: 2 });
    const ctx = await rkb(["context"], { env, cwd: repo });
    expect(ctx.exit).toBe(0);
    const lines = ctx.stdout.trim().split("\n");
    expect(lines.length).toBeLessThanOrEqual(5);
    expect(lines[0]).toBe(
      "rkb: project imgtool (remote example.com/acme/imgtool), system orion (hostname orion*); lessons here: 1 project, 1 system, 2 general.",
    );
    const elsewhere = (await rkb(["--format", "json"], { env: box.env, cwd: box.dir })).json();
    expect(elsewhere.project).toBeNull();
    expect(elsewhere.system).toBeNull();
    const flagged = (await rkb(["--project", "imgtool", "--format", "json"], { env: box.env })).json();
    expect(flagged.project).toEqual({ name: "imgtool", rule: "flag" });
  });

  test("a checkout without a matching remote is matched by its folder name", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const { gitIn } = await import("../helpers.ts");
    const repo = join(box.dir, "imgtool");
    require("node:fs").mkdirSync(join(repo, "src"), { recursive: true });
    gitIn(repo, box.env, "init", "-q");
    const s = (await rkb(["--format", "json"], { env: box.env, cwd: join(repo, "src") })).json();
    expect(s.project).toEqual({ name: "imgtool", rule: "folder imgtool" });
  });

  test("list: overview, one topic, unknown folder", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const all = (await rkb(["list", "--format", "json"], { env: box.env })).json();
    expect(all.lessons).toBe(4);
    expect(all.topics).toContainEqual({ folder: "general/git", lessons: 1 });
    const topic = (await rkb(["list", "general/cpp", "--format", "json"], { env: box.env })).json();
    expect(topic.lessons.map((l: any) => l.id)).toEqual(["3c0ffee002"]);
    const toon = await rkb(["list", "general/cpp", "--toon"], { env: box.env });
    expect(toon.stdout).toContain("lessons[1]{id,type,status,title,summary,tags,when,verified}:");
    const none = await rkb(["list", "general/nope", "--format", "json"], { env: box.env });
    expect(none.exit).toBe(1);
    expect(none.json().error.code).toBe("not_found");
  });
});
