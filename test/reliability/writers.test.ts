import { expect, test } from "bun:test";
import { concurrentWriters, killedWrites } from "./workloads.ts";

// No write is lost or left half-done: many writers of every kind at once, and writes killed with
// SIGKILL at random points, each followed by a write that must work with no cleanup.

test("32 concurrent writers of every kind (add, note, used, flag) ×3 rounds: 0 lost, git fsck clean, a clean tree", async () => {
  const f = await concurrentWriters(32, 3);
  expect(f.failed).toEqual([]);
  expect(f.found).toEqual(f.expected);
  expect(f.lost).toBe(0);
  expect(f.check.fsckClean).toBe(true);
  expect(f.check.status).toBe("");
  expect(f.check.corrupt).toBe(0);
  expect(f.check.lintErrors).toBe(0);
}, 90_000);

test("200 writes killed with SIGKILL at random points: 0 corrupt lessons, the next write always works, nothing left over", async () => {
  const f = await killedWrites(200, 10);
  expect(f.nextWriteFailures).toEqual([]);
  expect(f.check.corrupt).toBe(0);
  expect(f.check.lintErrors).toBe(0);
  expect(f.check.fsckClean).toBe(true);
  expect(f.check.status).toBe("");
  expect(f.check.journalLeft).toBe(false);
  expect(f.leftovers).toEqual([]);
  // Most kills must land mid-write, or the test proves nothing.
  expect(f.midWrite).toBeGreaterThan(100);
}, 120_000);
