import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, sandbox, withPrograms, ZLIB_PITFALL, type Sandbox } from "../helpers.ts";
import { branchSubjects, checkoutSnapshot, firstArchive, onBranch, STORIES, teamKb, writeSession, type Story } from "../cli/team-sessions.ts";
import { SECRET_SAMPLES } from "./secret-corpus.ts";

// `rkb propose` under faults: killed at each step of writing the branch, the branch moved by
// someone else while it writes, and sessions that are broken, no sessions, or full of secrets and
// home paths. The checkout is never touched, the next run works without cleanup, no reviewer's
// commit is lost, and nothing rkb writes holds a secret or a home path.

const realGit = Bun.which("git")!;

async function team(): Promise<{ box: Sandbox; sessions: string }> {
  const box = sandbox("rkb-propose-fault");
  await teamKb(box, ZLIB_PITFALL);
  const sessions = join(box.dir, "sessions");
  firstArchive(sessions);
  return { box, sessions };
}

/** A `git` that kills the rkb that called it (SIGKILL) at the nth call of one subcommand, before or after running it. */
function killingGit(box: Sandbox, sub: string, nth: number, when: "before" | "after"): Record<string, string> {
  const counter = join(box.dir, `count-${sub}`);
  const run = when === "after" ? `${realGit} "$@"; ` : "";
  return withPrograms(box, {
    git: `#!/bin/sh
if [ "$1" = "${sub}" ]; then
  n=$(( $(cat "${counter}" 2>/dev/null || echo 0) + 1 )); echo $n > "${counter}"
  if [ "$n" = "${nth}" ]; then ${run}kill -9 $PPID; exit 1; fi
fi
exec ${realGit} "$@"
`,
  });
}

const tempIndexes = (box: Sandbox) => {
  const dir = join(box.env.XDG_CACHE_HOME!, "rkb", "propose");
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe("rkb propose under faults", () => {
  const points: [string, number, "before" | "after"][] = [
    ["read-tree", 1, "before"],
    ["hash-object", 1, "after"],
    ["update-index", 2, "before"],
    ["write-tree", 2, "after"],
    ["commit-tree", 3, "after"],
    ["diff", 1, "before"],
    ["update-ref", 1, "before"],
    ["update-ref", 1, "after"],
  ];
  test.each(points)("killed at git %s #%d (%s): the checkout is untouched, the branch all or nothing, the next run works", async (sub, nth, when) => {
    const { box, sessions } = await team();
    const before = checkoutSnapshot(box.kb, box.env);
    const killed = await rkb(["propose", sessions], { env: killingGit(box, sub, nth, when), cwd: box.dir });
    expect(killed.exit).not.toBe(0);
    expect(checkoutSnapshot(box.kb, box.env)).toBe(before);
    const moved = sub === "update-ref" && when === "after";
    expect(gitIn(box.kb, box.env, "branch", "--list", "rkb/proposals").trim()).toBe(moved ? "rkb/proposals" : "");
    // The killed run's temporary index stays behind (none before read-tree made it); nothing reads it.
    if (!moved) expect(tempIndexes(box)).toHaveLength(sub === "read-tree" ? 0 : 1);

    const next = await rkb(["propose", sessions, "--format", "json"], { env: box.env, cwd: box.dir });
    expect(next.exit).toBe(0);
    expect(next.json().proposals).toHaveLength(moved ? 0 : 2);
    expect(branchSubjects(box.kb, box.env)).toHaveLength(3);
    expect(checkoutSnapshot(box.kb, box.env)).toBe(before);
    expect(tempIndexes(box)).toEqual([]);
  });

  test("the branch moves while rkb writes: it starts over on the new tip and keeps the reviewer's edit", async () => {
    const { box, sessions } = await team();
    const first = (await rkb(["propose", sessions, "--format", "json"], { env: box.env, cwd: box.dir })).json();
    const cargo = first.proposals[1];
    const clone = join(box.dir, "review");
    gitIn(box.dir, box.env, "clone", "-q", "-b", "rkb/proposals", box.kb, clone);
    writeSession(sessions, "pi-3", "pi", 8, [STORIES.protoc]);
    writeSession(sessions, "cc-3", "claude-code", 9, [STORIES.protoc]);

    // Right before rkb moves the branch, a reviewer pushes an edit of the cargo proposal.
    const moves = join(box.dir, "moves");
    const pushingGit = (times: number) => {
      writeFileSync(moves, String(times));
      const review = [
        `${realGit} fetch -q origin`,
        `${realGit} reset -q --hard origin/rkb/proposals`,
        `printf '\\nThe reviewer checked this on %s.\\n' "$n" >> ${cargo.path}`,
        `${realGit} commit -q -am "review $n"`,
        `${realGit} push -q origin rkb/proposals`,
      ].join(" && ");
      return withPrograms(box, {
        git: `#!/bin/sh
if [ "$1" = "update-ref" ] && [ "$(cat ${moves})" -gt 0 ]; then
  n=$(cat ${moves}); echo $((n - 1)) > ${moves}
  (cd ${clone} && unset GIT_INDEX_FILE && ${review}) >/dev/null 2>&1
fi
exec ${realGit} "$@"
`,
      });
    };
    const later = await rkb(["propose", sessions, "--format", "json"], { env: pushingGit(1), cwd: box.dir });
    expect(later.exit).toBe(0);
    expect(later.json().proposals.map((p: any) => p.path.split("/")[1])).toEqual(["go"]);
    expect(branchSubjects(box.kb, box.env).slice(3)).toEqual([
      "review 1",
      `add(general/go): ${later.json().proposals[0].title} [${later.json().proposals[0].id}]`,
      "propose: record 1 proposal",
    ]);
    expect(onBranch(box.kb, box.env, cargo.path)).toContain("The reviewer checked this on 1.");

    // A branch that moves every time: refused after three tries, with the reviewer's commits all there.
    writeSession(sessions, "omp-3", "omp", 10, [STORIES.unfixed, STORIES.pgLock]);
    const refused = await rkb(["propose", sessions, "--format", "json"], { env: pushingGit(10), cwd: box.dir });
    expect(refused.exit).toBe(1);
    expect(refused.json().error.code).toBe("conflict");
    expect(refused.json().error.message).toContain("rkb/proposals moved while rkb wrote its proposals");
    expect(refused.json().error.fix).toBe("run the command again: it builds on the branch as it is then");
    expect(branchSubjects(box.kb, box.env).slice(-3)).toEqual(["review 10", "review 9", "review 8"]);
    expect(onBranch(box.kb, box.env, cargo.path)).toContain("The reviewer checked this on 8.");
  });

  test("broken lines, event logs and huge lines are read as extract reads them; secrets and home paths never reach the branch or the report", async () => {
    const { box, sessions } = await team();
    // Eight failures, each carrying a group of the secret shapes in its output, its command and its fix.
    const groups: Story[] = [];
    for (let g = 0; g * 10 < SECRET_SAMPLES.length; g++) {
      const samples = SECRET_SAMPLES.slice(g * 10, g * 10 + 10);
      groups.push({
        command: `./deploy-${g}.sh --stage ${g} # ${samples[0]!.line}`,
        output: samples.map((s) => `error: deploy step ${g} rejected: ${s.line}`).join("\n"),
        exit: 1,
        fix: samples.map((s) => s.line),
      });
    }
    const home: Story = {
      command: "go build ./...",
      output: "# app\n/home/alice/src/app/main.go:3:2: undefined: helperFromAlice",
      exit: 1,
      fix: ["sed -i 's/helperFromAlice/helper/' /home/alice/src/app/main.go"],
    };
    for (const n of [1, 2]) writeSession(sessions, `leaky-${n}`, n === 1 ? "pi" : "claude-code", 10 + n, [...groups, home]);
    const broken = readFileSync(join(sessions, "pi-1.jsonl"), "utf8").split("\n");
    writeFileSync(
      join(sessions, "broken.jsonl"),
      [broken[0], "{not json", ...broken.slice(1, -3), "x".repeat(300_000), broken.at(-2)!.slice(0, 20)].join("\n"),
    );
    writeFileSync(join(sessions, "events.jsonl"), '{"t":"2026-11-29T19:09:11Z","kind":"factory"}\n');

    const r = await rkb(["propose", sessions, "--format", "json", "--max", "50", "--report", join(box.dir, "pr.md")], { env: box.env, cwd: box.dir });
    expect(r.exit).toBe(0);
    const data = r.json();
    expect(data).toMatchObject({ sessions: 9, not_sessions: 1 });
    expect(data.skipped_lines).toBeGreaterThanOrEqual(3);
    expect(data.proposals.length).toBeGreaterThan(2);
    const shard = join(box.dir, "shard.json");
    expect((await rkb(["propose", sessions, "--shard", "1/1", "--candidates", shard], { env: box.env, cwd: box.dir })).exit).toBe(0);

    // Every object in the repository (unreferenced ones too), the report, the shard file, rkb's cache.
    const objects = Bun.spawnSync([realGit, "cat-file", "--batch-all-objects", "--batch"], { cwd: box.kb, env: box.env }).stdout.toString();
    const written = [objects, readFileSync(join(box.dir, "pr.md"), "utf8"), readFileSync(shard, "utf8"), r.stdout];
    for (const text of written)
      for (const s of SECRET_SAMPLES) expect({ sample: s.name, found: text.includes(s.secret) }).toEqual({ sample: s.name, found: false });
    for (const text of [objects, readFileSync(join(box.dir, "pr.md"), "utf8")]) expect(text).not.toContain("/home/alice");
    const lint = await rkb(["lint", "--format", "json"], { env: { ...box.env, RKB_HOME: cloneOf(box) } });
    expect(lint.json().errors).toBe(0);
  });
});

function cloneOf(box: Sandbox): string {
  const dir = join(box.dir, "branch-clone");
  gitIn(box.dir, box.env, "clone", "-q", "-b", "rkb/proposals", box.kb, dir);
  return dir;
}
