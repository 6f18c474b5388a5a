import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, gitIn, rkb, sandbox, type Sandbox, withPrograms } from "../helpers.ts";

// A failed `rkb init` leaves nothing behind: the folders it made are gone, a folder that was there
// is as it was, and the error says what to fix. Failures are forced with a fake git on PATH.

const realGit = Bun.which("git")!;

/** A `git` that runs the real one, except that the subcommand `failing` exits 1 with a message. */
function fakeGit(box: Sandbox, failing: string): Record<string, string> {
  return withPrograms(box, {
    git: `#!/bin/sh\nfor a in "$@"; do [ "$a" = "${failing}" ] && { echo "fatal: ${failing} broke on purpose" >&2; exit 1; }; done\nexec ${realGit} "$@"\n`,
  });
}

/** Every path under dir (relative), to compare a folder before and after. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe("a failed rkb init leaves nothing behind", () => {
  test.each(["commit", "init", "config"])("git %s fails: the new folder and its new parents are removed", async (failing) => {
    const box = sandbox("rkb-init");
    const home = join(box.dir, "deep", "er", "kb");
    const env = { ...fakeGit(box, failing), RKB_HOME: home };
    const r = await rkb(["init", "--format", "json"], { env });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("git");
    expect(r.json().error.message).toContain(`broke on purpose`);
    expect(r.json().error.message).toContain("nothing was left behind");
    expect(existsSync(join(box.dir, "deep"))).toBe(false);
    // The next init, with a working git, works without any cleanup.
    expect((await rkb(["init"], { env: { ...box.env, RKB_HOME: home } })).exit).toBe(0);
    expect(gitIn(home, box.env, "log", "--format=%s")).toBe("init: create knowledge base\n");
  });

  test("an empty folder that was there stays, empty", async () => {
    const box = sandbox("rkb-init");
    mkdirSync(box.kb);
    const r = await rkb(["init", "--format", "json"], { env: fakeGit(box, "commit") });
    expect(r.exit).toBe(1);
    expect(existsSync(box.kb)).toBe(true);
    expect(readdirSync(box.kb)).toEqual([]);
  });

  test("no git identity: git_identity with the commands that set it, and no folder", async () => {
    const box = sandbox("rkb-init");
    const env = Object.fromEntries(Object.entries(box.env).filter(([k]) => !k.startsWith("GIT_AUTHOR") && !k.startsWith("GIT_COMMITTER")));
    const home = join(box.dir, "new", "kb");
    const r = await rkb(["init", "--format", "json"], { env: { ...env, RKB_HOME: home, GIT_CONFIG_GLOBAL: join(box.dir, "no-gitconfig") } });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("git_identity");
    expect(r.json().error.fix).toContain("git config --global user.email");
    expect(existsSync(join(box.dir, "new"))).toBe(false);
  });

  test("no git on PATH: a git error saying to install it, and no folder", async () => {
    const box = sandbox("rkb-init");
    const empty = join(box.dir, "empty-bin");
    mkdirSync(empty);
    const r = await rkb(["init", "--format", "json"], { env: { ...box.env, PATH: empty } });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "git", fix: expect.stringContaining("install git") });
    expect(existsSync(box.kb)).toBe(false);
  });

  test("a path that cannot be created: an io error naming it, and nothing made", async () => {
    const box = sandbox("rkb-init");
    writeFileSync(join(box.dir, "a-file"), "x\n");
    const home = join(box.dir, "a-file", "kb");
    const r = await rkb(["init", "--format", "json"], { env: { ...box.env, RKB_HOME: home } });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "io", message: expect.stringContaining(home) });
    expect(r.json().error.fix).toContain("RKB_HOME");
    expect(readFileSync(join(box.dir, "a-file"), "utf8")).toBe("x\n");
  });

  test("a parent folder this user may not write: an io error saying permission denied, and nothing made", async () => {
    // As root every permission check passes, so the binary runs as `nobody` there, from a folder it may enter.
    const asRoot = process.getuid?.() === 0;
    const box = sandbox("rkb-init", asRoot ? "/tmp" : undefined);
    const bin = join(box.dir, "rkb");
    cpSync(BIN, bin);
    const readOnly = join(box.dir, "read-only");
    mkdirSync(readOnly);
    chmodSync(box.dir, 0o755);
    chmodSync(readOnly, 0o555);
    const home = join(readOnly, "kb");
    const argv = asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin] : [bin];
    const p = Bun.spawnSync([...argv, "init", "--format", "json"], { env: { ...box.env, RKB_HOME: home }, cwd: box.dir });
    const error = JSON.parse(p.stdout.toString()).error;
    expect(p.exitCode).toBe(1);
    expect(error).toMatchObject({ code: "io", message: expect.stringContaining("permission denied") });
    expect(error.fix).toContain("RKB_HOME");
    expect(readdirSync(readOnly)).toEqual([]);
  });

  test("a non-empty folder that is no knowledge base is refused and left exactly as it was", async () => {
    const box = sandbox("rkb-init");
    mkdirSync(join(box.kb, "notes"), { recursive: true });
    writeFileSync(join(box.kb, "notes", "todo.md"), "# todo\n");
    const before = listing(box.kb);
    const r = await rkb(["init", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "exists", message: expect.stringContaining("no knowledge base") });
    expect(listing(box.kb)).toEqual(before);
    expect((await rkb(["init"], { env: box.env })).stderr).toContain("left it as it was");
  });

  test("a failed clone leaves no folder: unreachable URL, a repository without kb.toml, a setup step failing", async () => {
    const box = sandbox("rkb-init");
    const home = join(box.dir, "clones", "kb");
    const missing = await rkb(["init", "--clone", join(box.dir, "nowhere"), "--format", "json"], { env: { ...box.env, RKB_HOME: home } });
    expect(missing.json().error.code).toBe("git");
    expect(existsSync(join(box.dir, "clones"))).toBe(false);
    const source = sandbox("rkb-init");
    expect((await rkb(["init"], { env: source.env })).exit).toBe(0);
    const setup = await rkb(["init", "--clone", source.kb, "--format", "json"], { env: { ...fakeGit(box, "config"), RKB_HOME: home } });
    expect(setup.json().error.code).toBe("git");
    expect(existsSync(join(box.dir, "clones"))).toBe(false);
    expect((await rkb(["init", "--clone", source.kb], { env: { ...box.env, RKB_HOME: home } })).exit).toBe(0);
    expect(existsSync(join(home, "kb.toml"))).toBe(true);
  });
});
