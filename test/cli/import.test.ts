// `rkb import <folder>` on the compiled binary and real git knowledge bases: a mixed folder (lessons
// in add form and the Rust format, plain notes, a broken lesson, duplicates, a secret, a link out, a
// binary), the dry run that writes nothing, the one commit, the masked inbox, and an agent's import
// that asks first.
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BIN, factLesson, gitIn, ROOT, rkb, sandbox, type Sandbox, writeFile } from "../helpers.ts";

const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const FIXTURE = join(ROOT, "test", "fixtures", "kb");

/** A pitfall without its Evidence section: lint's error, on a line of the source file. */
const NO_EVIDENCE = `---
type: pitfall
tags:
  - make
---

# make stops with missing separator

## Symptom
\`Makefile:3: *** missing separator.  Stop.\`

## Cause
The recipe line starts with spaces, not a tab.

## Fix
Indent recipe lines with a tab.
`;

const WITH_SECRET = `---
type: recipe
verified_how: ran
---

# Push release tags from CI with a token

## When to use
A CI job must push the release tag.

## Steps
1. Set \`GITHUB_TOKEN=${TOKEN}\` in the job.
2. Run \`git push origin --tags\`.

## Evidence
The tag appeared on the remote after the job ran.
`;

/** A Rust lesson that reuses the id of missing-vtable.md (3c0ffee002) with other content. */
const TAKEN_ID = readFileSync(join(FIXTURE, "general/cpp/missing-vtable.md"), "utf8")
  .replace(/^# .*$/m, "# Pure virtual call at exit when a base destructor calls a virtual function")
  .replace(/## Symptom\n[^\n]*/, "## Symptom\nThe program aborts with `pure virtual method called` while it shuts down.");

/** Everything below a folder, path → bytes as text, for byte-for-byte comparison. */
function snapshot(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out[name] = readFileSync(path, "latin1");
  }
  return out;
}

async function freshKb(name: string): Promise<Sandbox> {
  const box = sandbox(name);
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

/** The mixed folder every test here imports. */
function mixedFolder(box: Sandbox): string {
  const dir = join(box.dir, "notes");
  // The Rust fixture knowledge base as it is: four lessons, folder notes, kb.toml.
  cpSync(FIXTURE, join(dir, "rust"), { recursive: true });
  writeFile(join(dir, "stale-copies", "rebase-again.md"), readFileSync(join(FIXTURE, "general/git/rebase-needs-a-clean-tree.md"), "utf8"));
  writeFile(join(dir, "vtables", "pure-virtual.md"), TAKEN_ID);
  writeFile(join(dir, "git", "tags.md"), factLesson("git push sends no tags unless asked"));
  writeFile(join(dir, "make", "separator.md"), NO_EVIDENCE);
  writeFile(join(dir, "ci", "token.md"), WITH_SECRET);
  writeFile(join(dir, "meetings", "staging.md"), `# Staging database\n\nThe staging db is reset every Sunday.\nDeploy with GITHUB_TOKEN=${TOKEN}.\n`);
  writeFile(join(dir, "todo.md"), "ask about the cluster quota\n");
  writeFile(join(dir, "top-lesson.md"), factLesson("A lesson at the top of the folder"));
  writeFile(join(box.dir, "outside.md"), "# Outside\n\nnot part of the import\n");
  symlinkSync(join(box.dir, "outside.md"), join(dir, "link.md"));
  writeFileSync(join(dir, "blob.md"), Buffer.from([0x23, 0x20, 0x41, 0x00, 0x01, 0x02]));
  writeFileSync(join(dir, "latin1.md"), Buffer.from("# Caf\xe9 notes\n", "latin1"));
  writeFile(join(dir, "big.md"), `# Big\n\n${"x".repeat(1024 * 1024)}\n`);
  writeFile(join(dir, "photo.png"), "not really a png");
  writeFile(join(dir, ".obsidian", "workspace.md"), "# hidden\n");
  return dir;
}

const reasonOf = (data: any, source: string): string => data.skipped.find((s: any) => s.source === source)?.reason ?? "";

describe("rkb import", () => {
  test("a dry run reports what would be added, noted and left out, and why, and writes nothing anywhere", async () => {
    const box = await freshKb("rkb-import-dry");
    const folder = mixedFolder(box);
    const state = join(box.home, ".local/state");
    const before = { kb: snapshot(box.kb), state: snapshot(state), head: gitIn(box.kb, box.env, "rev-parse", "HEAD") };
    const r = await rkb(["import", folder, "--dry-run", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    const d = r.json();
    expect(d.status).toBe("dry_run");
    const added = Object.fromEntries(d.added.map((a: any) => [a.source, a]));
    expect(Object.keys(added).sort()).toEqual([
      "git/tags.md",
      "rust/general/cpp/missing-vtable.md",
      "rust/general/git/rebase-needs-a-clean-tree.md",
      "rust/projects/imgtool/cmake/zlib-lives-in-opt.md",
      "rust/systems/orion/slurm/srun-not-mpirun.md",
      "vtables/pure-virtual.md",
    ]);
    // Rust lessons keep their ids, and their `when` puts them in their project or system.
    expect(added["rust/general/git/rebase-needs-a-clean-tree.md"]).toMatchObject({ id: "3c0ffee001", path: "general/git/rebase-needs-a-clean-tree.md" });
    expect(added["rust/projects/imgtool/cmake/zlib-lives-in-opt.md"].path).toBe("projects/imgtool/cmake/zlib-lives-in-opt.md");
    expect(added["rust/systems/orion/slurm/srun-not-mpirun.md"]).toMatchObject({ id: "3c0ffee004", path: "systems/orion/slurm/srun-not-mpirun.md" });
    // Files keep their own names (links between imported lessons still resolve); see --topic for one made from the title.
    expect(added["git/tags.md"].path).toBe("general/git/tags.md");
    // A taken id gets a new one, with a note saying so.
    expect(added["vtables/pure-virtual.md"].id).not.toBe("3c0ffee002");
    expect(added["vtables/pure-virtual.md"].notes.join("\n")).toContain("its id 3c0ffee002 is taken");
    expect(d.noted.map((n: any) => [n.source, n.title])).toEqual([
      ["meetings/staging.md", "Staging database"],
      ["todo.md", "todo"],
    ]);
    expect(reasonOf(d, "stale-copies/rebase-again.md")).toContain("already in the knowledge base as 3c0ffee001");
    // The fix is a command that runs: edit needs the hash show prints.
    expect(d.skipped.find((s: any) => s.source === "stale-copies/rebase-again.md").fix).toContain("`rkb edit 3c0ffee001 --base <hash>`");
    const broken = d.skipped.find((s: any) => s.source === "make/separator.md");
    expect(broken.findings).toContainEqual(expect.objectContaining({ path: "make/separator.md", severity: "error", rule: "body/headings", line: 7 }));
    expect(broken.reason).toStartWith("make/separator.md:");
    const secret = d.skipped.find((s: any) => s.source === "ci/token.md");
    // The secret is refused with its kind and the line of the source file, never shown.
    expect(secret.findings).toContainEqual(
      expect.objectContaining({ path: "ci/token.md", line: 12, rule: "leak/secret", message: expect.stringContaining("(github-token)") }),
    );
    expect(r.stdout).not.toContain(TOKEN);
    expect(reasonOf(d, "top-lesson.md")).toContain("no topic folder");
    expect(reasonOf(d, "link.md")).toContain("symbolic link");
    expect(reasonOf(d, "blob.md")).toContain("binary");
    expect(reasonOf(d, "latin1.md")).toContain("not UTF-8");
    expect(reasonOf(d, "big.md")).toContain("larger than 1 MiB");
    expect(reasonOf(d, "photo.png")).toContain("not a Markdown file");
    expect(reasonOf(d, ".obsidian/")).toContain("hidden folder");
    expect(reasonOf(d, "rust/general/cpp/README.md")).toContain("folder note");
    // A Rust knowledge base's folder notes match projects and systems: the fix says they do not come along.
    expect(d.skipped.find((s: any) => s.source === "rust/projects/imgtool/README.md").fix).toContain("remotes, hostname");
    expect(reasonOf(d, "rust/kb.toml")).toContain("not a Markdown file");
    // Nothing written: the knowledge base, its git history, the state folder (inbox, requests).
    expect({ kb: snapshot(box.kb), state: snapshot(state), head: gitIn(box.kb, box.env, "rev-parse", "HEAD") }).toEqual(before);
    // People read the same report.
    const human = await rkb(["import", folder, "--dry-run"], { env: box.env });
    expect(human.stdout).toContain("would add git/tags.md -> general/git/tags.md");
    // A dry run creates no folder, and does not say it did.
    expect(human.stdout).toContain("note: new topic folder general/vtables");
    expect(human.stdout).not.toContain("created");
    expect(human.stdout).toContain("skipped link.md: a symbolic link");
    expect(human.stdout).toMatch(/dry run: would add 6 lessons, put 2 notes in the inbox, leave out \d+ files; nothing was written/);
  });

  test("a real import adds every lesson in one commit, lint stays clean, notes go to the inbox masked; a second import adds nothing", async () => {
    const box = await freshKb("rkb-import-real");
    const folder = mixedFolder(box);
    const r = await rkb(["import", folder, "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    const d = r.json();
    expect(d.status).toBe("done");
    expect(d.added).toHaveLength(6);
    expect(gitIn(box.kb, box.env, "log", "-1", "--format=%s")).toBe("import(notes): 6 lessons\n");
    expect(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim()).toBe("2");
    expect(gitIn(box.kb, box.env, "show", "--name-only", "--format=", "HEAD").trim().split("\n").sort()).toEqual(d.added.map((a: any) => a.path).sort());
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
    for (const a of d.added) expect(readFileSync(join(box.kb, a.path), "utf8")).toContain(`id: ${a.id}`);
    const lint = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(lint.exit).toBe(0);
    expect(lint.json().findings.filter((f: any) => f.severity === "error")).toEqual([]);
    // Imported lessons are found like any other.
    expect((await rkb(["show", "3c0ffee004", "--format", "json"], { env: box.env })).json().title).toBe("Launch MPI jobs on orion with srun");
    const changes = (await rkb(["changes", "--format", "json"], { env: box.env })).json();
    expect(JSON.stringify(changes)).toContain("6 lessons");
    // The notes: priority-2 inbox items naming their file, the secret masked in every file rkb wrote.
    expect(d.noted.map((n: any) => n.id)).toEqual([expect.stringMatching(/^[0-9a-f]{10}$/), expect.stringMatching(/^[0-9a-f]{10}$/)]);
    const inbox = (await rkb(["inbox", "--format", "json"], { env: box.env })).json();
    expect(inbox.items).toHaveLength(2);
    for (const item of inbox.items) expect(item).toMatchObject({ kind: "note", priority: 2 });
    const staging = readFileSync(join(box.home, ".local/state/rkb/inbox", `${d.noted[0].id}.md`), "utf8");
    expect(staging).toContain("From meetings/staging.md: Staging database\n\nThe staging db is reset every Sunday.");
    expect(staging).toContain("[masked:github-token]");
    for (const [path, text] of Object.entries({ ...snapshot(join(box.home, ".local/state")), ...snapshot(join(box.kb, ".git")), ...snapshot(box.kb) }))
      expect({ path, leaked: text.includes(TOKEN) }).toEqual({ path, leaked: false });
    // Again: every lesson is already there, every note already in the inbox; nothing new.
    const again = (await rkb(["import", folder, "--format", "json"], { env: box.env })).json();
    expect(again.added).toEqual([]);
    expect(again.noted).toEqual([]);
    // No commit was made, and the report does not name one.
    expect(again.commit).toBeNull();
    expect(reasonOf(again, "todo.md")).toContain("already in the inbox as");
    expect(reasonOf(again, "git/tags.md")).toContain("already in the knowledge base as");
    expect(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim()).toBe("2");
  });

  test("--topic names the topic of lessons at the top of the folder; a file name rkb would not make is made from the title", async () => {
    const box = await freshKb("rkb-import-topic");
    const dir = join(box.dir, "flat");
    writeFile(join(dir, "A Flat Note.md"), factLesson("Flat lesson one about tar"));
    const r = (await rkb(["import", dir, "--topic", "tar", "--format", "json"], { env: box.env })).json();
    expect(r.added.map((a: any) => a.path)).toEqual(["general/tar/flat-lesson-one-about-tar.md"]);
    // No note went to the inbox: the summary asks nobody to distill one.
    const human = await rkb(["import", dir, "--topic", "tar"], { env: box.env });
    expect(human.stdout).toContain("put 0 notes in the inbox, left out 1 file");
    expect(human.stdout).not.toContain("distill");
  });

  test("a lesson with an unknown type or an impossible date is left out with a reason that reads on the source file", async () => {
    const box = await freshKb("rkb-import-format");
    const dir = join(box.dir, "bad");
    writeFile(join(dir, "misc/bad-type.md"), "---\ntype: gotcha\n---\n\n# A lesson with an unknown type\n\n## Symptom\nx\n");
    writeFile(
      join(dir, "misc/bad-date.md"),
      "---\ntype: fact\nverified: 2026-02-30\nverified_how: ran\n---\n\n# Dates in frontmatter must exist\n\n## Statement\nA date.\n\n## Evidence\nI ran `date -d 2026-02-30` and it printed invalid date.\n",
    );
    const d = (await rkb(["import", dir, "--dry-run", "--format", "json"], { env: box.env })).json();
    // import has no --type flag: the fix names only what works.
    const type = d.skipped.find((s: any) => s.source === "misc/bad-type.md");
    expect(type.reason).toContain("unknown lesson type `gotcha`");
    expect(type.fix).not.toContain("--type");
    // The date is on line 3 of the source file, and the message says so too (not the line rkb's rewrite would give it).
    const date = d.skipped.find((s: any) => s.source === "misc/bad-date.md");
    expect(date.findings).toEqual([expect.objectContaining({ rule: "format/parse", line: 3, message: expect.stringContaining("on line 3 is not allowed") })]);
    expect(date.reason).toStartWith("misc/bad-date.md:3: `verified: 2026-02-30` on line 3 is not allowed");
  });

  test("an agent's import asks the person first and writes nothing until confirmed", async () => {
    const box = await freshKb("rkb-import-agent");
    const folder = mixedFolder(box);
    const agent = { ...box.env, RKB_HARNESS: "pi", RKB_SESSION: "session-1" };
    const state = join(box.home, ".local/state/rkb");
    const r = await rkb(["import", folder, "--format", "json"], { env: agent });
    expect(r.exit).toBe(3);
    const err = r.json();
    expect(err.status).toBe("needs_user");
    expect(err.options).toEqual(["import all", "cancel"]);
    // The question names the whole folder, and a dry run the person can run from any folder.
    const real = realpathSync(folder);
    expect(err.question).toContain(`import 6 lessons from ${real} into the knowledge base and put 2 notes in the inbox`);
    expect(err.question).toContain(`\`rkb import ${real} --dry-run\` lists them`);
    const spaced = join(box.dir, "my notes");
    cpSync(join(folder, "vtables"), join(spaced, "vtables"), { recursive: true });
    const quoted = (await rkb(["import", spaced, "--format", "json"], { env: agent })).json();
    expect(quoted.question).toContain(`\`rkb import '${realpathSync(spaced)}' --dry-run\``);
    expect(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim()).toBe("1");
    expect(existsSync(join(state, "inbox"))).toBe(false);
    // The stored request holds the notes masked.
    for (const [path, text] of Object.entries(snapshot(state))) expect({ path, leaked: text.includes(TOKEN) }).toEqual({ path, leaked: false });
    // The person allows it on their own terminal.
    const cmd = `${BIN} confirm ${err.request} --choice 'import all' --format json`;
    const p = Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], { env: box.env, stdin: Buffer.from("yes\n"), stdout: "pipe", stderr: "pipe" });
    expect(p.exitCode).toBe(0);
    expect(gitIn(box.kb, box.env, "log", "-1", "--format=%s")).toBe("import(notes): 6 lessons\n");
    expect(readdirSync(join(state, "inbox"))).toHaveLength(2);
    expect((await rkb(["lint"], { env: box.env })).exit).toBe(0);
  });

  test("a folder with no Markdown, a missing folder and a folder inside the knowledge base are errors naming it; nothing is written", async () => {
    const box = await freshKb("rkb-import-errors");
    const empty = join(box.dir, "empty");
    mkdirSync(empty);
    writeFile(join(box.dir, "text-only", "a.txt"), "plain text");
    for (const dir of [empty, join(box.dir, "text-only"), join(box.dir, "missing")]) {
      const r = await rkb(["import", dir, "--format", "json"], { env: box.env });
      expect(r.exit).toBe(1);
      const { error } = r.json();
      expect(error.code).toBe("not_found");
      expect(error.message).toContain(relative("/", dir));
      expect(error.fix).toContain("Markdown");
    }
    // A folder that holds the knowledge base imports around it.
    writeFile(join(box.dir, "idea.md"), "# Idea\n\nuse ccache\n");
    const around = (await rkb(["import", box.dir, "--dry-run", "--format", "json"], { env: box.env })).json();
    expect(reasonOf(around, "kb/")).toBe("the knowledge base itself");
    expect(around.noted.map((n: any) => n.source)).toEqual(["idea.md"]);
    const inside = await rkb(["import", join(box.kb, "general"), "--format", "json"], { env: box.env });
    expect(inside.exit).toBe(1);
    expect(inside.json().error).toMatchObject({ code: "refused", message: expect.stringContaining("inside the knowledge base") });
    expect(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim()).toBe("1");
  });

  test("an import killed with SIGKILL at any point leaves the knowledge base as before or after it; the next write works", async () => {
    const lessons = 200;
    const folder = join(sandbox("rkb-import-kill-src").dir, "many");
    for (let i = 0; i < lessons; i++) writeFile(join(folder, `topic-${i % 10}`, `fact-${i}.md`), factLesson(`Fact number ${i} about tool${i}`));
    const imported = (box: Sandbox) => readdirSync(box.kb, { recursive: true }).filter((p) => /^general\/topic-\d\/fact-\d+\.md$/.test(String(p))).length;
    // How long a whole import takes here; kills land across that time.
    const probe = await freshKb("rkb-import-kill");
    const started = performance.now();
    expect((await rkb(["import", folder], { env: probe.env })).exit).toBe(0);
    const full = performance.now() - started;
    expect(imported(probe)).toBe(lessons);
    let midWrite = 0;
    for (let k = 1; k <= 8; k++) {
      const box = await freshKb("rkb-import-kill");
      const proc = Bun.spawn([BIN, "import", folder], { env: box.env, cwd: box.home, stdout: "ignore", stderr: "ignore" });
      await Bun.sleep((full * k) / 9);
      if (proc.exitCode === null) midWrite++;
      proc.kill("SIGKILL");
      await proc.exited;
      const next = await rkb(["add", "--topic", "after-kill", "--format", "json"], { env: box.env, stdin: factLesson("Written after the killed import") });
      expect(next.exit).toBe(0);
      expect([0, lessons]).toContain(imported(box));
      expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
      expect(existsSync(join(box.kb, ".git", "rkb-journal.json"))).toBe(false);
      expect((await rkb(["lint"], { env: box.env })).exit).toBe(0);
    }
    // Most kills landed while the import ran, or the test proves nothing.
    expect(midWrite).toBeGreaterThanOrEqual(4);
  }, 120_000);
});
