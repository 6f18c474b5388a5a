import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, sandbox } from "../helpers.ts";

const fact = (title: string, statement: string) => `---
type: fact
verified_how: read
---

# ${title}

## Statement
${statement}

## Evidence
Seen in the docs.
`;

/** A bare "team" remote with one clone per machine. */
async function twoMachines() {
  const hub = sandbox("rkb-hub");
  await rkb(["init"], { env: hub.env });
  const bare = join(hub.dir, "team.git");
  gitIn(hub.dir, hub.env, "clone", "-q", "--bare", hub.kb, bare);
  const a = sandbox("rkb-a");
  const b = sandbox("rkb-b");
  for (const m of [a, b]) expect((await rkb(["init", "--clone", bare], { env: m.env })).exit).toBe(0);
  return { a, b, bare };
}

describe("rkb sync", () => {
  test("carries lessons between two machines through an ordinary git remote", async () => {
    const { a, b } = await twoMachines();
    const added = (
      await rkb(["add", "--topic", "git", "--format", "json"], {
        env: a.env,
        stdin: fact("Tags are not fetched by default in shallow clones", "A shallow clone has no tags."),
      })
    ).json();
    const pushed = await rkb(["sync", "--format", "json"], { env: a.env });
    expect(pushed.exit).toBe(0);
    expect(pushed.json().status).toBe("done");
    expect(pushed.json().pushed.length).toBe(1);
    const pulled = await rkb(["sync", "--format", "json"], { env: b.env });
    expect(pulled.exit).toBe(0);
    expect(pulled.json().pulled.map((c: any) => c.subject)).toEqual([`add(general/git): Tags are not fetched by default in shallow clones [${added.id}]`]);
    expect((await rkb(["show", added.id, "--format", "json"], { env: b.env })).exit).toBe(0);
    const again = await rkb(["sync"], { env: b.env });
    expect(again.stdout).toContain("up to date");
  });

  test("a conflict is reported with its files and the commands to resolve it, never resolved silently", async () => {
    const { a, b } = await twoMachines();
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: a.env, stdin: fact("One fact", "First version.") })).json();
    await rkb(["sync"], { env: a.env });
    await rkb(["sync"], { env: b.env });
    for (const [m, text] of [
      [a, "Machine A's version."],
      [b, "Machine B's version."],
    ] as const) {
      const shown = (await rkb(["show", added.id, "--format", "json"], { env: m.env })).json();
      const file = readFileSync(join(m.kb, added.path), "utf8").replace("First version.", text);
      expect((await rkb(["edit", added.id, "--base", shown.hash], { env: m.env, stdin: file })).exit).toBe(0);
    }
    expect((await rkb(["sync"], { env: a.env })).exit).toBe(0);
    const r = await rkb(["sync", "--format", "json"], { env: b.env });
    expect(r.exit).toBe(1);
    const err = r.json().error;
    expect(err.code).toBe("conflict");
    expect(err.files).toEqual([added.path]);
    expect(err.fix).toContain("git rebase --continue");
    expect(err.fix).toContain("git rebase --abort");
    // the conflict is left for the person: the file holds both sides
    expect(readFileSync(join(b.kb, added.path), "utf8")).toContain("<<<<<<<");
    const blocked = await rkb(["sync", "--format", "json"], { env: b.env });
    expect(blocked.json().error.code).toBe("refused");
  });

  test("nothing is pushed while lint finds errors", async () => {
    const { a, bare } = await twoMachines();
    writeFileSync(join(a.kb, "general", "bad.md"), "no frontmatter\n");
    gitIn(a.kb, a.env, "add", "-A");
    gitIn(a.kb, a.env, "commit", "-q", "--no-verify", "-m", "a broken lesson committed by hand");
    const r = await rkb(["sync", "--format", "json"], { env: a.env });
    expect(r.exit).toBe(1);
    expect(r.json().status).toBe("not_pushed");
    expect(r.json().errors).toBeGreaterThan(0);
    expect(gitIn(bare, a.env, "log", "--format=%s")).not.toContain("broken lesson");
  });

  test("refuses uncommitted changes and an unknown remote", async () => {
    const { a } = await twoMachines();
    writeFileSync(join(a.kb, "kb.toml"), readFileSync(join(a.kb, "kb.toml"), "utf8") + "\n");
    const dirty = await rkb(["sync", "--format", "json"], { env: a.env });
    expect(dirty.json().error.code).toBe("refused");
    expect(dirty.json().error.files).toEqual(["kb.toml"]);
    gitIn(a.kb, a.env, "checkout", "kb.toml");
    const unknown = await rkb(["sync", "--remote", "nope", "--format", "json"], { env: a.env });
    expect(unknown.json().error.code).toBe("not_found");
    expect(unknown.json().error.remotes).toEqual(["origin"]);
  });
});

describe("rkb doctor", () => {
  test("reports each check with a fix, and fails without a knowledge base", async () => {
    const box = sandbox();
    const none = await rkb(["doctor", "--format", "json"], { env: box.env });
    expect(none.exit).toBe(1);
    const kb = none.json().checks.find((c: any) => c.check === "knowledge base");
    expect(kb.status).toBe("fail");
    expect(kb.fix).toContain("rkb init");
    await rkb(["init"], { env: box.env });
    const ok = await rkb(["doctor", "--format", "json"], { env: box.env });
    const checks = Object.fromEntries(ok.json().checks.map((c: any) => [c.check, c]));
    expect(checks["knowledge base"].status).toBe("ok");
    expect(checks["pre-commit hook"].status).toBe("ok");
    expect(checks.lint.status).toBe("ok");
    expect(checks["push to this clone"].status).toBe("ok");
    expect(ok.json().failed).toBe(0);
    Bun.spawnSync(["rm", join(box.kb, ".git", "hooks", "pre-commit")]);
    const warned = (await rkb(["doctor", "--format", "json"], { env: box.env })).json();
    const hook = warned.checks.find((c: any) => c.check === "pre-commit hook");
    expect(hook.status).toBe("warn");
    expect(hook.fix).toContain("pre-commit");
  });

  test("fails the git identity check when git has a name but no e-mail, as rkb init does", async () => {
    const box = sandbox();
    await rkb(["init"], { env: box.env });
    const { GIT_AUTHOR_EMAIL, GIT_COMMITTER_EMAIL, ...env } = box.env;
    const r = (await rkb(["doctor", "--format", "json"], { env })).json();
    const identity = r.checks.find((c: any) => c.check === "git identity");
    expect(identity.status).toBe("fail");
    expect(identity.fix).toContain("user.email");
  });
});

test("rkb doctor also checks the pi and omp wiring", async () => {
  const box = sandbox();
  await rkb(["init"], { env: box.env });
  require("node:fs").mkdirSync(join(box.home, ".pi", "agent"), { recursive: true });
  const before = (await rkb(["doctor", "--format", "json"], { env: box.env })).json();
  const ext = before.checks.find((c: any) => c.check === "extension: pi");
  expect(ext.status).toBe("warn");
  expect(ext.fix).toBe("rkb install pi");
  expect((await rkb(["install", "pi"], { env: box.env })).exit).toBe(0);
  const after = (await rkb(["doctor", "--format", "json"], { env: box.env })).json();
  expect(after.checks.find((c: any) => c.check === "extension: pi").status).toBe("ok");
});
