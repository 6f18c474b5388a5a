import { describe, expect, test } from "bun:test";
import { BIN } from "../test/helpers.ts";
import { fileTable, haveWildSessions, precision, recall, scoreTable, scoreWildSessions } from "./wild-sessions.ts";

// Capture on real transcripts people published (../shared/fixtures/wild-sessions, labelled by
// its README's rules), scored through the compiled binary. Prints the numbers and holds the bars
// issue 20 set (checked again on a held-out set nobody here has seen). Only in a checkout next to
// ../shared.
describe.skipIf(!haveWildSessions())("capture on labelled real sessions", () => {
  test("every file read as what it is; drafts, corrections and remember requests at the bars; nothing private on disk", async () => {
    const score = await scoreWildSessions(BIN);
    console.log(`${scoreTable([{ name: "dist/rkb", score }])}\n\n${fileTable(score)}`);
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
