import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, gitIn, rkb, sandbox, twin, ZLIB_PITFALL } from "../helpers.ts";
import { branchSubjects, checkoutSnapshot, firstArchive, onBranch, STORIES, teamKb, writeSession } from "./team-sessions.ts";

// `rkb propose` on real git repositories with the compiled binary: a team's archived sessions of
// pi, omp and Claude Code become lesson proposals, one commit each, on a branch that is never the
// one checked out; reruns add only what is new, a declined proposal stays declined, and four
// shards merged propose exactly what one run over the whole archive does.

async function team() {
  const box = sandbox("rkb-propose");
  await teamKb(box, ZLIB_PITFALL);
  const sessions = join(box.dir, "sessions");
  firstArchive(sessions);
  return { box, sessions };
}

/** The sandbox's environment with rkb on PATH, for the knowledge base's pre-commit hook (`rkb lint --staged`). */
const withRkb = (env: Record<string, string>) => ({ ...env, PATH: `${dirname(BIN)}:${env.PATH}` });

const propose = (box: { env: Record<string, string>; dir: string }, ...args: string[]) =>
  rkb(["propose", ...args, "--format", "json"], { env: box.env, cwd: box.dir });

describe("rkb propose", () => {
  test("proposes the recurring fixed failures the knowledge base does not answer, one commit each, and leaves the checkout alone", async () => {
    const { box, sessions } = await team();
    const before = checkoutSnapshot(box.kb, box.env);
    const r = await propose(box, sessions, "--report", join(box.dir, "pr.md"));
    expect(r.exit).toBe(0);
    const data = r.json();
    expect(data.sessions).toBe(6);
    // left-pad: 7 times in 6 sessions of all three harnesses; serde: 3 in 3. Ranked by sessions.
    expect(data.proposals.map((p: any) => [p.title, p.occurrences, p.sessions, p.harnesses])).toEqual([
      ["npm fails: error TS2307: Cannot find module 'left-pad' or its corresponding type declarations.", 7, 6, ["claude-code", "omp", "pi"]],
      ["cargo fails: error[E0432]: unresolved import `serde_json`", 3, 3, ["claude-code", "omp"]],
    ]);
    expect(data.proposals.every((p: any) => p.today.silent)).toBe(true);
    // zlib is answered by the lesson in the knowledge base; pgLock was seen once; kubectl never fixed.
    expect(data.left_out.map((l: any) => [l.reason, l.title])).toEqual([
      ["answered", "cmake fails: Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)"],
    ]);
    expect(data.left_out[0].detail).toContain("rkb injects");
    expect([data.too_few, data.unfixed]).toEqual([1, 1]);

    // Nothing of the checkout moved: HEAD, its branch, the index, the files.
    expect(checkoutSnapshot(box.kb, box.env)).toBe(before);
    const [npm, cargo] = data.proposals;
    expect(branchSubjects(box.kb, box.env)).toEqual([
      `add(general/npm): ${npm.title} [${npm.id}]`,
      `add(general/cargo): ${cargo.title} [${cargo.id}]`,
      "propose: record 2 proposals",
    ]);
    // One lesson per commit, so a reviewer can drop one.
    const files = (c: string) => gitIn(box.kb, box.env, "show", "--name-only", "--format=", c).trim();
    expect(files(npm.commit)).toBe(npm.path);
    expect(files(cargo.commit)).toBe(cargo.path);

    // The lesson: a pitfall with its provenance, the key line as a query, the cause left to the reviewer.
    const lesson = onBranch(box.kb, box.env, npm.path);
    expect(lesson).toContain("seen: 7 times in 6 sessions");
    expect(lesson).toContain("harness: claude-code, omp, pi");
    expect(lesson).toContain("first_seen: 2026-11-02\n    last_seen: 2026-11-07");
    expect(lesson).toContain(
      "Seen 7 times in 6 sessions (claude-code, omp, pi) between 2026-11-02 and 2026-11-07: team-cc-1, team-cc-2, team-omp-1, team-omp-2, team-pi-1 and 1 more.",
    );
    expect(lesson).toContain("```sh\nnpm install left-pad @types/left-pad\n```");
    expect(lesson).toContain("## Cause\nNot in the sessions");
    expect(lesson).toContain("queries:\n  - \"error TS2307: Cannot find module 'left-pad' or its corresponding type declarations.\"");

    // Lint clean on the branch, checked out in a clone of its own.
    const clone = join(box.dir, "review");
    gitIn(box.dir, box.env, "clone", "-q", "-b", "rkb/proposals", box.kb, clone);
    const lint = await rkb(["lint", "--format", "json"], { env: { ...box.env, RKB_HOME: clone } });
    expect(lint.json()).toMatchObject({ errors: 0, warnings: 0 });
    expect(lint.exit).toBe(0);

    const report = readFileSync(join(box.dir, "pr.md"), "utf8");
    expect(report).toContain("2 new lessons proposed on `rkb/proposals` from 6 sessions read");
    expect(report).toContain(`## ${npm.title}`);
    expect(report).toContain("- **Why:** seen 7 times in 6 sessions (claude-code, omp, pi, 2026-11-02 to 2026-11-07); rkb stays silent on this failure today.");
    expect(report).toContain("- **Fix:** `npm install left-pad @types/left-pad`; then `npm run build` worked");
    expect(report).toContain("| answered today by a lesson | 1 |");
    expect(report).toContain("| fixed, but seen in fewer than 2 sessions | 1 |");
    expect(report).toContain("## How to decline a proposal");
  });

  test("a second run proposes nothing and says so; new sessions add only what is new, on the same branch", async () => {
    const { box, sessions } = await team();
    const first = (await propose(box, sessions)).json();
    const again = await rkb(["propose", sessions], { env: box.env, cwd: box.dir });
    expect(again.exit).toBe(0);
    expect(again.stdout).toContain("nothing new to propose on rkb/proposals");
    expect(gitIn(box.kb, box.env, "rev-parse", "rkb/proposals").trim()).toBe(first.tip);

    writeSession(sessions, "pi-3", "pi", 8, [STORIES.protoc, STORIES.leftPad]);
    writeSession(sessions, "cc-3", "claude-code", 9, [STORIES.protoc, STORIES.pgLock]);
    const later = (await propose(box, sessions)).json();
    // pgLock now recurs (2 sessions, first seen earlier, so ranked first); protoc is new (2 sessions); left-pad is on record.
    expect(later.base).toBe(first.tip);
    expect(later.proposals.map((p: any) => [p.path.split("/")[1], p.sessions])).toEqual([
      ["make", 2],
      ["go", 2],
    ]);
    expect(later.left_out.filter((l: any) => l.reason === "on_record")).toHaveLength(2);
    expect(branchSubjects(box.kb, box.env).slice(3)).toEqual([
      `add(general/make): ${later.proposals[0].title} [${later.proposals[0].id}]`,
      `add(general/go): ${later.proposals[1].title} [${later.proposals[1].id}]`,
      "propose: record 2 proposals",
    ]);
  });

  test("a proposal a reviewer deleted stays declined, on the branch and after the branch is merged and deleted", async () => {
    const { box, sessions } = await team();
    const first = (await propose(box, sessions)).json();
    const cargo = first.proposals[1];
    // The reviewer drops the cargo proposal in their clone and pushes the branch back.
    const clone = join(box.dir, "review");
    gitIn(box.dir, box.env, "clone", "-q", "-b", "rkb/proposals", box.kb, clone);
    gitIn(clone, box.env, "rm", "-q", cargo.path);
    gitIn(clone, box.env, "commit", "-q", "-m", "drop the cargo proposal: the team pins serde in the template");
    gitIn(clone, box.env, "push", "-q", "origin", "rkb/proposals");

    const again = (await propose(box, sessions)).json();
    expect(again.proposals).toEqual([]);
    expect(again.declined).toBe(1);
    expect(again.left_out.find((l: any) => l.signature === cargo.signature).reason).toBe("declined");

    // The pull request is squash-merged and the branch deleted: the record came along.
    gitIn(box.kb, box.env, "merge", "-q", "--squash", "rkb/proposals");
    gitIn(box.kb, withRkb(box.env), "commit", "-q", "-m", "Merge the rkb proposals");
    gitIn(box.kb, box.env, "branch", "-q", "-D", "rkb/proposals");
    const merged = (await propose(box, sessions)).json();
    expect(merged.proposals).toEqual([]);
    expect(merged.declined).toBe(1);
    expect(merged.left_out.map((l: any) => l.reason).sort()).toEqual(["answered", "declined", "on_record"]);
    expect(gitIn(box.kb, box.env, "branch", "--list", "rkb/proposals").trim()).toBe("");
  });

  test("a proposal whose commit a reviewer dropped from the branch's history stays declined", async () => {
    const { box, sessions } = await team();
    const first = (await propose(box, sessions)).json();
    const npm = first.proposals[0];
    // `git rebase --onto <npm's parent> <npm's commit>`: the branch without the npm commit.
    const clone = join(box.dir, "review");
    gitIn(box.dir, box.env, "clone", "-q", "-b", "rkb/proposals", box.kb, clone);
    gitIn(clone, box.env, "rebase", "-q", "--onto", `${npm.commit}~1`, npm.commit);
    gitIn(clone, box.env, "push", "-q", "--force", "origin", "rkb/proposals");
    expect(branchSubjects(box.kb, box.env)).toHaveLength(2);
    const again = (await propose(box, sessions)).json();
    expect(again.proposals).toEqual([]);
    expect(again.left_out.find((l: any) => l.signature === npm.signature).reason).toBe("declined");
  });

  test("the branch merged with a merge commit starts again from the checkout; what it held stays on record", async () => {
    const { box, sessions } = await team();
    await propose(box, sessions);
    gitIn(box.kb, withRkb(box.env), "merge", "-q", "--no-ff", "-m", "Merge rkb/proposals", "rkb/proposals");
    writeSession(sessions, "pi-3", "pi", 8, [STORIES.protoc]);
    writeSession(sessions, "cc-3", "claude-code", 9, [STORIES.protoc]);
    const head = gitIn(box.kb, box.env, "rev-parse", "HEAD").trim();
    const later = (await propose(box, sessions)).json();
    expect(later.base).toBe(head);
    expect(later.proposals.map((p: any) => p.path.split("/")[1])).toEqual(["go"]);
    expect(branchSubjects(box.kb, box.env)).toHaveLength(2);
  });

  test("four shards merged propose what one run over the whole archive proposes", async () => {
    const { box, sessions } = await team();
    writeSession(sessions, "pi-3", "pi", 8, [STORIES.protoc, STORIES.leftPad]);
    writeSession(sessions, "cc-3", "claude-code", 9, [STORIES.protoc, STORIES.pgLock]);
    const other = twin(box);
    const whole = (await propose(box, sessions)).json();

    const otherSessions = join(other.dir, "sessions");
    const shards: string[] = [];
    const sizes: number[] = [];
    for (let k = 1; k <= 4; k++) {
      const file = join(other.dir, `shard-${k}.json`);
      const r = await rkb(["propose", otherSessions, "--shard", `${k}/4`, "--candidates", file, "--format", "json"], { env: other.env, cwd: other.dir });
      expect(r.exit).toBe(0);
      sizes.push(r.json().sessions);
      shards.push(file);
    }
    // Every session in exactly one shard, and the split is not all in one.
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(8);
    expect(Math.max(...sizes)).toBeLessThan(8);
    expect(gitIn(other.kb, other.env, "branch", "--list", "rkb/proposals").trim()).toBe("");
    const missing = await rkb(["propose", "--merge", ...shards.slice(1), "--format", "json"], { env: other.env, cwd: other.dir });
    expect(missing.exit).toBe(2);
    expect(missing.json().error.message).toBe("shard 1/4 is missing");
    const merged = (await rkb(["propose", "--merge", ...shards.reverse(), "--format", "json"], { env: other.env, cwd: other.dir })).json();

    const summary = (d: any) => ({ ...d, base: undefined, tip: undefined, proposals: d.proposals.map((p: any) => ({ ...p, commit: undefined })) });
    expect(summary(merged)).toEqual(summary(whole));
    // The same lessons, paths and record: the same tree, commit by commit.
    const trees = (b: { kb: string; env: Record<string, string> }) =>
      gitIn(b.kb, b.env, "log", "--reverse", "--format=%T %s", "HEAD..rkb/proposals").trim().split("\n");
    expect(trees(other)).toEqual(trees(box));
    // left-pad was seen in sessions of several shards: counted together.
    expect(merged.proposals[0]).toMatchObject({ occurrences: 8, sessions: 7 });
  });

  test("refuses the checked-out branch, a bad shard, and runs over nothing with exit 1", async () => {
    const { box, sessions } = await team();
    const branch = gitIn(box.kb, box.env, "symbolic-ref", "--short", "HEAD").trim();
    const same = await propose(box, sessions, "--branch", branch);
    expect(same.exit).toBe(1);
    expect(same.json().error.code).toBe("refused");
    expect(same.json().error.message).toContain(`${branch} is the branch checked out`);
    expect((await propose(box, sessions, "--shard", "5/4", "--candidates", "x.json")).exit).toBe(2);
    expect((await propose(box, sessions, "--shard", "1/4")).json().error.message).toBe("--shard needs --candidates FILE");
    const early = (await propose(box, sessions, "--shard", "1/4", "--candidates", "x.json", "--report", "r.md", "--max", "3")).json();
    expect(early.error.message).toBe("--report and --max go with the --merge step, not with --shard");
    expect((await propose(box)).exit).toBe(2);
    // A checkout in the middle of a rebase is no knowledge base to judge proposals against.
    require("node:fs").mkdirSync(join(box.kb, ".git", "rebase-merge"));
    const rebasing = await propose(box, sessions);
    expect(rebasing.json().error).toMatchObject({
      code: "refused",
      message: "a rebase is in progress in the knowledge base; rkb writes nothing until it is finished",
    });
    rmSync(join(box.kb, ".git", "rebase-merge"), { recursive: true });
    rmSync(sessions, { recursive: true });
    writeSession(join(box.dir, "junk"), "x", "pi", 0, []);
    const junk = join(box.dir, "junk", "events.jsonl");
    require("node:fs").writeFileSync(junk, '{"t":1,"kind":"start"}\n');
    const nothing = await propose(box, junk);
    expect(nothing.exit).toBe(1);
    expect(nothing.json()).toMatchObject({ sessions: 0, not_sessions: 1, proposals: [] });
    const damaged = join(box.dir, "damaged.json");
    require("node:fs").writeFileSync(damaged, '{"format":"rkb-propose-candidates","version":1,"shard":"1/1","files":1}');
    const bad = await propose(box, "--merge", damaged);
    expect(bad.exit).toBe(1);
    expect(bad.json().error).toMatchObject({ code: "bad_format", message: `${damaged} lacks its counts or its candidates` });
  });
});
