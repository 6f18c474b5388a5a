import { describe, expect, test } from "bun:test";
import { BIN } from "../test/helpers.ts";
import { fileTable, haveWildSessions, scoreTable, scoreWildSessions } from "./wild-sessions.ts";

// Capture on real transcripts people published (../shared/fixtures/wild-sessions, labelled by
// its README's rules), scored through the compiled binary. Prints the numbers; holds what must
// hold on any real file. Only in a checkout next to ../shared.
describe.skipIf(!haveWildSessions())("capture on labelled real sessions", () => {
  test("every file gets a status; the numbers", async () => {
    const score = await scoreWildSessions(BIN);
    console.log(`${scoreTable([{ name: "dist/rkb", score }])}\n\n${fileTable(score)}`);
    for (const f of score.files) expect(f.status).not.toBe("missing");
  }, 120_000);
});
