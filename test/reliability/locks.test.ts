import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { gitIn, rkb, sandbox, type Sandbox, factLesson } from "../helpers.ts";

// Locks recover on their own: an empty lock, one whose holder died, one from another host that
// expired; git's own index.lock left by a killed git is named with the command that removes it.

async function kbBox(lockConfig = ""): Promise<Sandbox & { lock: string }> {
  const box = sandbox();
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  if (lockConfig) {
    writeFileSync(join(box.kb, "kb.toml"), readFileSync(join(box.kb, "kb.toml"), "utf8") + `\n[lock]\n${lockConfig}\n`);
    gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-am", "lock config");
  }
  return { ...box, lock: join(box.kb, ".git", "rkb.lock") };
}

function age(path: string, seconds: number): void {
  const t = Date.now() / 1000 - seconds;
  utimesSync(path, t, t);
}

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const p = Bun.spawnSync(["true"]);
  return p.pid;
}

const add = (box: Sandbox, title: string) => rkb(["add", "--topic", "locks", "--format", "json"], { env: box.env, stdin: factLesson(title) });

describe("the write lock recovers on its own", () => {
  test("an empty lock (a writer killed before it wrote its name) is stale after a short grace", async () => {
    const box = await kbBox();
    writeFileSync(box.lock, "");
    age(box.lock, 5);
    const r = await add(box, "After an empty lock");
    expect(r.exit).toBe(0);
    expect(existsSync(box.lock)).toBe(false);
    // A fresh empty lock is waited for, then taken over once the grace is over.
    writeFileSync(box.lock, "");
    const started = Date.now();
    expect((await add(box, "After a fresh empty lock")).exit).toBe(0);
    expect(Date.now() - started).toBeGreaterThan(1500);
  });

  test("a lock whose local holder is dead is removed at once", async () => {
    const box = await kbBox();
    writeFileSync(box.lock, `${hostname()} ${deadPid()} ${Math.floor(Date.now() / 1000)}\n`);
    const started = Date.now();
    expect((await add(box, "After a dead holder")).exit).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test("a live lock names its holder, host and age; another host's lock older than stale_s is removed", async () => {
    const box = await kbBox("wait_s = 1\nstale_s = 30");
    writeFileSync(box.lock, `build-host-7 4242 ${Math.floor(Date.now() / 1000) - 3}\n`);
    const held = await add(box, "Blocked by another host");
    expect(held.exit).toBe(1);
    const err = held.json().error;
    expect(err.code).toBe("locked");
    expect(err.message).toMatch(/process 4242 on build-host-7 \(held for [3-9] s\)/);
    expect(err.fix).toContain("30 s");
    // The same host name, expired by the time in the lock even when the file itself looks new.
    writeFileSync(box.lock, `build-host-7 4242 ${Math.floor(Date.now() / 1000) - 60}\n`);
    expect((await add(box, "After an expired foreign lock")).exit).toBe(0);
    // And by the file's age when the line holds no time.
    writeFileSync(box.lock, `build-host-7 4242\n`);
    age(box.lock, 60);
    expect((await add(box, "After an old foreign lock")).exit).toBe(0);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });

  test("a lock held by a live local process is respected", async () => {
    const box = await kbBox("wait_s = 1");
    const sleeper = Bun.spawn(["sleep", "30"]);
    try {
      writeFileSync(box.lock, `${hostname()} ${sleeper.pid} ${Math.floor(Date.now() / 1000)}\n`);
      const r = await add(box, "Blocked by a live process");
      expect(r.exit).toBe(1);
      expect(r.json().error.message).toContain(`process ${sleeper.pid} on ${hostname()}`);
    } finally {
      sleeper.kill();
    }
  });
});

/** The lock file of the branch HEAD points to. */
function branchLock(box: Sandbox): string {
  const ref = readFileSync(join(box.kb, ".git", "HEAD"), "utf8")
    .trim()
    .replace(/^ref: /, "");
  return join(box.kb, ".git", `${ref}.lock`);
}

describe("git's index.lock and ref locks", () => {
  for (const [which, lockOf] of [
    ["index.lock", (box: Sandbox) => join(box.kb, ".git", "index.lock")],
    ["branch ref lock (a git commit killed while it moved the branch)", branchLock],
  ] as const) {
    test(`a stale ${which}: the write names it with the command to fix it, doctor fails the check with the fix`, async () => {
      const box = await kbBox();
      const lock = lockOf(box);
      writeFileSync(lock, "");
      age(lock, 60);
      const r = await add(box, "Blocked by git");
      expect(r.exit).toBe(1);
      const err = r.json().error;
      expect(err.code).toBe("locked");
      expect(err.message).toContain(`${lock} is left over from a git process that is gone`);
      expect(err.fix).toContain(`rm ${lock}`);
      const doctor = (await rkb(["doctor", "--format", "json"], { env: box.env })).json();
      const check = (doctor.checks ?? doctor).find((c: any) => c.check === "git locks");
      expect(check.status).toBe("fail");
      expect(check.fix).toBe(`rm ${lock}`);
      Bun.spawnSync(["sh", "-c", check.fix]);
      expect((await add(box, "After the fix")).exit).toBe(0);
    });
  }

  test("a fresh index.lock (git at work) is waited for", async () => {
    const box = await kbBox();
    const indexLock = join(box.kb, ".git", "index.lock");
    writeFileSync(indexLock, "");
    setTimeout(() => Bun.spawnSync(["rm", "-f", indexLock]), 700);
    expect((await add(box, "After git finished")).exit).toBe(0);
  });

  test("HEAD.lock and the branch lock taken by a killed write's git are removed by the next write", async () => {
    for (const which of ["HEAD", "branch"] as const) {
      const box = await kbBox();
      const head = gitIn(box.kb, box.env, "rev-parse", "HEAD").trim();
      // What a write killed with its git inside `git commit` leaves: its journal, then git's lock.
      const journal = join(box.kb, ".git", "rkb-journal.json");
      writeFileSync(journal, JSON.stringify({ head, entries: [], created: [] }));
      age(journal, 30);
      const lock = which === "HEAD" ? join(box.kb, ".git", "HEAD.lock") : branchLock(box);
      writeFileSync(lock, "");
      age(lock, 29);
      const r = await add(box, `After a killed commit (${which})`);
      expect(r.exit).toBe(0);
      expect(existsSync(lock)).toBe(false);
      expect(existsSync(journal)).toBe(false);
    }
  });

  test("`rkb lint --fix` enters the lock as a write does: a killed write's journal and git lock are cleared first", async () => {
    const box = await kbBox();
    const head = gitIn(box.kb, box.env, "rev-parse", "HEAD").trim();
    const journal = join(box.kb, ".git", "rkb-journal.json");
    writeFileSync(journal, JSON.stringify({ head, entries: [], created: [] }));
    age(journal, 30);
    const lock = join(box.kb, ".git", "HEAD.lock");
    writeFileSync(lock, "");
    age(lock, 29);
    const r = await rkb(["lint", "--fix"], { env: box.env });
    expect(r.exit).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(journal)).toBe(false);
  });
});

test("8 `rkb used` at once on a fresh machine make one machine id and one use-record file", async () => {
  const box = await kbBox();
  const added = (await add(box, "A lesson used at once")).json();
  const runs = await Promise.all(Array.from({ length: 8 }, () => rkb(["used", added.id, "--worked"], { env: box.env })));
  for (const r of runs) expect(r.exit).toBe(0);
  const files = readdirSync(join(box.kb, ".rkb", "usage")).filter((n) => n.endsWith(".jsonl"));
  expect(files.length).toBe(1);
  expect(
    readFileSync(join(box.kb, ".rkb", "usage", files[0]!), "utf8")
      .trim()
      .split("\n").length,
  ).toBe(8);
  expect(readFileSync(join(box.home, ".config", "rkb", "machine"), "utf8").trim() + ".jsonl").toBe(files[0]!);
});
