import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rkb, writeFile } from "../helpers.ts";
import { filesUnder, HIDDEN, HIDDEN_PROJECT, PUBLIC, siteKb } from "../site/site-kb.ts";

// `rkb site build`: only what the sink allows, in every file it writes; a folder it may not empty
// is refused; `rkb eval --replay --record` keeps the counts the coverage plot reads.

/** What a left-out lesson must never show through: its id, title, a word of its text, its project folder and alias. */
function traces(hidden: { id: string; title: string; word: string }[], extra: string[] = []): string[] {
  return [...hidden.flatMap((h) => [h.id, h.title, h.word]), ...extra];
}

describe("rkb site build", () => {
  test("--sink web (the default) writes the public lessons and nothing of an internal or confidential one, in any file", async () => {
    const box = await siteKb();
    const out = join(box.dir, "site");
    const run = await rkb(["site", "build", "--out", out, "--format", "json"], { env: box.env });
    expect(run.exit).toBe(0);
    expect(run.json()).toMatchObject({ sink: "web", lessons: Object.keys(PUBLIC).length });
    const files = filesUnder(out);
    for (const { id, title } of Object.values(PUBLIC)) {
      expect(files.has(`lessons/${id}.html`)).toBe(true);
      expect(files.get(`lessons/${id}.html`)).toContain(title.replaceAll("'", "&#39;"));
    }
    expect(files.get("assets/search-index.bin")).toContain(PUBLIC.tar.title);
    const leaked = [];
    for (const trace of traces(Object.values(HIDDEN), [HIDDEN_PROJECT.name, HIDDEN_PROJECT.alias, "general/deploy"]))
      for (const [file, text] of files) if (text.includes(trace)) leaked.push({ file, trace });
    expect(leaked).toEqual([]);
    // No inbox and no machine state in a built site.
    expect(files.has("inbox.html")).toBe(false);
    expect([...files.values()].some((t) => t.includes("staging db is reset"))).toBe(false);
    // The links to left-out lessons became plain text; the one to a public lesson goes to its page.
    const tar = files.get(`lessons/${PUBLIC.tar.id}.html`)!;
    expect(tar).toContain(`href="../lessons/${PUBLIC.cmake.id}.html"`);
    expect(tar).toContain("and the internal note and the vendor one.");
    expect(tar).not.toContain("deploy-key.md");
    // A superseded lesson whose successor is left out says so without naming it.
    expect(files.get(`lessons/${PUBLIC.old.id}.html`)).toContain("a lesson this site does not hold");
  });

  test("--sink web-protected adds the internal lesson and still leaves the confidential one out", async () => {
    const box = await siteKb();
    const out = join(box.dir, "internal");
    const run = await rkb(["site", "build", "--out", out, "--sink", "web-protected"], { env: box.env });
    expect(run.exit).toBe(0);
    const files = filesUnder(out);
    expect(files.has(`lessons/${HIDDEN.internal.id}.html`)).toBe(true);
    const leaked = [];
    for (const trace of traces([HIDDEN.confidential], [HIDDEN_PROJECT.name, HIDDEN_PROJECT.alias]))
      for (const [file, text] of files) if (text.includes(trace)) leaked.push({ file, trace });
    expect(leaked).toEqual([]);
  });

  test("the hostile lesson's page holds its text escaped: no script element, event attribute or javascript: link of its own", async () => {
    const box = await siteKb();
    const out = join(box.dir, "site");
    expect((await rkb(["site", "build", "--out", out], { env: box.env })).exit).toBe(0);
    const html = readFileSync(join(out, `lessons/${PUBLIC.hostile.id}.html`), "utf8");
    expect(html).toContain("&lt;script&gt;window.__pwned");
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="../assets/site.js">']);
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(html).not.toMatch(/href="\s*(?:javascript:|vbscript:|data:text)/i);
    expect(html).not.toMatch(/<svg[^>]*onload/i);
  });

  test("a rebuild empties the folder it built, so a lesson that left the sink leaves the site", async () => {
    const box = await siteKb();
    const out = join(box.dir, "site");
    expect((await rkb(["site", "build", "--out", out], { env: box.env })).exit).toBe(0);
    expect(existsSync(join(out, `lessons/${PUBLIC.cmake.id}.html`))).toBe(true);
    const label = await rkb(["label", PUBLIC.cmake.id, "sensitivity=internal"], { env: box.env });
    expect(label.exit).toBe(0);
    expect((await rkb(["site", "build", "--out", out], { env: box.env })).exit).toBe(0);
    expect(existsSync(join(out, `lessons/${PUBLIC.cmake.id}.html`))).toBe(false);
    expect([...filesUnder(out).values()].some((t) => t.includes(PUBLIC.cmake.title))).toBe(false);
  });

  test("a folder with other files, the knowledge base itself, an unknown sink and a missing --out are refused", async () => {
    const box = await siteKb();
    const other = join(box.dir, "mine");
    mkdirSync(other);
    writeFileSync(join(other, "notes.txt"), "keep me");
    const refused = await rkb(["site", "build", "--out", other, "--format", "json"], { env: box.env });
    expect(refused.exit).toBe(1);
    expect(refused.json().error.code).toBe("refused");
    expect(readFileSync(join(other, "notes.txt"), "utf8")).toBe("keep me");
    const intoKb = await rkb(["site", "build", "--out", join(box.kb, "site"), "--format", "json"], { env: box.env });
    expect(intoKb.json().error.code).toBe("refused");
    expect(existsSync(join(box.kb, "site"))).toBe(false);
    const sink = await rkb(["site", "build", "--out", join(box.dir, "x"), "--sink", "nope", "--format", "json"], { env: box.env });
    expect(sink.exit).toBe(1);
    expect(sink.json().error).toMatchObject({ code: "not_found" });
    expect(sink.json().error.message).toContain("[sinks.web-protected]");
    expect((await rkb(["site", "build"], { env: box.env })).exit).toBe(2);
    expect((await rkb(["site", "publish", "--out", join(box.dir, "y")], { env: box.env })).exit).toBe(2);
  });
});

describe("rkb eval --replay --record", () => {
  test("keeps the run's counts per lesson in .rkb/replays/, and the next write commits them", async () => {
    const box = await siteKb();
    const session = join(box.dir, "s.jsonl");
    writeFile(session, readFileSync(join(import.meta.dir, "../fixtures/sessions/pi-cmake-zlib.jsonl"), "utf8"));
    const run = await rkb(["eval", "--replay", session, "--record", "--format", "json"], { env: box.env });
    expect(run.exit).toBe(0);
    const report = run.json();
    expect(report.recorded).toMatch(/^\.rkb\/replays\/[a-z0-9-]+\.jsonl$/);
    const lines = readFileSync(join(box.kb, report.recorded), "utf8").trim().split("\n");
    const recorded = JSON.parse(lines.at(-1)!);
    expect(recorded).toMatchObject({ files: 1, failures: report.failures, covered: report.covered });
    expect(Object.values(recorded.lessons as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(report.covered);
    expect((await rkb(["eval", "--self", "--record"], { env: box.env })).exit).toBe(2);
    expect((await rkb(["flag", PUBLIC.cmake.id, "--reason", "zlib moved"], { env: box.env })).exit).toBe(0);
    const committed = Bun.spawnSync(["git", "show", "--name-only", "--format=", "HEAD"], { cwd: box.kb, env: box.env }).stdout.toString();
    expect(committed).toContain(report.recorded);
  });
});
