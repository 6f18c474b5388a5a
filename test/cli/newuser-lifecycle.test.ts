// Issue 22, lifecycle: install and uninstall leave a machine as they found it, archived lessons come
// back as they were, counts say what they count, a team starts in an empty remote, import takes a file.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { factLesson, gitIn, rkb, sandbox, type Sandbox, writeFile } from "../helpers.ts";

async function kb(): Promise<Sandbox> {
  const box = sandbox();
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

describe("rkb install on a machine without the harness", () => {
  test.each(["omp", "pi", "claude"])("%s: install says the harness is not there, uninstall removes every folder it made", async (harness) => {
    const box = sandbox();
    const before = readdirSync(box.home).sort();
    const installed = await rkb(["install", harness, "--format", "json"], { env: box.env });
    expect(installed.exit).toBe(0);
    expect(installed.json().installs[0].note).toMatch(/not set up on this machine/);
    expect((await rkb(["install", harness, "--uninstall"], { env: box.env })).exit).toBe(0);
    expect(readdirSync(box.home).sort()).toEqual(before);
    const human = await rkb(["install", harness], { env: box.env });
    expect(human.stdout).toMatch(/not set up on this machine/);
    expect((await rkb(["install", harness, "--uninstall"], { env: box.env })).exit).toBe(0);
    expect(readdirSync(box.home).sort()).toEqual(before);
    const doctor = (await rkb(["doctor", "--format", "json"], { env: box.env })).json();
    const label = harness === "claude" ? "plugin: claude" : `extension: ${harness}`;
    expect(doctor.checks.find((c: any) => c.check === label).status).toBe("ok");
  });

  test("uninstall keeps the harness's own folders and files", async () => {
    const box = sandbox();
    mkdirSync(join(box.home, ".omp", "agent", "sessions"), { recursive: true });
    expect((await rkb(["install", "omp"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["install", "omp", "--uninstall"], { env: box.env })).exit).toBe(0);
    expect(readdirSync(join(box.home, ".omp", "agent"))).toEqual(["sessions"]);
  });
});

describe("rkb unarchive", () => {
  test("a lesson flagged stale before it was archived comes back stale, with its reason", async () => {
    const box = await kb();
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: factLesson("Shallow clones have no tags") })).json();
    expect((await rkb(["flag", added.id, "--reason", "git 2.40 fetches tags now"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["archive", added.id, "--reason", "nobody uses shallow clones here"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["lint"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["unarchive", added.id], { env: box.env })).exit).toBe(0);
    const shown = (await rkb(["show", added.id, "--format", "json"], { env: box.env })).json();
    expect(shown.status).toBe("stale");
    expect(shown.frontmatter.stale_reason).toBe("git 2.40 fetches tags now");
    expect((await rkb(["lint"], { env: box.env })).exit).toBe(0);
  });

  test("an active lesson comes back active", async () => {
    const box = await kb();
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: factLesson("Shallow clones have no tags") })).json();
    await rkb(["archive", added.id, "--reason", "old"], { env: box.env });
    await rkb(["unarchive", added.id], { env: box.env });
    expect((await rkb(["show", added.id, "--format", "json"], { env: box.env })).json().status).toBe("active");
  });
});

describe("lesson counts say what they count", () => {
  test("status and list agree on the lessons in search and show the archived apart", async () => {
    const box = await kb();
    const ids: string[] = [];
    for (const title of ["Shallow clones have no tags", "Rebase keeps a linear history", "Worktrees share one object store"])
      ids.push((await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: factLesson(title) })).json().id);
    await rkb(["archive", ids[0]!, "--reason", "old"], { env: box.env });
    const status = await rkb([], { env: box.env });
    expect(status.stdout).toMatch(/general\s+2 lessons in search \(\+1 archived or superseded\)/);
    const list = await rkb(["list"], { env: box.env });
    expect(list.stdout).toMatch(/general\/\s+2 {2}\(\+1 archived or superseded\)/);
    expect(list.stdout).toMatch(/3 lessons: 2 in search \(active or stale\), 1 archived or superseded/);
    const json = (await rkb(["list", "--format", "json"], { env: box.env })).json();
    expect(json.tree.find((r: any) => r.folder === "general")).toMatchObject({ lessons: 3, in_search: 2 });
    expect((await rkb(["--format", "json"], { env: box.env })).json().lessons.general).toBe(2);
  });
});

describe("rkb init --clone of an empty remote", () => {
  test("makes the knowledge base there: a second machine clones it", async () => {
    const hub = sandbox("rkb-hub");
    const bare = join(hub.dir, "team.git");
    gitIn(hub.dir, hub.env, "init", "-q", "--bare", bare);
    const a = sandbox("rkb-a");
    const r = await rkb(["init", "--clone", bare, "--format", "json"], { env: a.env });
    expect(r.exit).toBe(0);
    expect(r.json().message).toContain("empty");
    expect(existsSync(join(a.kb, "kb.toml"))).toBe(true);
    expect(gitIn(bare, a.env, "log", "--format=%s")).toContain("init: create knowledge base");
    const b = sandbox("rkb-b");
    expect((await rkb(["init", "--clone", bare], { env: b.env })).exit).toBe(0);
    expect((await rkb(["add", "--topic", "git"], { env: b.env, stdin: factLesson("Shallow clones have no tags") })).exit).toBe(0);
    expect((await rkb(["sync"], { env: b.env })).exit).toBe(0);
    expect((await rkb(["sync"], { env: a.env })).exit).toBe(0);
    expect((await rkb(["search", "shallow", "--format", "json"], { env: a.env })).json().results.length).toBe(1);
  });

  test("a remote with files but no kb.toml is still refused", async () => {
    const hub = sandbox("rkb-hub");
    const src = join(hub.dir, "src");
    writeFile(join(src, "README.md"), "# some project\n");
    gitIn(hub.dir, hub.env, "init", "-q", src);
    gitIn(src, hub.env, "add", "-A");
    gitIn(src, hub.env, "commit", "-q", "-m", "x");
    const box = sandbox();
    const r = await rkb(["init", "--clone", src, "--format", "json"], { env: box.env });
    expect(r.json().error.code).toBe("refused");
    expect(existsSync(box.kb)).toBe(false);
  });
});

describe("rkb import of notes", () => {
  test("takes a single Markdown file", async () => {
    const box = await kb();
    const notes = join(box.dir, "notes");
    writeFile(join(notes, "todo.md"), "# Todo\n\nthe staging db resets on sundays; back it up on saturday\n");
    const r = await rkb(["import", join(notes, "todo.md"), "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    expect(r.json().noted.map((n: any) => n.source)).toEqual(["todo.md"]);
  });

  test("a README.md in a notes folder is a note, not a folder note", async () => {
    const box = await kb();
    const notes = join(box.dir, "notes");
    writeFile(join(notes, "README.md"), "# Build tips\n\nccache halves the rebuild time of the C++ tree\n");
    writeFile(join(notes, "other.md"), "# Other\n\nssh to build hosts needs -A\n");
    const r = await rkb(["import", notes, "--dry-run", "--format", "json"], { env: box.env });
    expect(
      r
        .json()
        .noted.map((n: any) => n.source)
        .sort(),
    ).toEqual(["README.md", "other.md"]);
    expect(JSON.stringify(r.json().skipped)).not.toContain("aliases");
  });

  test("a README.md that is a folder note of a knowledge base is still left out", async () => {
    const box = await kb();
    const notes = join(box.dir, "old-kb");
    writeFile(join(notes, "cmake", "README.md"), "---\naliases:\n  - cm\n---\n\n# CMake\n");
    writeFile(join(notes, "cmake", "zlib.md"), factLesson("Zlib needs ZLIB_ROOT"));
    const r = await rkb(["import", notes, "--dry-run", "--format", "json"], { env: box.env });
    expect(r.json().skipped.map((s: any) => s.source)).toEqual(["cmake/README.md"]);
  });
});

// Found in the new-user pass of issue 22.
describe("rkb init with a relative RKB_HOME", () => {
  test("says so and names the absolute folder to set", async () => {
    const box = sandbox();
    const r = await rkb(["init", "--format", "json"], { env: { ...box.env, RKB_HOME: "kb-here" }, cwd: box.dir });
    expect(r.exit).toBe(0);
    expect(r.json().notes[0]).toContain(`RKB_HOME=${join(box.dir, "kb-here")}`);
    expect((await rkb(["init", "--format", "json"], { env: box.env })).json().notes).toEqual([]);
  });
});
