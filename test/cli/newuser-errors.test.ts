// Issue 22, errors that misled a new user: each names the real cause and its fix. The compiled binary
// on real git repositories and a real bare remote.
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, factLesson, gitIn, rkb, sandbox, type Sandbox, withPrograms } from "../helpers.ts";

/** The sandbox's environment without any git identity: no GIT_AUTHOR_*, GIT_COMMITTER_* and no global config. */
function noIdentity(box: Sandbox): Record<string, string> {
  const env = Object.fromEntries(Object.entries(box.env).filter(([k]) => !k.startsWith("GIT_AUTHOR") && !k.startsWith("GIT_COMMITTER")));
  return { ...env, GIT_CONFIG_GLOBAL: join(box.dir, "no-gitconfig"), EMAIL: "" };
}

async function bareTeam(): Promise<string> {
  const hub = sandbox("rkb-hub");
  expect((await rkb(["init"], { env: hub.env })).exit).toBe(0);
  const bare = join(hub.dir, "team.git");
  gitIn(hub.dir, hub.env, "clone", "-q", "--bare", hub.kb, bare);
  return bare;
}

describe("no git identity", () => {
  test("init --clone refuses with the commands that set it, and leaves no folder", async () => {
    const bare = await bareTeam();
    const box = sandbox();
    const r = await rkb(["init", "--clone", bare, "--format", "json"], { env: noIdentity(box) });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("git_identity");
    expect(r.json().error.fix).toContain("git config --global user.email");
    expect(existsSync(box.kb)).toBe(false);
  });

  test("a write says so with the same fix, not git's truncated words", async () => {
    const bare = await bareTeam();
    const box = sandbox();
    expect((await rkb(["init", "--clone", bare], { env: box.env })).exit).toBe(0);
    const r = await rkb(["add", "--topic", "git", "--format", "json"], { env: noIdentity(box), stdin: factLesson("Shallow clones have no tags") });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("git_identity");
    expect(r.json().error.fix).toContain("git config --global user.name");
    expect(r.json().error.message).not.toContain("git status");
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });

  test("doctor checks it before there is a knowledge base", async () => {
    const box = sandbox();
    const r = await rkb(["doctor", "--format", "json"], { env: noIdentity(box) });
    const identity = r.json().checks.find((c: any) => c.check === "git identity");
    expect(identity).toMatchObject({ status: "fail", fix: expect.stringContaining("git config --global user.email") });
  });
});

describe("an unreachable remote", () => {
  // A real git cloning over ssh, with an ssh that fails the way it does for a host that does not resolve.
  const failingSsh = (box: Sandbox) => {
    const env = withPrograms(box, {
      "fake-ssh": "#!/bin/sh\necho 'ssh: Could not resolve hostname nosuchhost.invalid: Name or service not known' >&2\nexit 255\n",
    });
    return { ...env, GIT_SSH_COMMAND: join(box.dir, "bin", "fake-ssh") };
  };

  test("init --clone keeps the lines that say why", async () => {
    const box = sandbox();
    const r = await rkb(["init", "--clone", "git@nosuchhost.invalid:team/kb.git", "--format", "json"], { env: failingSsh(box) });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("git");
    expect(r.json().error.message).toContain("Could not resolve hostname nosuchhost.invalid");
    expect(existsSync(box.kb)).toBe(false);
  });

  test("sync keeps them too", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    gitIn(box.kb, box.env, "remote", "add", "origin", "git@nosuchhost.invalid:team/kb.git");
    const r = await rkb(["sync", "--format", "json"], { env: failingSsh(box) });
    expect(r.exit).toBe(1);
    expect(r.json().error.message).toContain("Could not resolve hostname nosuchhost.invalid");
  });
});

describe("RKB_HOME pointing to a file", () => {
  test.each([["search zlib"], ["list"], ["add --topic git"], ["doctor"]])("rkb %s says it is a file, not a folder", async (command) => {
    const args = command.split(" ");
    const box = sandbox();
    writeFileSync(join(box.dir, "kb-file"), "not a folder\n");
    const env = { ...box.env, RKB_HOME: join(box.dir, "kb-file") };
    const r = await rkb([...args, "--format", "json"], { env, stdin: factLesson("Shallow clones have no tags") });
    expect(r.exit).toBe(1);
    const said = JSON.stringify(r.json());
    expect(said).toContain("is a file, not a folder");
    expect(said).not.toContain("chmod");
    expect(said).not.toContain("permission denied");
  });
});

describe("a knowledge base this user cannot write", () => {
  test("doctor fails it, as every write would", async () => {
    // As root every permission check passes, so the binary runs as `nobody` there, on a knowledge base root owns.
    const asRoot = process.getuid?.() === 0;
    const box = sandbox("rkb-read-only", asRoot ? "/tmp" : undefined);
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const bin = join(box.dir, "rkb");
    cpSync(BIN, bin);
    chmodSync(box.dir, 0o755);
    const state = join(box.dir, "state");
    mkdirSync(state, { mode: 0o777 });
    chmodSync(state, 0o777);
    const env = { ...box.env, XDG_STATE_HOME: state, XDG_CACHE_HOME: join(state, "cache"), XDG_CONFIG_HOME: join(state, "config"), HOME: state };
    if (!asRoot) Bun.spawnSync(["chmod", "-R", "a-w", box.kb]);
    const run = (...args: string[]) => {
      const argv = asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, ...args] : [bin, ...args];
      const p = Bun.spawnSync(argv, { env, cwd: box.dir, stdin: Buffer.from(factLesson("Shallow clones have no tags")) });
      return { exit: p.exitCode, json: JSON.parse(p.stdout.toString()) };
    };
    try {
      const add = run("add", "--topic", "git", "--format", "json");
      expect(add.exit).toBe(1);
      const doctor = run("doctor", "--format", "json");
      expect(doctor.exit).toBe(1);
      const writable = doctor.json.checks.find((c: any) => c.status === "fail" && /write/.test(c.detail));
      expect(writable).toBeDefined();
      expect(writable.detail).toContain(box.kb);
    } finally {
      if (!asRoot) Bun.spawnSync(["chmod", "-R", "u+w", box.kb]);
    }
  });
});

describe("search with the only match in another project's folder", () => {
  test("counts and names what is hidden by place, and says --all", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const lesson = factLesson("Zlib is found only with ZLIB_ROOT on the build hosts")
      .replace("verified_how: read", "verified_how: read\nwhen:\n  project: other")
      .replace("Something that holds.", "zlib sits in /opt/zlib.");
    expect((await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: lesson })).exit).toBe(0);
    const json = (await rkb(["search", "zlib", "--format", "json"], { env: box.env })).json();
    expect(json.results).toEqual([]);
    expect(json.hidden).toBe(1);
    expect(json.hidden_by).toEqual({ "projects/other": 1 });
    expect(json.help.join(" ")).toContain("--all");
    const human = await rkb(["search", "zlib"], { env: box.env });
    expect(human.stdout).toContain("projects/other");
    expect(human.stdout).toContain("--all");
    expect((await rkb(["search", "zlib", "--all", "--format", "json"], { env: box.env })).json().results.length).toBe(1);
  });
});

describe("rkb edit --base with a malformed hash", () => {
  test("says it is not a hash, not that the lesson changed", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: factLesson("Shallow clones have no tags") })).json();
    const r = await rkb(["edit", added.id, "--base", "zzz", "--format", "json"], { env: box.env, stdin: factLesson("Shallow clones have no tags at all") });
    expect(r.exit).toBe(2);
    expect(r.json().error.code).toBe("usage");
    expect(r.json().error.message).toContain("zzz");
    expect(r.json().error.message).not.toContain("changed since");
    expect(r.json().error.fix).toContain(`rkb show ${added.id}`);
  });
});

// Found in the new-user pass of issue 22.
describe("rkb edit with a lesson in add's form", () => {
  test("says the new text has no id and that edit takes the whole file", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const lesson = factLesson("Shallow clones have no tags");
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: lesson })).json();
    const hash = (await rkb(["show", added.id, "--format", "json"], { env: box.env })).json().hash;
    const r = await rkb(["edit", added.id, "--base", hash, "--format", "json"], { env: box.env, stdin: lesson.replace("Something", "Nothing") });
    expect(r.exit).toBe(1);
    expect(r.json().error.message).toContain("has no `id:`");
    expect(r.json().error.fix).toContain(added.path);
  });
});
