import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, writeFile, type Sandbox } from "../helpers.ts";
import { SECRET_SAMPLES } from "../reliability/secret-corpus.ts";
import { activeMarkup, HOSTILE, hostileKb } from "../site/hostile-kb.ts";
import { filesUnder, HIDDEN, HIDDEN_PROJECT, PUBLIC, siteKb, whileServing } from "../site/site-kb.ts";

// The QA attacks on `rkb site build` (issue 24): a left-out lesson must not show through any byte
// the build writes (file names included), whatever Markdown form links to it; a folder note that
// does not parse must not open its folder to a wider audience; ids, folder names and use records
// a hand or a teammate wrote may be anything and still stay inert and inside --out.

/** Where any of the traces shows: in a file's bytes or in its name. */
function leaks(files: Map<string, string>, traces: string[]): string[] {
  const found: string[] = [];
  for (const trace of traces)
    for (const [file, text] of files) {
      if (text.includes(trace)) found.push(`${trace} in ${file}`);
      if (file.includes(trace)) found.push(`${trace} in the name ${file}`);
    }
  return found;
}

/** The `<img>` elements and `on…` attributes of a page, as a browser's parser sees them (Bun's HTMLRewriter). */
function elementsAndHandlers(file: string, html: string): string[] {
  const found: string[] = [];
  new HTMLRewriter()
    .on("*", {
      element(el) {
        if (el.tagName === "img") found.push(`<img> in ${file}`);
        for (const [name] of el.attributes) if (/^on/i.test(name)) found.push(`${el.tagName} ${name}= in ${file}`);
      },
    })
    .transform(html);
  return found;
}

const lesson = (o: { id: string; title: string; labels?: string; body?: string }) => `---
schema: 1
id: ${o.id}
type: fact
status: active
verified: 2026-10-02
verified_how: read
${o.labels ? `labels:\n  sensitivity: ${o.labels}\n` : ""}---

# ${o.title}

## Statement
${o.body ?? "Something that holds."}

## Evidence
Read in the manual.
`;

function commitAll(box: Sandbox): void {
  gitIn(box.kb, box.env, "add", "-A");
  gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", "qa: hand-written files");
}

const HIDDEN_TRACES = [...Object.values(HIDDEN).flatMap((h) => [h.id, h.title, h.word]), HIDDEN_PROJECT.name, HIDDEN_PROJECT.alias, "deploy-key", "vendor.md"];

describe("rkb site build: nothing of a left-out lesson, whatever links to it", () => {
  test("reference links, titled links, nested and multi-line link text, images of its assets: no byte of the build names it", async () => {
    const box = await siteKb("rkb-site-attack");
    const vendor = `../../projects/${HIDDEN_PROJECT.name}/contracts/vendor.md`;
    writeFile(
      join(box.kb, "general/tools/links.md"),
      lesson({
        id: "5a0000000a",
        title: "Every way Markdown links to another lesson",
        labels: "public",
        body: [
          "See [the vendor note][vendor] and [the key][key], and [vendor] alone.",
          `A titled one: [titled](${vendor} 'its title') and [in parentheses](../deploy/deploy-key.md (a title)).`,
          `Nested text: [a [nested] link](../deploy/deploy-key.md) and [text that goes\non](${vendor}).`,
          `Angle brackets: [angled](<${vendor}>) and an image ![diagram](../deploy/deploy-key.assets/flow.png).`,
          "",
          `[vendor]: ${vendor}`,
          `[key]: <../deploy/deploy-key.md> "the key lesson"`,
        ].join("\n"),
      }),
    );
    commitAll(box);
    const out = join(box.dir, "site");
    const run = await rkb(["site", "build", "--out", out], { env: box.env });
    expect(run.exit).toBe(0);
    const files = filesUnder(out);
    expect(files.has("lessons/5a0000000a.html")).toBe(true);
    expect(leaks(files, HIDDEN_TRACES)).toEqual([]);
    // The words of each link stay, as plain text.
    const page = files.get("lessons/5a0000000a.html")!;
    for (const words of ["the vendor note", "titled", "in parentheses", "nested", "angled"]) expect(page).toContain(words);
  });

  test("a folder note that does not parse does not open its folder: a confidential project stays out of --sink web-protected", async () => {
    const box = await siteKb("rkb-site-attack");
    // The project note names a key a project note may not have: it no longer parses, so its
    // `sensitivity: confidential` is not read. The lessons under it must not fall back to internal.
    const note = join(box.kb, `projects/${HIDDEN_PROJECT.name}/README.md`);
    writeFile(note, `${readFileSync(note, "utf8").replace("---\n", "---\ncolour: red\n")}`);
    commitAll(box);
    const out = join(box.dir, "internal");
    const run = await rkb(["site", "build", "--out", out, "--sink", "web-protected", "--format", "json"], { env: box.env });
    if (run.exit !== 0) {
      // Refusing the build is as good, when it names the note and the fix.
      expect(run.json().error.message).toContain(`projects/${HIDDEN_PROJECT.name}/README.md`);
      expect(existsSync(join(out, "index.html"))).toBe(false);
      return;
    }
    const files = filesUnder(out);
    expect(files.has(`lessons/${HIDDEN.internal.id}.html`)).toBe(true);
    const traces = [HIDDEN.confidential.id, HIDDEN.confidential.title, HIDDEN.confidential.word, HIDDEN_PROJECT.name, HIDDEN_PROJECT.alias];
    expect(leaks(files, traces)).toEqual([]);
  });
});

describe("rkb site build: what a teammate's hand wrote stays inert and inside --out", () => {
  test("an id and a folder name with quotes and markup: no attribute or element of theirs in any page, no file outside --out", async () => {
    const box = await siteKb("rkb-site-attack");
    const folder = `general/a"><img src=x onerror=alert(1)>`;
    writeFile(join(box.kb, folder, "quoted.md"), lesson({ id: "5a0000000b", title: "A lesson in a folder whose name is markup", labels: "public" }));
    writeFile(join(box.kb, "general/tools/bad-id.md"), lesson({ id: `'x" onmouseover="alert(1)'`, title: "A lesson whose id is markup", labels: "public" }));
    writeFile(join(box.kb, "general/tools/climb.md"), lesson({ id: "../../../../../qa-escaped", title: "A lesson whose id climbs", labels: "public" }));
    commitAll(box);
    const out = join(box.dir, "deep", "site");
    const run = await rkb(["site", "build", "--out", out], { env: box.env });
    expect(run.exit).toBe(0);
    const files = filesUnder(out);
    const found: string[] = [];
    for (const [file, html] of files) if (file.endsWith(".html")) found.push(...elementsAndHandlers(file, html));
    expect(found).toEqual([]);
    expect(filesUnder(box.dir).has("qa-escaped.html")).toBe(false);
    expect([...filesUnder(join(box.dir, "deep")).keys()].every((f) => f.startsWith("site/"))).toBe(true);
  });

  test("--out through a link into the knowledge base is refused like --out inside it, and nothing is written there", async () => {
    const box = await siteKb("rkb-site-attack");
    const link = join(box.dir, "kb-link");
    symlinkSync(box.kb, link);
    const before = gitIn(box.kb, box.env, "status", "--porcelain", "--untracked-files=all");
    const run = await rkb(["site", "build", "--out", join(link, "public"), "--format", "json"], { env: box.env });
    expect(run.exit).toBe(1);
    expect(run.json().error.code).toBe("refused");
    expect(existsSync(join(box.kb, "public"))).toBe(false);
    expect(gitIn(box.kb, box.env, "status", "--porcelain", "--untracked-files=all")).toBe(before);
  });

  test("use records with a broken time or counts do not stop the build", async () => {
    const box = await siteKb("rkb-site-attack");
    const records = [
      { id: PUBLIC.tar.id, event: "worked", time: 5 },
      { id: PUBLIC.tar.id, event: "failed", time: { at: "noon" } },
      { id: PUBLIC.cmake.id, event: "injected", time: "not a time" },
    ];
    writeFile(join(box.kb, ".rkb/usage/qa-broken.jsonl"), `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
    writeFile(
      join(box.kb, ".rkb/replays/qa-broken.jsonl"),
      `${JSON.stringify({ time: "2026-11-09T00:00:00Z", failures: 0, covered: 3, lessons: { [PUBLIC.tar.id]: "many" } })}\n`,
    );
    commitAll(box);
    const out = join(box.dir, "site");
    const run = await rkb(["site", "build", "--out", out], { env: box.env });
    expect({ exit: run.exit, stderr: run.stderr }).toEqual({ exit: 0, stderr: "" });
    const use = readFileSync(join(out, "use.html"), "utf8");
    expect(use).not.toContain("NaN");
    expect(use).not.toContain("Infinity");
  });
});

describe("rkb site build: no secret is published", () => {
  test("a public lesson committed past the hook with a secret in it: the build is refused naming the file and line, and nothing of it is written", async () => {
    const box = await siteKb("rkb-site-attack");
    const secret = SECRET_SAMPLES.find((s) => s.name === "github classic token")!;
    writeFile(
      join(box.kb, "general/tools/token.md"),
      lesson({ id: "5a0000000d", title: "Deploying with the bot's token", labels: "public", body: `Run it as:\n\n    ${secret.line}\n` }),
    );
    commitAll(box);
    const out = join(box.dir, "site");
    const run = await rkb(["site", "build", "--out", out, "--format", "json"], { env: box.env });
    expect(run.exit).toBe(1);
    expect(run.json().error.message).toMatch(/^general\/tools\/token\.md:\d+: /);
    expect(run.stdout).not.toContain(secret.secret);
    const written = existsSync(out) ? [...filesUnder(out).values()] : [];
    expect(written.some((t) => t.includes(secret.secret))).toBe(false);
  });

  test("a commit message in rkb's shape with a secret in it: the lesson's history shows it masked", async () => {
    const box = await siteKb("rkb-site-attack");
    const secret = SECRET_SAMPLES.find((s) => s.name === "stripe live secret")!;
    const file = join(box.kb, "general/tar/tar-symlink.md");
    writeFile(file, `${readFileSync(file, "utf8")}\nOne more line.\n`);
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-am", `edit(general/tar): ${PUBLIC.tar.title} with ${secret.line} [${PUBLIC.tar.id}]`);
    const out = join(box.dir, "site");
    expect((await rkb(["site", "build", "--out", out], { env: box.env })).exit).toBe(0);
    const page = readFileSync(join(out, `lessons/${PUBLIC.tar.id}.html`), "utf8");
    expect(page).toContain("One more line.");
    expect(page).not.toContain(secret.secret);
  });
});

describe("markup in every field a page shows is inert", () => {
  test("titles, folders, tags, labels, when, provenance, stale reasons, Markdown tricks, commit subjects and authors: no page of the site or of serve holds any as markup", async () => {
    const box = await hostileKb("rkb-site-attack");
    const out = join(box.dir, "site");
    const run = await rkb(["site", "build", "--out", out], { env: box.env });
    expect(run.exit).toBe(0);
    const files = filesUnder(out);
    const page = files.get(`lessons/${HOSTILE.id}.html`);
    expect(page).toBeDefined();
    // The subject is shown, as text.
    expect(page).toContain("&lt;script&gt;window.__pwned=&#39;subject&#39;&lt;/script&gt;");
    const found: string[] = [];
    for (const [file, html] of files) if (file.endsWith(".html")) found.push(...activeMarkup(`site ${file}`, html));
    await whileServing(box, async (url) => {
      for (const file of [...files.keys(), "inbox.html"].filter((f) => f.endsWith(".html"))) {
        const answer = await fetch(url + file.split("/").map(encodeURIComponent).join("/"));
        expect({ file, status: answer.status }).toEqual({ file, status: 200 });
        found.push(...activeMarkup(`serve ${file}`, await answer.text()));
      }
    });
    expect(found).toEqual([]);
  }, 60_000);
});
