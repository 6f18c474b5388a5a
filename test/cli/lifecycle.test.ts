import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, kbFromFixture, rkb, sandbox } from "../helpers.ts";

const pitfall = (title: string, extra = "") => `---
type: pitfall
verified_how: ran
tags:
  - cmake
${extra}---

# ${title}

## Symptom
\`Could NOT find HDF5 (missing: HDF5_LIBRARIES)\` when configuring.

## Cause
The HDF5 module exports no CMake config file.

## Fix
Pass \`-DHDF5_ROOT\` pointing at the installation prefix.

## Evidence
Configure found HDF5 with the flag.
`;

describe("rkb init", () => {
  test("creates a git repository with kb.toml, the scope folders, a first commit and the pre-commit hook", async () => {
    const box = sandbox();
    const r = await rkb(["init", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    expect(r.json().status).toBe("done");
    expect(existsSync(join(box.kb, "kb.toml"))).toBe(true);
    for (const s of ["general", "projects", "systems"]) expect(existsSync(join(box.kb, s, ".gitkeep"))).toBe(true);
    expect(gitIn(box.kb, box.env, "log", "--format=%s")).toBe("init: create knowledge base\n");
    const hook = join(box.kb, ".git", "hooks", "pre-commit");
    expect(readFileSync(hook, "utf8")).toContain("rkb lint --staged");
    expect(statSync(hook).mode & 0o111).not.toBe(0);
    expect(gitIn(box.kb, box.env, "config", "receive.denyCurrentBranch").trim()).toBe("updateInstead");
  });

  test("refuses a folder that is not empty", async () => {
    const box = sandbox();
    await rkb(["init"], { env: box.env });
    const r = await rkb(["init", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("exists");
  });

  test("refuses an RKB_HOME that is a file, with a clear error", async () => {
    const box = sandbox();
    writeFileSync(box.kb, "not a folder\n");
    const r = await rkb(["init", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "exists", message: `${box.kb} is a file, not a folder` });
  });

  test("--clone fetches an existing knowledge base and refuses a repository without kb.toml", async () => {
    const a = sandbox();
    await rkb(["init"], { env: a.env });
    const b = sandbox();
    const r = await rkb(["init", "--clone", a.kb, "--format", "json"], { env: b.env });
    expect(r.exit).toBe(0);
    expect(existsSync(join(b.kb, "kb.toml"))).toBe(true);
    const plain = sandbox();
    gitIn(plain.dir, plain.env, "init", "-q", "plain");
    gitIn(join(plain.dir, "plain"), plain.env, "commit", "-q", "--allow-empty", "-m", "x");
    const c = sandbox();
    const bad = await rkb(["init", "--clone", join(plain.dir, "plain"), "--format", "json"], { env: c.env });
    expect(bad.exit).toBe(1);
    expect(bad.json().error.code).toBe("refused");
    expect(existsSync(c.kb)).toBe(false);
  });
});

describe("a lesson's life through the compiled binary", () => {
  test("add → show → search → edit → supersede → archive → unarchive, one commit each", async () => {
    const box = sandbox();
    await rkb(["init"], { env: box.env });
    const env = box.env;

    const added = await rkb(["add", "--topic", "cmake", "--format", "json"], { env, stdin: pitfall("CMake cannot find HDF5 without HDF5_ROOT") });
    expect(added.exit).toBe(0);
    const a = added.json();
    expect(a.status).toBe("written");
    expect(a.id).toMatch(/^[0-9a-f]{10}$/);
    expect(a.path).toBe("general/cmake/cmake-cannot-find-hdf5-without-hdf5-root.md");
    expect(a.notes).toContain("new topic folder general/cmake");
    const file = readFileSync(join(box.kb, a.path), "utf8");
    expect(file).toMatch(
      new RegExp(
        `^---\\nschema: 1\\nid: ${a.id}\\ntype: pitfall\\nstatus: active\\nverified: \\d{4}-\\d{2}-\\d{2}\\nverified_how: ran\\ntags:\\n  - cmake\\nmeta:\\n  source:\\n    harness: cli\\n`,
      ),
    );

    const shown = (await rkb(["show", a.id, "--format", "json"], { env })).json();
    expect(shown.title).toBe("CMake cannot find HDF5 without HDF5_ROOT");
    expect(shown.hash).toMatch(/^[0-9a-f]{12}$/);
    expect(shown.applies.result).toBe("yes");

    const found = (await rkb(["search", "could not find hdf5", "--format", "json"], { env })).json();
    expect(found.results[0].id).toBe(a.id);

    const edited = await rkb(["edit", a.id, "--base", shown.hash, "--format", "json"], {
      env,
      stdin: file.replace("Configure found HDF5 with the flag.", "Configure found HDF5 1.14 with the flag."),
    });
    expect(edited.exit).toBe(0);
    expect(readFileSync(join(box.kb, a.path), "utf8")).toContain("HDF5 1.14 with the flag");
    expect(readFileSync(join(box.kb, a.path), "utf8")).toContain("edited_by:");

    const current = readFileSync(join(box.kb, a.path), "utf8");
    const currentHash = (await rkb(["show", a.id, "--format", "json"], { env })).json().hash;
    const same = await rkb(["edit", a.id, "--base", currentHash, "--format", "json"], { env, stdin: current });
    expect(same.exit).toBe(0);
    expect(same.json()).toEqual({ status: "unchanged", message: "the new text is the same as the lesson", id: a.id, path: a.path });

    const stale = await rkb(["edit", a.id, "--base", shown.hash, "--format", "json"], { env, stdin: file });
    expect(stale.exit).toBe(1);
    expect(stale.json().error.code).toBe("conflict");

    const b = (await rkb(["add", "--topic", "cmake", "--format", "json"], { env, stdin: pitfall("Point CMake at HDF5 with HDF5_ROOT") })).json();
    const sup = await rkb(["supersede", a.id, "--by", b.id, "--reason", "merged into the newer lesson", "--format", "json"], { env });
    expect(sup.exit).toBe(0);
    const old = readFileSync(join(box.kb, a.path), "utf8");
    expect(old).toContain("status: superseded\nsuperseded_by: " + b.id);
    expect(old).toContain(
      "## Why superseded\nmerged into the newer lesson\n\nReplaced by [Point CMake at HDF5 with HDF5_ROOT](point-cmake-at-hdf5-with-hdf5-root.md).",
    );

    const arch = await rkb(["archive", b.id, "--reason", "HDF5 now ships a config file", "--format", "json"], { env });
    expect(arch.exit).toBe(0);
    expect(readFileSync(join(box.kb, b.path), "utf8")).toContain("status: archived");
    const hidden = (await rkb(["search", "hdf5_root", "--format", "json"], { env })).json();
    expect(hidden.results.map((r: any) => r.id)).not.toContain(b.id);

    const un = await rkb(["unarchive", b.id, "--format", "json"], { env });
    expect(un.exit).toBe(0);
    const back = readFileSync(join(box.kb, b.path), "utf8");
    expect(back).toContain("status: active");
    expect(back).not.toContain("Why archived");

    const log = gitIn(box.kb, env, "log", "--format=%s").trim().split("\n");
    expect(log).toEqual([
      `unarchive(general/cmake): Point CMake at HDF5 with HDF5_ROOT [${b.id}]`,
      `archive(general/cmake): Point CMake at HDF5 with HDF5_ROOT [${b.id}]`,
      `supersede(general/cmake): CMake cannot find HDF5 without HDF5_ROOT [${a.id}]`,
      `add(general/cmake): Point CMake at HDF5 with HDF5_ROOT [${b.id}]`,
      `edit(general/cmake): CMake cannot find HDF5 without HDF5_ROOT [${a.id}]`,
      `add(general/cmake): CMake cannot find HDF5 without HDF5_ROOT [${a.id}]`,
      "init: create knowledge base",
    ]);
    expect(gitIn(box.kb, env, "log", "-1", "--skip=1", "--format=%b").trim()).toBe("HDF5 now ships a config file");
    expect(gitIn(box.kb, env, "status", "--porcelain")).toBe("");
    const lint = await rkb(["lint", "--format", "json"], { env });
    expect(lint.json().errors).toBe(0);
  });

  test("a lesson built from flags, scoped by --when, lands in its project folder", async () => {
    const box = sandbox();
    await rkb(["init"], { env: box.env });
    const r = await rkb(
      [
        "add",
        "--topic",
        "build",
        "--type",
        "fact",
        "--title",
        "imgtool needs ZLIB_ROOT",
        "--when",
        "project=imgtool",
        "--tag",
        "cmake",
        "--statement",
        "Configure with -DZLIB_ROOT=/opt/zlib.",
        "--evidence",
        "Configure passed.",
        "--format",
        "json",
      ],
      { env: box.env },
    );
    expect(r.exit).toBe(0);
    expect(r.json().path).toBe("projects/imgtool/build/imgtool-needs-zlib-root.md");
    const missing = await rkb(["add", "--topic", "build", "--type", "fact", "--title", "x", "--statement", "s", "--format", "json"], { env: box.env });
    expect(missing.exit).toBe(2);
    expect(missing.json().error.message).toContain("--evidence");
  });

  test("--template prints the skeleton of each type", async () => {
    const box = sandbox();
    const r = await rkb(["add", "--template", "recipe", "--toon"], { env: box.env });
    expect(r.exit).toBe(0);
    expect(r.stdout).toContain("type: recipe\nverified_how: ran\n");
    expect(r.stdout).toContain("## When to use\n\n\n## Steps\n\n\n## Evidence\n");
    expect((await rkb(["add", "--template", "nonsense"], { env: box.env })).exit).toBe(2);
  });

  test("used records use, and --failed also flags the lesson", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const ok = await rkb(["used", "3c0ffee001", "--worked", "--session", "s1", "--format", "json"], { env: box.env });
    expect(ok.exit).toBe(0);
    expect(ok.json()).toMatchObject({ status: "recorded", id: "3c0ffee001", result: "worked", session: "s1" });
    const failed = await rkb(["used", "3c0ffee001", "--failed", "--reason", "autostash lost a file", "--format", "json"], { env: box.env });
    expect(failed.exit).toBe(0);
    expect(failed.json().flag.commit).toMatch(/^[0-9a-f]+$/);
    const text = readFileSync(join(box.kb, "general/git/rebase-needs-a-clean-tree.md"), "utf8");
    expect(text).toContain("status: stale\nstale_reason: autostash lost a file");
    const shown = (await rkb(["show", "3c0ffee001", "--format", "json"], { env: box.env })).json();
    expect(shown.usage).toMatchObject({ worked: 1, failed: 1 });
    // the use records rode along with the flag commit
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
    expect((await rkb(["used", "3c0ffee001", "--failed"], { env: box.env })).exit).toBe(2);
    expect((await rkb(["used", "3c0ffee001"], { env: box.env })).exit).toBe(2);
  });
});

describe("a failed write leaves the knowledge base as it was", () => {
  test("a lesson that fails lint is refused with its findings and nothing is written", async () => {
    const box = sandbox();
    await rkb(["init"], { env: box.env });
    const broken = pitfall("Missing its cause").replace("## Cause\nThe HDF5 module exports no CMake config file.\n\n", "");
    const r = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: broken });
    expect(r.exit).toBe(1);
    const err = r.json().error;
    expect(err.code).toBe("invalid_lesson");
    expect(err.findings.some((f: any) => f.rule === "body/headings")).toBe(true);
    expect(existsSync(join(box.kb, "general", "cmake"))).toBe(false);
    expect(gitIn(box.kb, box.env, "log", "--format=%s").trim()).toBe("init: create knowledge base");
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });

  test("a commit that git refuses is rolled back", async () => {
    const box = sandbox();
    await rkb(["init"], { env: box.env });
    const first = (await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: pitfall("First lesson") })).json();
    const before = readFileSync(join(box.kb, first.path), "utf8");
    // A signing program that always fails makes every commit fail after `git add` (an index.lock
    // no longer does: rkb waits for git's lock, and names a stale one, see test/reliability).
    gitIn(box.kb, box.env, "config", "commit.gpgsign", "true");
    gitIn(box.kb, box.env, "config", "gpg.program", "false");
    const shown = (await rkb(["show", first.id, "--format", "json"], { env: box.env })).json();
    const r = await rkb(["flag", first.id, "--reason", "doubt", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("git");
    expect(readFileSync(join(box.kb, first.path), "utf8")).toBe(before);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
    expect(shown.hash).toBeTruthy();
  });
});
