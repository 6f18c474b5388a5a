// Issue 22, trust: what a new user found reaching a remote or a lesson that should not. Each test
// drives the compiled binary on real git repositories and a real bare remote.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, factLesson, gitIn, rkb, sandbox, type Sandbox, writeFile } from "../helpers.ts";

/** A knowledge base cloned from a bare "team" remote. */
async function teamClone(): Promise<{ box: Sandbox; bare: string }> {
  const hub = sandbox("rkb-hub");
  expect((await rkb(["init"], { env: hub.env })).exit).toBe(0);
  const bare = join(hub.dir, "team.git");
  gitIn(hub.dir, hub.env, "clone", "-q", "--bare", hub.kb, bare);
  const box = sandbox("rkb-team");
  expect((await rkb(["init", "--clone", bare], { env: box.env })).exit).toBe(0);
  return { box, bare };
}

// Made up, shaped like a GitHub token: what a person commits by hand and then removes.
const TOKEN = "ghp_Zq7RmV2xKc9LbT4nWs8YdF3hJp6GaE1uQo5N";

describe("rkb sync scans every commit it pushes for secrets", () => {
  test("a token committed and removed again before the push is refused, naming the commit; nothing is pushed", async () => {
    const { box, bare } = await teamClone();
    const before = gitIn(bare, box.env, "rev-parse", "HEAD").trim();
    writeFile(
      join(box.kb, "general", "ci", "setup.md"),
      factLesson("CI runners fetch with a deploy token").replace("Something that holds.", `Use ${TOKEN} to fetch.`),
    );
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", "ci notes");
    const leaking = gitIn(box.kb, box.env, "rev-parse", "--short", "HEAD").trim();
    rmSync(join(box.kb, "general", "ci"), { recursive: true });
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", "drop the ci notes");
    const r = await rkb(["sync", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    const error = r.json().error;
    expect(error.code).toBe("refused");
    expect(error.message).toContain(leaking);
    expect(error.message).toContain("general/ci/setup.md");
    expect(error.secrets[0]).toMatchObject({ commit: leaking, path: "general/ci/setup.md", kind: "github-token" });
    expect(error.fix).toMatch(/git -C \S+ rebase -i /);
    expect(r.stdout).not.toContain(TOKEN);
    // The remote is where it was: neither commit went out.
    expect(gitIn(bare, box.env, "rev-parse", "HEAD").trim()).toBe(before);
    const human = await rkb(["sync"], { env: box.env });
    expect(human.stderr).toContain(leaking);
    expect(human.stderr + human.stdout).not.toContain(TOKEN);
  });

  test("with no upstream yet, the whole history is scanned, commit messages too", async () => {
    const box = sandbox("rkb-first-push");
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    writeFile(join(box.kb, "general", "notes.txt"), "nothing secret\n");
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", `notes; the bot logs in with ${TOKEN}`);
    const bare = join(box.dir, "empty.git");
    gitIn(box.dir, box.env, "init", "-q", "--bare", bare);
    gitIn(box.kb, box.env, "remote", "add", "origin", bare);
    const r = await rkb(["sync", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error.secrets[0]).toMatchObject({ path: "the commit message", kind: "github-token" });
    expect(gitIn(bare, box.env, "for-each-ref").trim()).toBe("");
  });

  test("history without secrets pushes as before", async () => {
    const { box, bare } = await teamClone();
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: factLesson("Shallow clones have no tags") })).exit).toBe(0);
    const r = await rkb(["sync", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    expect(r.json().pushed.length).toBe(1);
    expect(gitIn(bare, box.env, "log", "-1", "--format=%s")).toContain("Shallow clones have no tags");
  });
});

const CONFLICTED = `---
type: fact
verified_how: read
---

# Zlib lives under opt on the build hosts

## Statement
<<<<<<< HEAD
Zlib is in /opt/zlib.
=======
Zlib is in /usr/local/zlib.
>>>>>>> other-machine

## Evidence
Read in the build host's README.
`;

describe("conflict markers", () => {
  test("are a lint error with their line, refused by add and by the pre-commit hook", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const added = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: CONFLICTED });
    expect(added.exit).toBe(1);
    expect(added.json().error.findings.map((f: any) => f.rule)).toContain("format/conflict");
    const rel = "general/cmake/zlib.md";
    writeFile(
      join(box.kb, rel),
      CONFLICTED.replace("verified_how: read", "schema: 1\nid: 0a1b2c3d4e\nstatus: active\nverified: 2026-01-02\nverified_how: read"),
    );
    const lint = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(lint.exit).toBe(1);
    const conflict = lint.json().findings.find((f: any) => f.rule === "format/conflict");
    expect(conflict).toMatchObject({ path: rel, line: 13, severity: "error" });
    // The hook runs `rkb lint --staged`; rkb is on PATH as it would be for a user.
    const env = { ...box.env, PATH: `${dirname(BIN)}:${box.env.PATH}` };
    gitIn(box.kb, env, "add", "-A");
    const commit = Bun.spawnSync(["git", "commit", "-q", "-m", "resolved"], { cwd: box.kb, env });
    expect(commit.exitCode).not.toBe(0);
    expect(commit.stderr.toString() + commit.stdout.toString()).toContain("format/conflict");
  });

  test("a lesson that quotes markers, indented in a code block, is no conflict", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const example = factLesson("A merge leaves conflict markers in the file").replace(
      "Something that holds.",
      "git writes both sides between markers:\n\n```text\n  <<<<<<< HEAD\n  ours\n  =======\n  theirs\n  >>>>>>> topic\n```",
    );
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: example })).exit).toBe(0);
  });
});

describe("while a rebase is in progress in the knowledge base", () => {
  /** A knowledge base whose `git rebase` stopped on a conflict in one lesson. */
  async function midRebase(): Promise<Sandbox> {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const rel = "general/git/tags.md";
    writeFile(
      join(box.kb, rel),
      "---\nschema: 1\nid: 1a2b3c4d5e\ntype: fact\nstatus: active\nverified: 2026-01-02\nverified_how: read\n---\n\n# Tags\n\n## Statement\nFirst.\n\n## Evidence\nRead.\n",
    );
    gitIn(box.kb, box.env, "add", "-A");
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", "tags");
    const main = gitIn(box.kb, box.env, "symbolic-ref", "--short", "HEAD").trim();
    gitIn(box.kb, box.env, "checkout", "-q", "-b", "other");
    writeFileSync(join(box.kb, rel), readFileSync(join(box.kb, rel), "utf8").replace("First.", "Other side."));
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-am", "other side");
    gitIn(box.kb, box.env, "checkout", "-q", main);
    writeFileSync(join(box.kb, rel), readFileSync(join(box.kb, rel), "utf8").replace("First.", "This side."));
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-am", "this side");
    const rebase = Bun.spawnSync(["git", "rebase", "other"], { cwd: box.kb, env: box.env });
    expect(rebase.exitCode).not.toBe(0);
    expect(existsSync(join(box.kb, ".git", "rebase-merge")) || existsSync(join(box.kb, ".git", "rebase-apply"))).toBe(true);
    return box;
  }

  test("writes refuse with the commands that finish it, and leave the rebase alone", async () => {
    const box = await midRebase();
    const head = gitIn(box.kb, box.env, "rev-parse", "HEAD").trim();
    const r = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: factLesson("CMake caches the compiler path") });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("refused");
    expect(r.json().error.message).toContain("rebase");
    expect(r.json().error.fix).toContain("git rebase --continue");
    expect(r.json().error.fix).toContain("git rebase --abort");
    expect(gitIn(box.kb, box.env, "rev-parse", "HEAD").trim()).toBe(head);
    const note = await rkb(["flag", "1a2b3c4d5e", "--reason", "outdated", "--format", "json"], { env: box.env });
    expect(note.json().error.code).toBe("refused");
  });

  test("doctor says a rebase is in progress, not just that files are uncommitted", async () => {
    const box = await midRebase();
    const r = await rkb(["doctor", "--format", "json"], { env: box.env });
    const checks = r.json().checks as any[];
    const rebase = checks.find((c) => /rebase|merge/.test(c.detail) && c.status !== "ok");
    expect(rebase).toBeDefined();
    expect(rebase.fix).toContain("git rebase --continue");
    expect(checks.find((c) => c.check === "uncommitted changes")).toBeUndefined();
  });
});
