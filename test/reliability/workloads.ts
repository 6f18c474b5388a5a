import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLesson } from "../../cli/lesson/lesson.ts";
import { BIN, gitIn, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

// The write workloads of the reliability tests, shared with scripts/torture.ts (which runs them
// longer and writes the figures to BENCHMARKS.md): many writers of every kind at once, and writes
// killed with SIGKILL at random points. Each returns what it measured; the callers assert.

export const fact = (title: string, n: number) => `---
type: fact
verified_how: read
---

# ${title}

## Statement
Writer ${n} states fact number ${n}.

## Evidence
Process ${n} wrote it.
`;

type Kind = "add" | "note" | "used" | "flag";

/** One write of the given kind; `n` makes it unique, `target` is the lesson used or flagged. */
function writeArgs(kind: Kind, n: number, target: string): { args: string[]; stdin?: string } {
  switch (kind) {
    case "add":
      return { args: ["add", "--topic", `topic-${n % 3}`, "--format", "json"], stdin: fact(`Parallel fact ${n}`, n) };
    case "note":
      return { args: ["note", `note number ${n} from a parallel writer`, "--format", "json"] };
    case "used":
      return { args: ["used", target, "--worked", "--session", `s-${n}`, "--format", "json"] };
    case "flag":
      return { args: ["flag", target, "--reason", `doubt number ${n}`, "--format", "json"] };
  }
}

/** Every lesson file below the knowledge base, with whether it parses. */
export function lessonFiles(kb: string): { path: string; ok: boolean; id?: string }[] {
  const out: { path: string; ok: boolean; id?: string }[] = [];
  const visit = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (
        existsSync(abs) &&
        readdirSync(dir, { withFileTypes: true })
          .find((d) => d.name === name)!
          .isDirectory()
      )
        visit(abs, r);
      else if (name.endsWith(".md") && name !== "README.md") {
        try {
          out.push({ path: r, ok: true, id: parseLesson(readFileSync(abs, "utf8"), r).id });
        } catch {
          out.push({ path: r, ok: false });
        }
      }
    }
  };
  for (const scope of ["general", "projects", "systems"]) if (existsSync(join(kb, scope))) visit(join(kb, scope), scope);
  return out;
}

export interface TreeCheck {
  fsckClean: boolean;
  fsck: string;
  status: string;
  lintErrors: number;
  corrupt: number;
  journalLeft: boolean;
}

/** The state of the knowledge base after a workload: git fsck, the tree, lint, lessons that do not parse. */
export async function checkTree(box: Sandbox): Promise<TreeCheck> {
  const fsck = Bun.spawnSync(["git", "fsck", "--strict", "--no-progress"], { cwd: box.kb, env: box.env });
  const lint = await rkb(["lint", "--format", "json"], { env: box.env });
  return {
    // Dangling objects are not damage: a rolled-back write's staged blob, or a use-record file
    // staged once and appended to before its commit, which git collects later.
    fsckClean: fsck.exitCode === 0 && !/error|missing|broken|corrupt|bad /i.test(fsck.stderr.toString() + fsck.stdout.toString()),
    fsck: (fsck.stderr.toString() + fsck.stdout.toString()).trim(),
    status: gitIn(box.kb, box.env, "status", "--porcelain"),
    lintErrors: JSON.parse(lint.stdout).errors,
    corrupt: lessonFiles(box.kb).filter((l) => !l.ok).length,
    journalLeft: existsSync(join(box.kb, ".git", "rkb-journal.json")),
  };
}

/** Lessons for the use and flag writes to target, written and committed directly (faster than `rkb add`). */
function seedLessons(box: Sandbox, count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `5eed${i.toString(16).padStart(6, "0")}`;
    const body = fact(`Seed fact ${i}`, i).replace("---\ntype: fact\n", `---\nschema: 1\nid: ${id}\ntype: fact\nstatus: active\nverified: 2026-01-01\n`);
    writeFile(join(box.kb, "general", "seed", `seed-fact-${i}.md`), body);
    ids.push(id);
  }
  gitIn(box.kb, box.env, "add", "general/seed");
  gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", "seed lessons");
  return ids;
}

export interface ConcurrentFigures {
  writers: number;
  rounds: number;
  failed: string[];
  lost: number;
  expected: { lessons: number; notes: number; useRecords: number; flagged: number; commits: number };
  found: { lessons: number; notes: number; useRecords: number; flagged: number; commits: number };
  check: TreeCheck;
  ms: number;
}

/**
 * `writers` processes at once per round, a quarter of each kind (lessons via add, inbox notes, use
 * records via used, flags), for `rounds` rounds; then counts what landed. Each flag targets its own
 * lesson, so every one must show.
 */
export async function concurrentWriters(writers: number, rounds: number): Promise<ConcurrentFigures> {
  const box = sandbox("rkb-reliability");
  if ((await rkb(["init"], { env: box.env })).exit !== 0) throw new Error("rkb init failed");
  const per = Math.floor(writers / 4);
  const seeds = seedLessons(box, per * rounds);
  const started = Date.now();
  const failed: string[] = [];
  const kinds: Kind[] = ["add", "note", "used", "flag"];
  for (let round = 0; round < rounds; round++) {
    const runs = await Promise.all(
      Array.from({ length: writers }, (_, i) => {
        const kind = kinds[i % 4]!;
        const n = round * writers + i;
        const target = seeds[round * per + Math.floor(i / 4)]!;
        const { args, stdin } = writeArgs(kind, n, target);
        return rkb(args, { env: box.env, stdin }).then((r) => ({ r, kind }));
      }),
    );
    for (const { r, kind } of runs) if (r.exit !== 0) failed.push(`${kind}: ${(r.stdout + r.stderr).trim().slice(0, 300)}`);
  }
  const ms = Date.now() - started;
  // One more write carries the last use records into a commit, so the tree must end clean.
  const last = await rkb(["add", "--topic", "final", "--format", "json"], { env: box.env, stdin: fact("The final fact", 0) });
  if (last.exit !== 0) failed.push(`final add: ${last.stdout}`);
  const lessons = lessonFiles(box.kb);
  const inbox = join(box.home, ".local/state", "rkb", "inbox");
  const usageDir = join(box.kb, ".rkb", "usage");
  const useRecords = existsSync(usageDir)
    ? readdirSync(usageDir)
        .filter((n) => n.endsWith(".jsonl"))
        .reduce((sum, n) => sum + readFileSync(join(usageDir, n), "utf8").trim().split("\n").filter(Boolean).length, 0)
    : 0;
  const flagged = lessons.filter((l) => l.ok && /status: stale/.test(readFileSync(join(box.kb, l.path), "utf8"))).length;
  const expected = { lessons: per * rounds * 2 + 1, notes: per * rounds, useRecords: per * rounds, flagged: per * rounds, commits: 2 + per * rounds * 2 + 1 };
  const found = {
    lessons: lessons.length,
    notes: existsSync(inbox) ? readdirSync(inbox).filter((n) => n.endsWith(".md")).length : 0,
    useRecords,
    flagged,
    commits: Number(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim()),
  };
  const lost = (Object.keys(expected) as (keyof typeof expected)[]).reduce((sum, k) => sum + Math.max(0, expected[k] - found[k]), 0);
  return { writers, rounds, failed, lost, expected, found, check: await checkTree(box), ms };
}

export interface KillFigures {
  kills: number;
  /** Kills that hit a process still running (the rest had finished before the signal). */
  midWrite: number;
  /** Batches after which a killed write had left its journal (files to undo) for the next write. */
  undone: number;
  /** Batches after which the tree held a killed write's files (staged, untracked or changed) before the next write. */
  dirtyBefore: number;
  /** Batches after which a killed git had left .git/index.lock for the next write to remove. */
  indexLocks: number;
  /** Writes run right after a batch of kills that did not succeed. */
  nextWriteFailures: string[];
  check: TreeCheck;
  leftovers: string[];
  ms: number;
}

/**
 * `kills` writes (add, flag, used, note in turn), `parallel` at a time, each sent SIGKILL after a
 * random delay of up to maxDelayMs (alone, or with its process group in every other batch); after
 * each batch one write must succeed with no cleanup.
 */
/** The median time of one write in a batch of `parallel` writes run at once and left to finish. */
async function typicalBatchWriteMs(box: Sandbox, seeds: string[], parallel: number, kinds: Kind[]): Promise<number> {
  const times = await Promise.all(
    Array.from({ length: parallel }, async (_, i) => {
      const { args, stdin } = writeArgs(kinds[i % kinds.length]!, 100_000 + i, seeds[i % seeds.length]!);
      const t = performance.now();
      const proc = Bun.spawn([BIN, ...args], {
        env: box.env,
        cwd: box.home,
        stdin: stdin !== undefined ? new Blob([stdin]) : "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      await proc.exited;
      return performance.now() - t;
    }),
  );
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

export async function killedWrites(kills: number, parallel: number, seed = 1): Promise<KillFigures> {
  const box = sandbox("rkb-kill");
  if ((await rkb(["init"], { env: box.env })).exit !== 0) throw new Error("rkb init failed");
  const seeds = seedLessons(box, 4);
  // The first use record makes .rkb/.gitignore, which covers the temporary files of lock files.
  await rkb(["used", seeds[0]!, "--worked"], { env: box.env });
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const kinds: Kind[] = ["add", "flag", "used", "note"];
  // Kill points spread over how long a batch of writes takes on this machine now, so most kills
  // land mid-write on a fast idle machine and on a loaded one alike (a fixed delay did not). The
  // spread follows the load as it changes: shorter when few kills land mid-write, longer when all
  // do (so some land late, in the commit).
  let maxDelayMs = await typicalBatchWriteMs(box, seeds, parallel, kinds);
  const started = Date.now();
  let midWrite = 0;
  let undone = 0;
  let indexLocks = 0;
  let dirtyBefore = 0;
  const nextWriteFailures: string[] = [];
  for (let done = 0; done < kills; done += parallel) {
    const batch = Array.from({ length: Math.min(parallel, kills - done) }, (_, i) => {
      const n = done + i;
      const { args, stdin } = writeArgs(kinds[n % 4]!, n, seeds[n % seeds.length]!);
      // Every other batch kills the whole process group, git children included (as an agent's
      // extension does with a binary past its time budget); `setsid` makes rkb its group's leader.
      const group = (done / parallel) % 2 === 1;
      const argv = group ? ["setsid", BIN, ...args] : [BIN, ...args];
      const proc = Bun.spawn(argv, {
        env: box.env,
        cwd: box.home,
        stdin: stdin !== undefined ? new Blob([stdin]) : "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      const delay = rnd() * maxDelayMs;
      return Bun.sleep(delay).then(async () => {
        if (proc.exitCode === null) {
          midWrite++;
          if (group) {
            try {
              process.kill(-proc.pid, "SIGKILL");
            } catch {}
          } else proc.kill("SIGKILL");
        }
        await proc.exited;
      });
    });
    const midBefore = midWrite;
    await Promise.all(batch);
    const share = (midWrite - midBefore) / batch.length;
    if (share < 0.7) maxDelayMs *= 0.8;
    else if (share > 0.9) maxDelayMs *= 1.2;
    if (existsSync(join(box.kb, ".git", "rkb-journal.json"))) undone++;
    if (existsSync(join(box.kb, ".git", "index.lock"))) indexLocks++;
    if (gitIn(box.kb, box.env, "status", "--porcelain", "--", "general").trim()) dirtyBefore++;
    const next = await rkb(["add", "--topic", "after-kill", "--format", "json"], { env: box.env, stdin: fact(`Written after kill batch ${done}`, done) });
    if (next.exit !== 0) nextWriteFailures.push((next.stdout + next.stderr).trim().slice(0, 300));
  }
  const ms = Date.now() - started;
  // Orphaned git children of killed writes finish on their own; the last write waits for them.
  const last = await rkb(["flag", seeds[1]!, "--reason", "the last write", "--format", "json"], { env: box.env });
  if (last.exit !== 0) nextWriteFailures.push(`last: ${(last.stdout + last.stderr).trim().slice(0, 300)}`);
  const leftovers = Bun.spawnSync(["find", box.kb, "-name", "*.tmp", "-not", "-path", "*/.git/objects/*"]).stdout.toString().split("\n").filter(Boolean);
  return { kills, midWrite, undone, dirtyBefore, indexLocks, nextWriteFailures, check: await checkTree(box), leftovers, ms };
}
