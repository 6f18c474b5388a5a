import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { distilledSince } from "../../cli/machine/state.ts";
import { factLesson, rkb, sandbox, writeFile } from "../helpers.ts";

const box = () => sandbox("rkb-inbox");
const inbox = (env: Record<string, string>) => join(env.XDG_STATE_HOME!, "rkb", "inbox");

describe("rkb note", () => {
  test("adds a note item from the words, mode 600", async () => {
    const { env } = box();
    const r = await rkb(["note", "cmake needs", "ZLIB_ROOT=/opt/zlib", "--format", "json"], { env: { ...env, RKB_SESSION: "sess-42" } });
    expect(r.exit).toBe(0);
    const { id } = r.json();
    expect(id).toMatch(/^[0-9a-f]{10}$/);
    const path = join(inbox(env), `${id}.md`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, "utf8");
    expect(text).toMatch(/^---\nkind: note\ntime: \d+\nsession: sess-42\n---\n\ncmake needs ZLIB_ROOT=\/opt\/zlib\n$/);
  });

  test("reads stdin when no words are given and keeps the priority", async () => {
    const { env } = box();
    const r = await rkb(["note", "--priority", "3"], { env, stdin: "deploy tokens live in the CI settings, not in .env\n" });
    expect(r.exit).toBe(0);
    expect(r.stdout).toMatch(/^noted [0-9a-f]{10} in the inbox; /);
    const list = (await rkb(["inbox", "--format", "json"], { env })).json();
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ kind: "note", priority: 3, preview: "deploy tokens live in the CI settings, not in .env" });
  });

  // Issue 10: a note holding a secret was masked and kept; it is refused with a leak finding now.
  test("a note holding a secret is refused with a leak finding naming the kind and the line; nothing is written", async () => {
    const { env } = box();
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const r = await rkb(["note", "--format", "json"], { env, stdin: `deploy notes\ntoken is GITHUB_TOKEN=${token}\n` });
    expect(r.exit).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(token);
    const { error } = r.json();
    expect(error.code).toBe("refused");
    expect(error.findings).toEqual([
      expect.objectContaining({ line: 2, severity: "error", rule: "leak/secret", message: expect.stringContaining("(github-token)") }),
    ]);
    expect(existsSync(inbox(env))).toBe(false);
  });

  test("an empty note is a usage error (exit 2); so is a bad priority", async () => {
    const { env } = box();
    const empty = await rkb(["note"], { env, stdin: "  \n" });
    expect(empty.exit).toBe(2);
    expect(empty.stderr).toContain("the note is empty");
    expect((await rkb(["note", "x", "--priority", "5"], { env })).exit).toBe(2);
    expect(existsSync(inbox(env))).toBe(false);
  });
});

describe("rkb inbox", () => {
  const item = (env: Record<string, string>, id: string, time: number, body: string, extra = "") =>
    writeFile(join(inbox(env), `${id}.md`), `---\nkind: transcript\ntime: ${time}\nsignals: [fixed cmake, remember]\npriority: 2\n${extra}---\n\n${body}\n`);

  test("lists newest first with signals and counts; json is {items: [...]}", async () => {
    const { env } = box();
    const now = Math.floor(Date.now() / 1000);
    item(env, "aaaaaaaaaa", now - 7200, "## Excerpt\n\n[user] <command-name>/x</command-name>\n[user] older one");
    item(env, "bbbbbbbbbb", now - 60, "## Excerpt\n\n[user] newer one", 'counts: "failed 1, fixed 1, correction 0, remember 1, repeat 0"\n');
    const r = await rkb(["inbox", "--format", "json"], { env });
    expect(r.exit).toBe(0);
    const { items } = r.json();
    expect(items.map((i: any) => i.id)).toEqual(["bbbbbbbbbb", "aaaaaaaaaa"]);
    expect(items[0]).toMatchObject({
      kind: "transcript",
      priority: 2,
      age: "1 min",
      signals: ["fixed cmake", "remember"],
      counts: "failed 1, fixed 1, correction 0, remember 1, repeat 0",
      preview: "newer one",
    });
    expect(items[1]).toMatchObject({ age: "2 h", preview: "older one" });
    const human = await rkb(["inbox"], { env });
    expect(human.stdout).toContain("2 items in the inbox, newest first:");
    expect(human.stdout.indexOf("bbbbbbbbbb")).toBeLessThan(human.stdout.indexOf("aaaaaaaaaa"));
    expect(human.stdout).toContain("[fixed cmake, remember]");
  });

  test("items older than 30 days expire when listing", async () => {
    const { env } = box();
    item(env, "cccccccccc", Math.floor(Date.now() / 1000) - 31 * 86400, "[user] stale");
    const r = (await rkb(["inbox", "--format", "json"], { env })).json();
    expect(r).toMatchObject({ items: [], expired: 1 });
  });

  test("show prints the file; json has meta and body; unknown ids are not_found", async () => {
    const { env } = box();
    item(env, "dddddddddd", Math.floor(Date.now() / 1000), "[user] show me");
    const human = await rkb(["inbox", "show", "dddddddddd"], { env });
    expect(human.stdout).toBe(readFileSync(join(inbox(env), "dddddddddd.md"), "utf8"));
    const json = (await rkb(["inbox", "show", "dddddddddd", "--format", "json"], { env })).json();
    expect(json).toMatchObject({ id: "dddddddddd", meta: { kind: "transcript", priority: 2, signals: ["fixed cmake", "remember"] }, body: "[user] show me\n" });
    const missing = await rkb(["inbox", "show", "0123456789", "--format", "json"], { env });
    expect(missing.exit).toBe(1);
    expect(missing.json().error.code).toBe("not_found");
    expect((await rkb(["inbox", "show", "../../etc/passwd"], { env })).exit).toBe(1);
  });

  test("drop removes; done records the outcome and removes; unknown ids exit 1", async () => {
    const { env } = box();
    const now = Math.floor(Date.now() / 1000);
    item(env, "eeeeeeeeee", now, "[user] a");
    item(env, "ffffffffff", now, "[user] b");
    const drop = await rkb(["inbox", "drop", "eeeeeeeeee", "--format", "json"], { env });
    expect(drop.json()).toEqual({ items: [{ id: "eeeeeeeeee", removed: true }] });
    // The lesson an outcome names must exist (issue 22).
    expect((await rkb(["init"], { env })).exit).toBe(0);
    const lesson = (await rkb(["add", "--topic", "cmake", "--format", "json"], { env, stdin: factLesson("CMake finds zlib with ZLIB_ROOT") })).json().id;
    const done = await rkb(["inbox", "done", "ffffffffff", "--outcome", `add:${lesson}`], { env });
    expect(done.exit).toBe(0);
    expect(done.stdout).toContain("removed ffffffffff");
    const log = distilledSince(env, 0);
    expect(log).toEqual([{ time: expect.any(Number), item: "ffffffffff", kind: "transcript", signals: ["fixed cmake", "remember"], op: "add", lesson }]);
    const again = await rkb(["inbox", "done", "ffffffffff", "--format", "json"], { env });
    expect(again.exit).toBe(1);
    expect(again.json()).toEqual({ items: [{ id: "ffffffffff", removed: false }] });
  });

  test("usage errors: bad outcome, outcome without lesson, unknown action", async () => {
    const { env } = box();
    item(env, "abcabcabca", Math.floor(Date.now() / 1000), "[user] x");
    expect((await rkb(["inbox", "done", "abcabcabca", "--outcome", "rewrite"], { env })).exit).toBe(2);
    expect((await rkb(["inbox", "done", "abcabcabca", "--outcome", "update"], { env })).exit).toBe(2);
    expect((await rkb(["inbox", "frobnicate"], { env })).exit).toBe(2);
    expect(existsSync(join(inbox(env), "abcabcabca.md"))).toBe(true);
  });
});
