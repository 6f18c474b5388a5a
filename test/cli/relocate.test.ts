import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { factLesson, gitIn, kbFromFixture, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

// `rkb move` and `rkb rename` on the compiled binary over a real git knowledge base (the fixture kb):
// one commit each, the images folder carried along, every relative link to the lesson (and its
// images) rewritten in lessons and folder notes, and the lesson's own links rewritten for its new place.

const VTABLE = "general/cpp/missing-vtable.md";
const REBASE = "general/git/rebase-needs-a-clean-tree.md";
// Not UTF-8: the image must arrive byte for byte.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x01]);

/** The fixture kb, with an image on the vtable lesson and links to it (and from it) in lessons and notes. */
function linkedKb(): Sandbox {
  const box = sandbox("rkb-relocate");
  kbFromFixture(box);
  const append = (rel: string, text: string) => writeFileSync(join(box.kb, rel), readFileSync(join(box.kb, rel), "utf8") + text);
  writeFile(join(box.kb, "general/cpp/missing-vtable.assets/vtable.png"), "");
  writeFileSync(join(box.kb, "general/cpp/missing-vtable.assets/vtable.png"), PNG);
  append(
    VTABLE,
    "\n![The linker error](missing-vtable.assets/vtable.png)\nAfter a rebase, see [rebase](../git/rebase-needs-a-clean-tree.md#fix). More in [the topic](README.md).\n",
  );
  append(REBASE, "\nSee also [the vtable lesson](../cpp/missing-vtable.md#cause) and ![its image](<../cpp/missing-vtable.assets/vtable.png?raw=1>).\n");
  append("general/cpp/README.md", "\n- [Missing vtable](missing-vtable.md)\n- [unrelated](https://example.com/missing-vtable.md)\n");
  append("projects/imgtool/README.md", "\nA C++ lesson: [vtable](../../general/cpp/missing-vtable.md).\n");
  gitIn(box.kb, box.env, "add", "-A");
  gitIn(box.kb, box.env, "commit", "-q", "-m", "links and an image");
  return box;
}

const read = (box: Sandbox, rel: string) => readFileSync(join(box.kb, rel), "utf8");
const head = (box: Sandbox) => gitIn(box.kb, box.env, "rev-parse", "HEAD").trim();
const status = (box: Sandbox) => gitIn(box.kb, box.env, "status", "--porcelain", "--untracked-files=all");
const lastCommit = (box: Sandbox) => gitIn(box.kb, box.env, "show", "--name-status", "--format=%s", "HEAD").trim().split("\n");
const json = (box: Sandbox, args: string[], env = box.env) => rkb([...args, "--format", "json"], { env });

async function lintsClean(box: Sandbox): Promise<void> {
  const lint = await json(box, ["lint"]);
  expect(lint.json().errors).toBe(0);
  expect(lint.exit).toBe(0);
}

describe("rkb move", () => {
  test("moves the lesson and its images in one commit; links to it and its own links still point where they did", async () => {
    const box = linkedKb();
    const before = head(box);
    const rebaseBefore = read(box, REBASE);
    const r = await json(box, ["move", "3c0ffee002", "git"]);
    expect(r.exit).toBe(0);
    const d = r.json();
    expect(d).toMatchObject({ status: "written", action: "move", id: "3c0ffee002", path: "general/git/missing-vtable.md" });
    expect(d.notes).toContain(`moved from ${VTABLE}`);
    expect(d.notes.join("\n")).toContain("moved 1 image");
    // Exactly one commit, with the subject rkb log and rkb changes read, and only the paths it changed.
    expect(gitIn(box.kb, box.env, "rev-list", "--count", `${before}..HEAD`).trim()).toBe("1");
    const [subject, ...files] = lastCommit(box);
    expect(subject).toBe("move(general/git): undefined reference to vtable means a virtual function has no definition [3c0ffee002]");
    expect(
      files
        .filter(Boolean)
        .map((f) => f.replace(/^R\d+/, "R").split("\t").join(" "))
        .sort(),
    ).toEqual(
      [
        "M general/cpp/README.md",
        `M ${REBASE}`,
        "M projects/imgtool/README.md",
        "R general/cpp/missing-vtable.assets/vtable.png general/git/missing-vtable.assets/vtable.png",
        `R ${VTABLE} general/git/missing-vtable.md`,
      ].sort(),
    );
    expect(existsSync(join(box.kb, VTABLE))).toBe(false);
    expect(existsSync(join(box.kb, "general/cpp/missing-vtable.assets"))).toBe(false);
    expect(readFileSync(join(box.kb, "general/git/missing-vtable.assets/vtable.png")).equals(PNG)).toBe(true);
    // Links from elsewhere: anchors, queries and <…> kept; a URL that merely ends the same is not a link to rewrite.
    expect(read(box, REBASE)).toBe(
      rebaseBefore
        .replace("](../cpp/missing-vtable.md#cause)", "](missing-vtable.md#cause)")
        .replace("(<../cpp/missing-vtable.assets/vtable.png?raw=1>)", "(<missing-vtable.assets/vtable.png?raw=1>)"),
    );
    expect(read(box, "general/cpp/README.md")).toContain(
      "- [Missing vtable](../git/missing-vtable.md)\n- [unrelated](https://example.com/missing-vtable.md)\n",
    );
    expect(read(box, "projects/imgtool/README.md")).toContain("[vtable](../../general/git/missing-vtable.md)");
    // The lesson's own links, for its new folder; a link that still points to the same file stays as written.
    const moved = read(box, "general/git/missing-vtable.md");
    expect(moved).toContain("![The linker error](missing-vtable.assets/vtable.png)");
    expect(moved).toContain("see [rebase](../git/rebase-needs-a-clean-tree.md#fix). More in [the topic](../cpp/README.md).");
    expect(status(box)).toBe("");
    await lintsClean(box);
    // The history follows the file, and the change log reads the subject.
    const log = (await json(box, ["log", "3c0ffee002"])).json();
    expect(log.commits[0].subject).toStartWith("move(general/git):");
    // Back again, through the topic's alias: every file is as before the first move, but for the
    // lesson's own link to its topic note, which still points to the same file, so it stays as rewritten.
    expect((await json(box, ["move", "3c0ffee002", "c++"])).json().path).toBe(VTABLE);
    expect(read(box, REBASE)).toBe(rebaseBefore);
    expect(gitIn(box.kb, box.env, "diff", "--name-only", before, "HEAD").trim()).toBe(VTABLE);
    expect(read(box, VTABLE)).toContain("More in [the topic](../cpp/README.md).");
  });

  test("a full topic folder of another scope; a new topic folder is created and named in a note", async () => {
    const box = linkedKb();
    const r = (await json(box, ["move", "3c0ffee001", "general/vcs"])).json();
    expect(r.path).toBe("general/vcs/rebase-needs-a-clean-tree.md");
    expect(r.notes).toContain("new topic folder general/vcs");
    // The vtable lesson's link to it follows.
    expect(read(box, VTABLE)).toContain("see [rebase](../vcs/rebase-needs-a-clean-tree.md#fix).");
    // Its own links to the vtable lesson and image, from the new folder.
    expect(read(box, r.path)).toContain("](../cpp/missing-vtable.md#cause)");
    expect(readdirSync(join(box.kb, "general")).sort()).toEqual(["cpp", "vcs"]);
    await lintsClean(box);
  });

  test("hints speak of the topic argument move takes (it has no --topic flag); a near-miss topic names the move that fixes it", async () => {
    const box = sandbox("rkb-relocate");
    kbFromFixture(box);
    const bad = (await json(box, ["move", "3c0ffee001", "Bad_Name"])).json().error;
    expect(bad.fix).toContain("e.g. build-tools or general/build-tools");
    expect(bad.fix).not.toContain("--topic");
    const near = (await json(box, ["move", "3c0ffee002", "gti"])).json();
    expect(near.notes).toContain("the topic is close to general/git; if it is the same topic, `rkb move <id> general/git` puts the lesson there");
    expect((await json(box, ["move", "3c0ffee002", "general/git"])).json().path).toBe("general/git/missing-vtable.md");
  });

  test("refusals write nothing: target exists, scope broken, escape, symlinked folder, unknown id; same folder is unchanged", async () => {
    const box = linkedKb();
    expect((await rkb(["add", "--topic", "linker", "--format", "json"], { env: box.env, stdin: factLesson("Missing vtable") })).exit).toBe(0);
    const outside = join(box.dir, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(box.kb, "general", "evil"));
    const start = head(box);
    const unchangedTree = async () => {
      expect(head(box)).toBe(start);
      expect(status(box)).toBe("?? general/evil\n");
      expect(readdirSync(outside)).toEqual([]);
    };

    const exists = await json(box, ["move", "3c0ffee002", "linker"]);
    expect(exists.exit).toBe(1);
    expect(exists.json().error.code).toBe("refused");
    expect(exists.json().error.message).toContain("general/linker/missing-vtable.md already exists");
    await unchangedTree();

    // A project lesson in general/ breaks lint's scope rule.
    const scope = await json(box, ["move", "3c0ffee003", "general/cmake"]);
    expect(scope.exit).toBe(1);
    expect(scope.json().error.code).toBe("invalid_lesson");
    expect(scope.json().error.findings.map((f: { rule: string }) => f.rule)).toContain("layout/scope");
    expect(existsSync(join(box.kb, "general/cmake"))).toBe(false);
    await unchangedTree();

    // A new topic folder named like another topic's alias (cpp's `cxx`) breaks lint's alias rule.
    const alias = await json(box, ["move", "3c0ffee001", "general/cxx"]);
    expect(alias.exit).toBe(1);
    expect(alias.json().error.findings.map((f: { path: string; rule: string }) => [f.path, f.rule])).toEqual([["general/cxx", "layout/alias"]]);
    expect(existsSync(join(box.kb, "general/cxx"))).toBe(false);
    await unchangedTree();

    for (const away of ["../../x", "general/../../x", "/tmp/x", "general/a/b"]) {
      const r = await json(box, ["move", "3c0ffee001", away]);
      expect(r.exit).toBe(2);
      expect(r.json().error.code).toBe("usage");
    }
    const link = await json(box, ["move", "3c0ffee001", "evil"]);
    expect(link.exit).toBe(1);
    expect(link.json().error.message).toContain("symbolic link");
    await unchangedTree();

    const unknown = await json(box, ["move", "ffffffffff", "git"]);
    expect(unknown.exit).toBe(1);
    expect(unknown.json().error.code).toBe("not_found");

    const same = await json(box, ["move", "3c0ffee001", "general/git"]);
    expect(same.exit).toBe(0);
    expect(same.json()).toMatchObject({ status: "unchanged", id: "3c0ffee001", path: REBASE });
    await unchangedTree();
  });

  test("a lesson that links to the moved one and already had an error does not stop the move; its error stays its own", async () => {
    const box = linkedKb();
    writeFileSync(join(box.kb, REBASE), read(box, REBASE) + "A [dead link](gone.md).\n");
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-am", "a dead link");
    const r = await json(box, ["move", "3c0ffee002", "git"]);
    expect(r.exit).toBe(0);
    expect(read(box, REBASE)).toContain("](missing-vtable.md#cause)");
    const lint = (await json(box, ["lint"])).json();
    expect(lint.findings.filter((f: { severity: string }) => f.severity === "error").map((f: { path: string; rule: string }) => [f.path, f.rule])).toEqual([
      [REBASE, "links/broken"],
    ]);
  });

  test("an agent's move past the burst limit asks first and writes nothing", async () => {
    const box = linkedKb();
    writeFileSync(join(box.kb, "kb.toml"), read(box, "kb.toml") + "\n[writes]\nburst = 2\n");
    gitIn(box.kb, box.env, "commit", "-q", "-am", "burst 2");
    const start = head(box);
    const r = await json(box, ["move", "3c0ffee002", "git"], { ...box.env, RKB_HARNESS: "pi", RKB_SESSION: "s-1" });
    expect(r.exit).toBe(3);
    expect(r.json()).toMatchObject({ status: "needs_user", options: ["continue", "cancel"] });
    expect(head(box)).toBe(start);
    expect(status(box)).toBe("");
  });
});

describe("rkb rename", () => {
  test("a new title: the title line changes, the file name and images folder follow, links are rewritten", async () => {
    const box = linkedKb();
    const old = read(box, VTABLE);
    const r = await json(box, ["rename", "3c0ffee002", "A", "missing", "vtable", "means", "an", "undefined", "virtual"]);
    expect(r.exit).toBe(0);
    expect(r.json()).toMatchObject({ status: "written", action: "rename", path: "general/cpp/a-missing-vtable-means-an-undefined-virtual.md" });
    const [subject] = lastCommit(box);
    expect(subject).toBe("rename(general/cpp): A missing vtable means an undefined virtual [3c0ffee002]");
    const now = read(box, "general/cpp/a-missing-vtable-means-an-undefined-virtual.md");
    // Byte for byte but for the title line and the link to its own (renamed) images folder.
    expect(now).toBe(
      old
        .replace("# undefined reference to vtable means a virtual function has no definition\n", "# A missing vtable means an undefined virtual\n")
        .replace("(missing-vtable.assets/vtable.png)", "(a-missing-vtable-means-an-undefined-virtual.assets/vtable.png)"),
    );
    expect(readFileSync(join(box.kb, "general/cpp/a-missing-vtable-means-an-undefined-virtual.assets/vtable.png")).equals(PNG)).toBe(true);
    expect(read(box, REBASE)).toContain("](../cpp/a-missing-vtable-means-an-undefined-virtual.md#cause)");
    expect(read(box, "general/cpp/README.md")).toContain("(a-missing-vtable-means-an-undefined-virtual.md)");
    expect((await json(box, ["show", "3c0ffee002"])).json().title).toBe("A missing vtable means an undefined virtual");
    expect(status(box)).toBe("");
    await lintsClean(box);
  });

  test("a title that gives the same file name changes only the title line", async () => {
    const box = linkedKb();
    const path = "general/git/git-pull-rebase-needs-a-clean-tree.md";
    expect((await json(box, ["rename", "3c0ffee001", "Git pull rebase needs a clean tree"])).json().path).toBe(path);
    const r = (await json(box, ["rename", "3c0ffee001", "git pull --rebase needs a clean tree"])).json();
    expect(r).toMatchObject({ status: "written", path });
    expect(r.notes).toContain("the file name stays: the new title gives the same one");
    expect(lastCommit(box).filter(Boolean)).toEqual(["rename(general/git): git pull --rebase needs a clean tree [3c0ffee001]", `M\t${path}`]);
  });

  test("--slug renames only the file (the Rust rkb's rename); the same name is unchanged; bad input is refused", async () => {
    const box = linkedKb();
    const old = read(box, REBASE);
    const r = await json(box, ["rename", "3c0ffee001", "--slug", "rebase-needs-clean-tree"]);
    expect(r.exit).toBe(0);
    expect(read(box, "general/git/rebase-needs-clean-tree.md")).toBe(old);
    expect(lastCommit(box)[0]).toBe("rename(general/git): git pull --rebase refuses to run with local changes [3c0ffee001]");
    expect(read(box, VTABLE)).toContain("(../git/rebase-needs-clean-tree.md#fix)");
    await lintsClean(box);
    const start = head(box);
    const same = await json(box, ["rename", "3c0ffee001", "--slug", "rebase-needs-clean-tree"]);
    expect(same.exit).toBe(0);
    expect(same.json().status).toBe("unchanged");
    // The Rust rkb's `rename <id> <slug>`: a file name is not taken for a title.
    const rustStyle = await json(box, ["rename", "3c0ffee001", "rebase-clean-tree"]);
    expect(rustStyle.exit).toBe(2);
    expect(rustStyle.json().error.fix).toContain("rkb rename 3c0ffee001 --slug rebase-clean-tree");
    for (const args of [["--slug", "Not_A_Slug"], ["--slug", "a--b"], [], ["A title", "--slug", "a-slug"]]) {
      const bad = await json(box, ["rename", "3c0ffee001", ...args]);
      expect(bad.exit).toBe(2);
    }
    // Each of the two mistakes is named as what it is.
    expect((await json(box, ["rename", "3c0ffee001"])).json().error.message).toBe("`rkb rename` needs a new title or --slug");
    expect((await json(box, ["rename", "3c0ffee001", "A title", "--slug", "a-slug"])).json().error.message).toBe(
      "`rkb rename` takes a new title or --slug, not both",
    );
    const taken = await json(box, ["rename", "3c0ffee001", "--slug", "..", "--format", "json"]);
    expect(taken.exit).toBe(2);
    expect((await json(box, ["move", "3c0ffee002", "git"])).exit).toBe(0);
    const clash = await json(box, ["rename", "3c0ffee001", "--slug", "missing-vtable"]);
    expect(clash.exit).toBe(1);
    expect(clash.json().error.message).toContain("general/git/missing-vtable.md already exists");
    expect(gitIn(box.kb, box.env, "rev-list", "--count", `${start}..HEAD`).trim()).toBe("1");
    expect(status(box)).toBe("");
  });
});
