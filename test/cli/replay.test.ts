import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { kbFromFixture, rkb, sandbox } from "../helpers.ts";
import { SessionWriter } from "../sessions/session-writer.ts";

// `rkb eval --replay`: the failure rule over every failed bash command in session files — how much
// the knowledge base covers, which lessons it would inject, and what nothing covers, most frequent first.

test("eval --replay over a folder of sessions: coverage, injected lessons, uncovered failures by signature", async () => {
  const box = sandbox("rkb-replay");
  kbFromFixture(box);
  const dir = join(box.dir, "archive", "2026-11");
  mkdirSync(dir, { recursive: true });

  const a = new SessionWriter("pi");
  a.user("Update the branch and deploy.");
  a.bash("git pull --rebase", "error: cannot pull with rebase: You have unstaged changes.\nerror: please commit or stash them.", 1);
  a.bash("git pull --rebase --autostash", "Successfully rebased and updated refs/heads/main.");
  a.bash("terraform apply -auto-approve", 'Error: Invalid provider configuration\n\n  on /home/ci/infra/main.tf line 12:\n  12: provider "aws" {', 1);
  writeFileSync(join(dir, "a.jsonl"), a.text());

  const b = new SessionWriter("omp");
  b.user("Deploy again.");
  b.bash("terraform apply", 'Error: Invalid provider configuration\n\n  on /srv/other/main.tf line 40:\n  40: provider "aws" {', 1);
  b.bash("ls /data/missing", "ls: cannot access '/data/missing': No such file or directory", 2);
  writeFileSync(join(dir, "b.jsonl"), b.text());

  const r = await rkb(["eval", "--replay", join(box.dir, "archive"), "--format", "json"], { env: box.env });
  expect(r.exit).toBe(0);
  const report = r.json();
  expect(report.files).toBe(2);
  expect(report.failures).toBe(4);
  expect(report.covered).toBe(1);
  expect(report.coverage).toBe(0.25);
  expect(report.lessons).toEqual([{ id: "3c0ffee001", title: "git pull --rebase refuses to run with local changes", count: 1 }]);
  // The two terraform failures differ only in paths and line numbers: one signature, counted twice, first.
  expect(report.uncovered.map((u: any) => [u.program, u.count])).toEqual([
    ["terraform", 2],
    ["ls", 1],
  ]);
  expect(report.uncovered[0].example).toBe("Error: Invalid provider configuration");

  const human = await rkb(["eval", "--replay", join(dir, "*.jsonl")], { env: box.env, cwd: box.dir });
  expect(human.exit).toBe(0);
  expect(human.stdout).toContain("4 failed commands in 2 session file(s): 1 would get a lesson (25%)");
  expect(human.stdout).toContain("Not covered (most frequent first):\n     2  terraform: Error: Invalid provider configuration");

  const none = await rkb(["eval", "--replay", join(box.dir, "nothing-here"), "--format", "json"], { env: box.env });
  expect(none.exit).toBe(1);
  expect(none.json().error.code).toBe("not_found");
});

test("eval --replay names a file that is no session and counts only the sessions", async () => {
  const box = sandbox("rkb-replay");
  kbFromFixture(box);
  const dir = join(box.dir, "archive");
  mkdirSync(dir, { recursive: true });
  const a = new SessionWriter("pi");
  a.user("Update the branch.");
  a.bash("git pull --rebase", "error: cannot pull with rebase: You have unstaged changes.\nerror: please commit or stash them.", 1);
  writeFileSync(join(dir, "a.jsonl"), a.text());
  // An export of something else, and a session cut off in its first line.
  writeFileSync(join(dir, "metrics.jsonl"), '{"metric":"cpu","value":0.4}\n{"metric":"mem","value":0.7}\n');
  writeFileSync(join(dir, "empty.jsonl"), "");

  const r = await rkb(["eval", "--replay", dir, "--format", "json"], { env: box.env });
  expect(r.exit).toBe(0);
  const report = r.json();
  expect(report.files).toBe(2);
  expect(report.not_sessions.map((n: any) => n.path)).toEqual([join(dir, "metrics.jsonl")]);
  expect(report.failures).toBe(1);

  const human = await rkb(["eval", "--replay", dir], { env: box.env });
  expect(human.stdout).toContain("1 failed commands in 2 session file(s)");
  expect(human.stdout).toContain(`Not session files (left out):\n  ${join(dir, "metrics.jsonl")}`);
});
