// Capture on the held-out sets of invented sessions (test/fixtures/holdout-sessions,
// holdout-sessions-2, -3 and -4, labelled by the rules of ../shared/fixtures/wild-sessions/README.md and each
// written before capture was measured on it), scored through the compiled binary by the same scorer
// as the real dev set. Prints the numbers and holds the bars issue 20 sets for a held-out set.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fileTable, missedBars, scoreTable, scoreWildSessions } from "../../compat/wild-sessions.ts";
import { BIN } from "../helpers.ts";

describe("capture on the held-out sessions", () => {
  test.each(["holdout-sessions", "holdout-sessions-2", "holdout-sessions-3", "holdout-sessions-4"])(
    "%s: every file read as what it is; drafts, corrections at the held-out bars; nothing private on disk; every printed add accepted",
    async (folder) => {
      const score = await scoreWildSessions(BIN, join(import.meta.dir, "../fixtures", folder));
      console.log(`${scoreTable([{ name: "dist/rkb", score }])}\n\n${fileTable(score)}\n\nrefused adds: ${score.adds.refusals.join("; ") || "none"}`);
      expect(missedBars(score)).toEqual([]);
    },
    120_000,
  );
});
