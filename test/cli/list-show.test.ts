import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { kbFromFixture, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

// `rkb list` as a tree with counts and `rkb show` saying why a lesson does or does not apply here,
// on the fixture knowledge base (general/cpp, general/git, projects/imgtool/cmake, systems/orion/slurm).

function fixtureKb(): Sandbox {
  const box = sandbox("rkb-list-show");
  kbFromFixture(box);
  return box;
}

const lessonText = (id: string, title: string, status = "active", extra = "") => `---
schema: 1
id: ${id}
type: fact
status: ${status}
${extra}verified: 2026-01-15
verified_how: checked
tags:
  - ${title.split(" ")[0]!.toLowerCase()}
---

# ${title}

## Statement
${title} holds.

## Evidence
Seen on 2026-01-15.
${status === "archived" ? "\n## Why archived\nNo longer used.\n" : ""}`;

describe("rkb list", () => {
  test("the overview is the folder tree with counts: scopes, then projects and systems, then topics", async () => {
    const box = fixtureKb();
    const data = (await rkb(["list", "--format", "json"], { env: box.env })).json();
    expect(data.lessons).toBe(4);
    expect(data.tree).toEqual([
      { folder: "general", kind: "scope", lessons: 2, in_search: 2 },
      { folder: "general/cpp", kind: "topic", lessons: 1, in_search: 1 },
      { folder: "general/git", kind: "topic", lessons: 1, in_search: 1 },
      { folder: "projects", kind: "scope", lessons: 1, in_search: 1 },
      { folder: "projects/imgtool", kind: "project", lessons: 1, in_search: 1 },
      { folder: "projects/imgtool/cmake", kind: "topic", lessons: 1, in_search: 1 },
      { folder: "systems", kind: "scope", lessons: 1, in_search: 1 },
      { folder: "systems/orion", kind: "system", lessons: 1, in_search: 1 },
      { folder: "systems/orion/slurm", kind: "topic", lessons: 1, in_search: 1 },
    ]);
    expect(data.topics).toContainEqual({ folder: "projects/imgtool/cmake", lessons: 1 });
    const human = (await rkb(["list"], { env: box.env })).stdout.split("\n");
    expect(human[0]).toBe("4 lessons in search (active or stale)");
    expect(human.slice(1, 4).map((l) => l.replace(/ +/g, " ").trimEnd())).toEqual(["general/ 2", " cpp/ 1", " git/ 1"]);
    expect(human).toContainEqual(expect.stringMatching(/^ {2}imgtool\/ +1$/));
    expect(human).toContainEqual(expect.stringMatching(/^ {4}cmake\/ +1$/));
  });

  test("one scope or one project: the tree under it; archived lessons count too", async () => {
    const box = fixtureKb();
    writeFile(join(box.kb, "projects/imgtool/cmake/old.md"), lessonText("3c0ffee0a1", "Cmake old flag", "archived", "when:\n  project: imgtool\n"));
    const scope = (await rkb(["list", "projects", "--format", "json"], { env: box.env })).json();
    expect(scope).toMatchObject({ folder: "projects", lessons: 2 });
    expect(scope.tree.map((r: any) => [r.folder, r.lessons, r.in_search])).toEqual([
      ["projects", 2, 1],
      ["projects/imgtool", 2, 1],
      ["projects/imgtool/cmake", 2, 1],
    ]);
    const human = (await rkb(["list", "projects"], { env: box.env })).stdout.split("\n");
    expect(human[0]).toBe("2 lessons under projects: 1 in search (active or stale), 1 archived or superseded");
    const project = (await rkb(["list", "projects/imgtool/", "--format", "json"], { env: box.env })).json();
    expect(project.tree.map((r: any) => r.folder)).toEqual(["projects/imgtool", "projects/imgtool/cmake"]);
    const empty = await rkb(["list", "systems", "--format", "json"], { env: box.env });
    expect(empty.json().lessons).toBe(1);
  });

  test("one topic: lessons grouped by first tag, archived and superseded last, checked lessons marked", async () => {
    const box = fixtureKb();
    writeFile(join(box.kb, "general/cpp/zz-archived.md"), lessonText("3c0ffee0a2", "Aaa archived cpp fact", "archived"));
    writeFile(join(box.kb, "general/cpp/abi.md"), lessonText("3c0ffee0a3", "Abi breaks between compilers"));
    const data = (await rkb(["list", "general/cpp", "--format", "json"], { env: box.env })).json();
    expect(data.lessons.map((l: any) => l.id)).toEqual(["3c0ffee0a3", "3c0ffee002", "3c0ffee0a2"]);
    const human = (await rkb(["list", "general/cpp"], { env: { ...box.env, LANG: "C.UTF-8" } })).stdout;
    expect(human).toMatch(/\nabi\n {2}=✓ 3c0ffee0a3 {2}Abi breaks between compilers/);
    expect(human).toMatch(/\ncpp\n {2}! {2}3c0ffee002 /);
    expect(human).toMatch(/\narchived and superseded\n {2}=✓ 3c0ffee0a2 .*\(archived\)/);
    // The legend names no command this rkb lacks (`rkb verify` is the Rust rkb's).
    expect(human).toContain("✓ checked (verified_how: checked)");
    expect(human).not.toContain("rkb verify");
    const ascii = (await rkb(["list", "general/cpp"], { env: { ...box.env, LANG: "C", COLUMNS: "40" } })).stdout;
    expect(ascii).toContain("=v 3c0ffee0a3");
    expect(Math.max(...ascii.split("\n").map((l) => l.length))).toBeLessThanOrEqual(40);
  });

  test("a folder that is not there, or not a scope, project, system or topic, is not_found", async () => {
    const box = fixtureKb();
    for (const folder of ["general/nope", "elsewhere", "general/cpp/README.md", "projects/../general"]) {
      const r = await rkb(["list", folder, "--format", "json"], { env: box.env });
      expect(r.exit).toBe(1);
      expect(r.json().error.code).toBe("not_found");
    }
  });
});

describe("rkb show: whether the lesson applies here, and why", () => {
  test("a system lesson: unknown with no system, no on another, yes on its own; --system and --with change the facts", async () => {
    const box = fixtureKb();
    const show = async (...flags: string[]) => (await rkb(["show", "3c0ffee004", "--format", "json", ...flags], { env: box.env })).json().applies;
    expect(await show()).toEqual({
      result: "unknown",
      keys: [{ key: "system", want: "orion", have: null, result: "unknown", reason: expect.stringContaining("--system") }],
    });
    expect((await show("--system", "frontier")).keys[0]).toMatchObject({ key: "system", want: "orion", have: "frontier", result: "no" });
    expect((await show("--system", "frontier")).result).toBe("no");
    expect((await show("--system", "orion")).result).toBe("yes");
    expect((await show("--with", "system=orion")).result).toBe("yes");
  });

  test("the human output says in one line why it does not apply and which flag sets the fact", async () => {
    const box = fixtureKb();
    const line = async (...flags: string[]) => (await rkb(["show", "3c0ffee004", ...flags], { env: box.env })).stdout.split("\n")[1];
    expect(await line("--system", "frontier")).toBe("Does not apply here: when.system wants orion, here system is frontier (--system <name> sets it)");
    expect(await line()).toBe("May not apply here: when.system wants orion, rkb knows no system here (--system <name> sets it)");
    expect(await line("--system", "orion")).toBe("Applies here: when.system wants orion, and here system is orion");
    expect((await rkb(["show", "3c0ffee002"], { env: box.env })).stdout.split("\n")[1]).toBe(
      "Applies anywhere: it sits in general/ and has no `when` conditions.",
    );
  });

  test("the folder is a condition: a lesson in systems/orion/ without `when` applies only on orion", async () => {
    const box = fixtureKb();
    writeFile(join(box.kb, "systems/orion/slurm/bare.md"), lessonText("3c0ffee0a4", "Sbatch needs an account"));
    const shown = (await rkb(["show", "3c0ffee0a4", "--format", "json", "--system", "frontier"], { env: box.env })).json();
    expect(shown.applies).toMatchObject({ result: "no", keys: [{ key: "system", want: "orion", have: "frontier", result: "no" }] });
    const human = (await rkb(["show", "3c0ffee0a4", "--system", "frontier"], { env: box.env })).stdout.split("\n")[1];
    expect(human).toBe("Does not apply here: its folder systems/orion/ wants system orion, here system is frontier (--system <name> sets it)");
  });

  test("a version range: --with gives the version; the data names the last worked and failed", async () => {
    const box = fixtureKb();
    writeFile(join(box.kb, "general/cpp/hdf5.md"), lessonText("3c0ffee0a5", "Hdf5 compat macros are needed", "active", 'when:\n  hdf5: "1.12:1.14"\n'));
    const show = async (...flags: string[]) => (await rkb(["show", "3c0ffee0a5", "--format", "json", ...flags], { env: box.env })).json();
    expect((await show("--with", "hdf5=1.14.3")).applies.result).toBe("yes");
    expect((await show("--with", "hdf5=1.15.0")).applies.keys[0]).toMatchObject({ key: "hdf5", want: "1.12:1.14", have: "1.15.0", result: "no" });
    const data = await show();
    expect(data.applies.keys[0].reason).toContain("--with hdf5=");
    expect(data).toMatchObject({ last_worked: null, last_failed: null });
    expect((await rkb(["used", "3c0ffee0a5", "--worked"], { env: box.env })).exit).toBe(0);
    expect((await show()).last_worked).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe("a lesson whose type, status or date cannot be read", () => {
  test("is skipped by search, show and list, as the Rust rkb skips it; list and review name it; lint names the line and the fix", async () => {
    const box = fixtureKb();
    const text = lessonText("0a1b2c3d4e", "Zebrafish builds need the cmake flag").replace("type: fact", "type: gotcha");
    writeFile(join(box.kb, "general", "git", "zebrafish-builds.md"), text);
    const search = (await rkb(["search", "zebrafish", "--format", "json"], { env: box.env })).json();
    expect(search.results).toEqual([]);
    const list = (await rkb(["list", "--format", "json"], { env: box.env })).json();
    expect(list.lessons).toBe(4);
    // ...but list and review say it is there, and why it is in no search.
    const unreadable = { path: "general/git/zebrafish-builds.md", line: 4, message: expect.stringContaining("`type: gotcha` on line 4 is not allowed") };
    expect(list.unreadable).toEqual([unreadable]);
    expect((await rkb(["list", "general/git"], { env: box.env })).stdout).toContain(
      "1 lesson file here does not parse and is not listed: general/git/zebrafish-builds.md (`rkb lint` says why)",
    );
    const review = await rkb(["review", "--format", "json"], { env: box.env });
    expect(review.json().unreadable).toEqual([unreadable]);
    expect((await rkb(["review", "general/cpp", "--format", "json"], { env: box.env })).json().unreadable).toEqual([]);
    expect((await rkb(["review"], { env: box.env })).stdout).toStartWith("1 lesson file does not parse, so no search finds them");
    const show = await rkb(["show", "0a1b2c3d4e", "--format", "json"], { env: box.env });
    expect(show.exit).toBe(1);
    expect(show.json().error).toMatchObject({ code: "invalid_lesson" });
    expect(show.json().error.message).toContain("general/git/zebrafish-builds.md:4: `type: gotcha` on line 4 is not allowed");
    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    expect(lint.findings).toContainEqual(expect.objectContaining({ path: "general/git/zebrafish-builds.md", line: 4, rule: "format/parse" }));
    // Fixed by hand, it is back.
    writeFile(join(box.kb, "general", "git", "zebrafish-builds.md"), text.replace("type: gotcha", "type: fact"));
    expect((await rkb(["search", "zebrafish", "--format", "json"], { env: box.env })).json().results.map((r: any) => r.id)).toEqual(["0a1b2c3d4e"]);
  });
});
