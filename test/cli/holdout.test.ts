// Capture on the held-out sets of invented sessions (test/fixtures/holdout-sessions and
// holdout-sessions-2, labelled by the rules of ../shared/fixtures/wild-sessions/README.md and each
// written before capture was measured on it), scored through the compiled binary by the same scorer
// as the real dev set. Prints the numbers and holds the bars issue 20 sets for a held-out set.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fileTable, precision, recall, scoreTable, scoreWildSessions } from "../../compat/wild-sessions.ts";
import { BIN } from "../helpers.ts";

describe("capture on the held-out sessions", () => {
  test.each(["holdout-sessions", "holdout-sessions-2"])(
    "%s: every file read as what it is; drafts, corrections at the held-out bars; nothing private on disk; every printed add accepted",
    async (folder) => {
      const score = await scoreWildSessions(BIN, join(import.meta.dir, "../fixtures", folder));
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
    },
    120_000,
  );
});
