import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeLeftTemps } from "../cli/base/fsutil.ts";

// A writer killed between creating its temp file and renaming/linking it leaves the temp behind;
// the next writer removes it, but never the temp of a writer that is still running.

describe("removeLeftTemps", () => {
  test("removes the temps of dead writers of this one file and nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "rkb-temps-"));
    try {
      const dead = 2 ** 22 + 12345; // above Linux's default pid_max: no such process
      const names = [
        `.lesson.md.${dead}.a1b2c3.tmp`, // writeAtomic of a dead writer: removed
        `lesson.md.${dead}.0f0f0f.lock`, // createExclusive of a dead writer: removed
        `.lesson.md.${process.pid}.a1b2c3.tmp`, // a live writer's: kept
        `lesson.md.${process.pid}.0f0f0f.lock`, // a live lock taker's: kept
        `.other.md.${dead}.a1b2c3.tmp`, // another file's: kept
        `.lesson.md.${dead}.notHex.tmp`, // not a temp name: kept
        "lesson.md", // the file itself: kept
      ];
      for (const n of names) writeFileSync(join(dir, n), "x");
      removeLeftTemps(join(dir, "lesson.md"));
      expect(readdirSync(dir).sort()).toEqual(names.slice(2).sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing folder is not an error", () => {
    expect(() => removeLeftTemps(join(tmpdir(), "rkb-no-such-folder", "x.md"))).not.toThrow();
  });
});
