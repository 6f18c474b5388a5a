import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BIN, gitIn, rkb, sandbox, ZLIB_PITFALL, type Sandbox } from "../helpers.ts";
import { branchSubjects, checkoutSnapshot, firstArchive, STORIES, teamKb } from "../cli/team-sessions.ts";
import { SessionWriter } from "../sessions/session-writer.ts";
import { maskSecrets } from "../../cli/text/secrets.ts";
import { SECRET_SAMPLES } from "./secret-corpus.ts";

// The QA attacks on `rkb propose` (issue 23) beyond its own fault tests: what it writes on disk
// (only git's objects and refs and rkb's own folders), a proposal branch checked out in another
// worktree, secrets where a session names itself, and archives holding files that are no
// sessions: binary, not UTF-8, huge, links that lead out.

async function team(): Promise<{ box: Sandbox; sessions: string }> {
  const box = sandbox("rkb-propose-attack");
  await teamKb(box, ZLIB_PITFALL);
  const sessions = join(box.dir, "sessions");
  firstArchive(sessions);
  return { box, sessions };
}

/** Every file and link under `dir` with its bytes' hash, except the folders given (relative paths). */
function tree(dir: string, except: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const rel = relative(dir, path);
      if (except.some((e) => rel === e || rel.startsWith(`${e}/`))) continue;
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.set(rel, `-> ${readlinkSync(path)}`);
      else if (st.isDirectory()) walk(path);
      else out.set(rel, `${st.mode} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`);
    }
  };
  walk(dir);
  return out;
}

const changed = (a: Map<string, string>, b: Map<string, string>) => [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

describe("rkb propose: what it writes", () => {
  test("only git's objects, refs and logs of the knowledge base, rkb's cache, and the report: nothing else anywhere", async () => {
    const { box, sessions } = await team();
    const rel = (p: string) => relative(box.dir, p);
    // rkb's own folders, and the parts of .git that a new branch and its commits live in.
    const allowed = [
      rel(join(box.env.XDG_CACHE_HOME!, "rkb")),
      rel(join(box.env.XDG_STATE_HOME!, "rkb")),
      rel(join(box.kb, ".git", "objects")),
      rel(join(box.kb, ".git", "refs", "heads", "rkb")),
      rel(join(box.kb, ".git", "logs", "refs", "heads", "rkb")),
    ];
    const before = tree(box.dir, allowed);
    const r = await rkb(["propose", sessions, "--report", join(box.dir, "out", "pr.md"), "--format", "json"], { env: box.env, cwd: box.dir });
    expect(r.exit).toBe(0);
    expect(r.json().proposals).toHaveLength(2);
    const after = tree(box.dir, allowed);
    expect(changed(before, after)).toEqual(["out/pr.md"]);
  });

  test("a proposal branch checked out in another worktree is refused, and neither that worktree nor the branch moves", async () => {
    const { box, sessions } = await team();
    gitIn(box.kb, box.env, "branch", "rkb/proposals");
    const review = join(box.dir, "review");
    gitIn(box.kb, box.env, "worktree", "add", "-q", review, "rkb/proposals");
    const tip = gitIn(box.kb, box.env, "rev-parse", "rkb/proposals").trim();
    const worktree = checkoutSnapshot(review, box.env);
    const r = await rkb(["propose", sessions, "--format", "json"], { env: box.env, cwd: box.dir });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "refused" });
    expect(r.json().error.message).toContain(review);
    expect(r.json().error.fix).toContain("--branch");
    expect(gitIn(box.kb, box.env, "rev-parse", "rkb/proposals").trim()).toBe(tip);
    expect(checkoutSnapshot(review, box.env)).toBe(worktree);
  });
});

describe("rkb propose: killed at any moment", () => {
  test("SIGKILL at 12 moments of a run: the checkout never changes, the branch is all or nothing, and the next run needs no cleanup", async () => {
    const { box, sessions } = await team();
    const before = checkoutSnapshot(box.kb, box.env);
    const started = performance.now();
    expect((await rkb(["propose", sessions], { env: box.env, cwd: box.dir })).exit).toBe(0);
    const whole = performance.now() - started;
    const complete = branchSubjects(box.kb, box.env);
    expect(complete).toHaveLength(3);
    const outcomes = new Set<string>();
    for (let i = 0; i < 12; i++) {
      // Deleting the branch unmerged forgets its proposals: every run starts from nothing.
      gitIn(box.kb, box.env, "branch", "-D", "rkb/proposals");
      const proc = Bun.spawn([BIN, "propose", sessions], { env: box.env, cwd: box.dir, stdout: "ignore", stderr: "ignore" });
      await Bun.sleep((whole * i) / 11);
      proc.kill("SIGKILL");
      await proc.exited;
      expect(checkoutSnapshot(box.kb, box.env)).toBe(before);
      const subjects = gitIn(box.kb, box.env, "branch", "--list", "rkb/proposals").trim() ? branchSubjects(box.kb, box.env) : [];
      outcomes.add(subjects.length ? "after" : "before");
      expect(subjects.length === 0 || JSON.stringify(subjects) === JSON.stringify(complete)).toBe(true);
      if (!subjects.length) {
        const next = await rkb(["propose", sessions], { env: box.env, cwd: box.dir });
        expect(next.exit).toBe(0);
        expect(branchSubjects(box.kb, box.env)).toEqual(complete);
      }
    }
    expect(outcomes.has("before")).toBe(true);
  }, 120_000);
});

describe("rkb propose: sessions that name themselves with secrets", () => {
  test("a secret as the session's id never reaches a lesson, a commit, the record, the report or the shard file", async () => {
    const { box, sessions } = await team();
    // Secrets that show as secrets on their own (a bare UUID is a secret only after `_authToken=`).
    const samples = SECRET_SAMPLES.filter((s) => !/\s/.test(s.secret) && maskSecrets(s.secret) !== s.secret).slice(0, 12);
    for (const [i, s] of samples.entries()) {
      const flavor = (["pi", "claude-code", "omp"] as const)[i % 3];
      const w = new SessionWriter(flavor, s.secret, "/work/app", Date.parse("2026-11-10T09:00:00Z") + i * 3_600_000);
      w.user("Get the build green, please.");
      w.bash(STORIES.protoc.command, STORIES.protoc.output, STORIES.protoc.exit);
      for (const step of STORIES.protoc.fix) w.bash(step, "done");
      w.bash(STORIES.protoc.command, "ok");
      w.agent("Done.");
      writeFileSync(join(sessions, `secret-id-${i}.jsonl`), w.text());
    }
    const report = join(box.dir, "pr.md");
    const shard = join(box.dir, "shard.json");
    const r = await rkb(["propose", sessions, "--report", report, "--format", "json"], { env: box.env, cwd: box.dir });
    expect(r.exit).toBe(0);
    expect(r.json().proposals.map((p: any) => p.path.split("/")[1])).toContain("go");
    expect((await rkb(["propose", sessions, "--shard", "1/1", "--candidates", shard], { env: box.env, cwd: box.dir })).exit).toBe(0);
    const objects = Bun.spawnSync(["git", "cat-file", "--batch-all-objects", "--batch"], { cwd: box.kb, env: box.env }).stdout.toString();
    const found = [];
    for (const [where, text] of [
      ["git objects", objects],
      ["report", readFileSync(report, "utf8")],
      ["shard file", readFileSync(shard, "utf8")],
      ["stdout", r.stdout],
    ])
      for (const s of samples) if (text.includes(s.secret)) found.push(`${s.name} in ${where}`);
    expect(found).toEqual([]);
  });
});

describe("rkb propose: files that are no sessions", () => {
  test("binary, not UTF-8, a huge line, a link out of the archive and a link loop: each read or left out, the run proposes what the sessions hold", async () => {
    const { box, sessions } = await team();
    const bytes = new Uint8Array(1 << 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    writeFileSync(join(sessions, "binary.jsonl"), bytes);
    // A pi session whose output is Latin-1, with a secret between the bytes UTF-8 cannot read.
    const secret = SECRET_SAMPLES[0]!;
    const w = new SessionWriter("pi", "latin-1", "/work/app");
    w.user("build");
    w.bash("make all", `caf\u00e9 PLACEHOLDER \u00ff\u00fe`, 2);
    w.bash("make all", "ok");
    const latin = Buffer.from(w.text().replace("PLACEHOLDER", secret.line), "latin1");
    writeFileSync(join(sessions, "latin1.jsonl"), latin);
    writeFileSync(join(sessions, "huge.jsonl"), `${JSON.stringify({ type: "session", id: "huge", cwd: "/work/app" })}\n${"x".repeat(40 << 20)}\n`);
    mkdirSync(join(sessions, "links"));
    writeFileSync(join(box.dir, "outside.jsonl"), '{"type":"session","id":"outside"}\n');
    symlinkSync(join(box.dir, "outside.jsonl"), join(sessions, "links", "out.jsonl"));
    symlinkSync("..", join(sessions, "links", "loop"));
    const report = join(box.dir, "pr.md");
    const r = await rkb(["propose", sessions, "--report", report, "--format", "json"], { env: box.env, cwd: box.dir });
    expect(r.exit).toBe(0);
    const data = r.json();
    expect(data.proposals).toHaveLength(2);
    expect(data.not_sessions).toBeGreaterThanOrEqual(1);
    const objects = Bun.spawnSync(["git", "cat-file", "--batch-all-objects", "--batch"], { cwd: box.kb, env: box.env }).stdout.toString();
    for (const text of [objects, readFileSync(report, "utf8"), r.stdout]) expect(text.includes(secret.secret)).toBe(false);
  }, 60_000);

  test("the report names problem paths with ~ for the home folder, never the home folder itself", async () => {
    const { box, sessions } = await team();
    const missing = join(box.home, "archive", "gone.jsonl");
    const report = join(box.dir, "pr.md");
    const r = await rkb(["propose", sessions, missing, "--report", report, "--format", "json"], { env: box.env, cwd: box.dir });
    expect(r.exit).toBe(0);
    const text = readFileSync(report, "utf8");
    expect(text).toContain("~/archive/gone.jsonl");
    expect(text).not.toContain(box.home);
  });
});
