// Capture on the held-out set of invented sessions (test/fixtures/holdout-sessions, labelled by the
// rules of ../shared/fixtures/wild-sessions/README.md and written before capture was measured on them),
// scored through the compiled binary by the same scorer as the real dev set. Prints the numbers and
// holds the bars issue 20 sets for a held-out set.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fileTable, precision, recall, scoreTable, scoreWildSessions } from "../../compat/wild-sessions.ts";
import { BIN } from "../helpers.ts";

const HOLDOUT = join(import.meta.dir, "../fixtures/holdout-sessions");

describe("capture on the held-out sessions", () => {
  test("every file read as what it is; drafts, corrections at the held-out bars; nothing private on disk; every printed add accepted", async () => {
    const score = await scoreWildSessions(BIN, HOLDOUT);
    console.log(`${scoreTable([{ name: "dist/rkb", score }])}\n\n${fileTable(score)}\n\nrefused adds: ${score.adds.refusals.join("; ") || "none"}`);
    expect(score.files.filter((f) => !f.handled).map((f) => `${f.file}: ${f.status}`)).toEqual([]);
    expect(precision(score.drafts)).toBeGreaterThanOrEqual(0.7);
    expect(recall(score.drafts)).toBeGreaterThanOrEqual(2 / 3);
    expect(precision(score.corrections)).toBeGreaterThanOrEqual(0.6);
    expect(recall(score.corrections)).toBeGreaterThanOrEqual(0.4);
    expect(score.secrets).toEqual({ value: 0, where: [] });
    expect(score.homePaths).toEqual({ count: 0, files: [] });
    expect(score.adds.refusals).toEqual([]);
    expect(score.adds.accepted).toBe(score.adds.printed);
  }, 120_000);
});
