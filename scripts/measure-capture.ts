// Capture on the labelled real transcripts of ../shared/fixtures/wild-sessions (not a test):
// `bun scripts/measure-capture.ts [--bin path/to/rkb …] [--files] [--dir folder]`. Scores each binary
// (default: a fresh build of this checkout) by the folder's README rules and prints one Markdown table,
// a column per binary, for BENCHMARKS.md; --files adds a table per file; --dir scores another labelled
// folder (test/fixtures/holdout-sessions) instead.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "./build.ts";
import { fileTable, haveWildSessions, scoreTable, scoreWildSessions, WILD } from "../compat/wild-sessions.ts";

const { values } = parseArgs({ options: { bin: { type: "string", multiple: true }, files: { type: "boolean" }, dir: { type: "string" } } });
const dir = values.dir ? resolve(values.dir) : WILD;
if (!values.dir && !haveWildSessions()) {
  console.error(`no labelled sessions at ${WILD}: this needs a checkout next to ../shared`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), "rkb-measure-"));
try {
  let bins = (values.bin ?? []).map((b) => resolve(b));
  if (!bins.length) {
    const bin = join(work, "rkb");
    await build(bin);
    bins = [bin];
  }
  const scores = [];
  for (const [i, bin] of bins.entries()) scores.push({ name: values.bin ? bin : "this checkout", score: await scoreWildSessions(bin, dir), i });
  console.log(scoreTable(scores));
  if (values.files) for (const s of scores) console.log(`\n${s.name}\n\n${fileTable(s.score)}\n\nrefused adds: ${s.score.adds.refusals.join("; ") || "none"}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
