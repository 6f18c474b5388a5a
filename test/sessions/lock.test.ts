import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { capture } from "../../cli/sessions/capture.ts";
import { withSessionLock } from "../../cli/sessions/cursor.ts";
import { rkb, sandbox } from "../helpers.ts";

// Capture must be safe to run twice at once on one session file (a compaction hook and the
// session-end hook, or a hook and a CI run): one lock per session file.

const FIXTURE = join(import.meta.dir, "../fixtures/sessions/pi-cmake-zlib.jsonl");

function inboxCount(env: Record<string, string>): number {
  try {
    return readdirSync(join(env.XDG_STATE_HOME!, "rkb", "inbox")).filter((f) => f.endsWith(".md")).length;
  } catch {
    return 0;
  }
}

describe("the capture lock of a session file", () => {
  test("two hook processes on the same file at once write one inbox item", async () => {
    const { env, dir } = sandbox("rkb-lock");
    const file = join(dir, "s.jsonl");
    copyFileSync(FIXTURE, file);
    const runs = await Promise.all(
      [0, 1, 2, 3].map(() => rkb(["hook", "session-end", "--session-file", file, "--session-id", "s1", "--cwd", dir, "--harness", "pi"], { env })),
    );
    for (const r of runs) expect(r.exit).toBe(0);
    expect(inboxCount(env)).toBe(1);
  });

  test("a capture waits while another process holds the lock, then finds nothing new", async () => {
    const { env, dir } = sandbox("rkb-lock");
    const file = join(dir, "s.jsonl");
    copyFileSync(FIXTURE, file);
    let second: Promise<{ itemsWritten: string[] }> | undefined;
    await withSessionLock(env, file, { staleMs: 60_000, waitMs: 5_000 }, async () => {
      const first = await capture({ sessionFile: file, env, dryRun: true });
      expect(first.itemsWritten).toHaveLength(1); // there is something to write
      second = capture({ sessionFile: file, env });
      await Bun.sleep(300);
      expect(inboxCount(env)).toBe(0); // it waits for the lock
    });
    expect((await second!).itemsWritten).toHaveLength(1);
    expect((await capture({ sessionFile: file, env })).itemsWritten).toEqual([]);
    expect(inboxCount(env)).toBe(1);
  });

  test("a lock left by a process that died is taken over", async () => {
    const { env, dir } = sandbox("rkb-lock");
    const file = join(dir, "s.jsonl");
    copyFileSync(FIXTURE, file);
    // Create the database, then plant a lock row held by a process id that no longer exists.
    await withSessionLock(env, "(setup)", { staleMs: 60_000, waitMs: 1_000 }, async () => {});
    const dead = Bun.spawnSync(["true"]).pid;
    const db = new Database(join(env.XDG_STATE_HOME!, "rkb", "cursors.sqlite"));
    db.query("INSERT INTO capture_lock (file, host, pid, since) VALUES (?, ?, ?, ?)").run(file, hostname(), dead, Date.now());
    db.close();
    const r = await capture({ sessionFile: file, env });
    expect(r.itemsWritten).toHaveLength(1);
  });
});
