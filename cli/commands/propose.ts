import { resolve } from "node:path";
import { defineCommand, reportFile } from "./_shared.ts";
import { usageError } from "../base/errors.ts";
import { loadKbConfig } from "../lesson/config.ts";
import { requireWritableKb } from "../lesson/layout.ts";
import { cacheDir, kbRoot } from "../machine/settings.ts";
import { counted } from "../output/words.ts";
import { gatherCandidates, mergeCandidateSets, type CandidateSet } from "../proposals/candidates.ts";
import { proposeOnBranch, type ProposeResult } from "../proposals/propose.ts";
import { proposalReport } from "../proposals/report.ts";
import { parseShard, readShardFile, requireAllShards, writeShardFile } from "../proposals/shard-file.ts";
import { decideFailureIn } from "../search/failure.ts";
import { openSearch } from "../search/search.ts";

// `rkb propose`: the team loop. CI reads the team's archived sessions, and the failures worth a
// lesson become lesson files committed on a proposal branch, to be reviewed like code.
export default defineCommand({
  name: "propose",
  description: "Turn archived sessions into lesson proposals, one commit each, on a branch of the knowledge base",
  examples: [
    "rkb propose sessions/ --report proposals.md",
    "rkb propose 'archive/**/*.jsonl' --branch rkb/proposals --max 10",
    "rkb propose sessions/ --shard 2/4 --candidates shard-2.json",
    "rkb propose --merge shard-1.json shard-2.json shard-3.json shard-4.json --report proposals.md",
  ],
  input: (Type) =>
    Type.Object(
      {
        paths: Type.Optional(
          Type.Array(Type.String(), { description: "Session files, folders (every .jsonl below) or globs; with --merge, the shards' candidate files" }),
        ),
        branch: Type.Optional(Type.String({ description: "The proposal branch (default rkb/proposals); never the one checked out" })),
        report: Type.Optional(Type.String({ description: "Also write a Markdown summary, fit for a pull-request body" })),
        shard: Type.Optional(Type.String({ description: "Read only part K of N of the sessions and write its candidates to --candidates" })),
        candidates: Type.Optional(Type.String({ description: "With --shard: the file the shard's candidates go to" })),
        merge: Type.Optional(Type.Boolean({ description: "Propose from the candidate files of every shard (given as paths)" })),
        max: Type.Optional(Type.Integer({ minimum: 1, description: "Most lessons to propose in one run (default 20)" })),
        min_sessions: Type.Optional(Type.Integer({ minimum: 1, description: "Sessions a failure must be seen in (default 2)" })),
      },
      { additionalProperties: false },
    ),
  cli: {
    variadic: "paths",
    flags: { branch: { valueHint: "NAME" }, report: { valueHint: "file.md" }, shard: { valueHint: "K/N" }, candidates: { valueHint: "FILE" } },
  },
  async run(input, { env, cwd, place }) {
    const paths = input.paths ?? [];
    if (!paths.length)
      throw usageError(
        input.merge ? "`rkb propose --merge` needs the shards' candidate files" : "`rkb propose` needs session files",
        input.merge ? "write `rkb propose --merge shard-1.json … shard-N.json`" : "write `rkb propose <file|dir|glob>…`",
      );
    const root = kbRoot(env);
    if (input.shard !== undefined) {
      const shard = parseShard(input.shard);
      if (!shard) throw usageError(`--shard ${input.shard} is not K/N`, "write --shard 2/4 for the second of four parts (1 ≤ K ≤ N)");
      if (input.merge) throw usageError("--shard and --merge cannot be combined", "run each shard with --shard, then one --merge over their files");
      if (!input.candidates) throw usageError("--shard needs --candidates FILE", "name the file the shard's candidates go to, e.g. --candidates shard-2.json");
      const later = (["report", "branch", "max", "min_sessions"] as const).filter((k) => input[k] !== undefined);
      if (later.length)
        throw usageError(
          `${later.map((k) => `--${k.replace("_", "-")}`).join(" and ")} ${later.length === 1 ? "goes" : "go"} with the --merge step, not with --shard`,
          "a shard only reads its sessions; pass these to `rkb propose --merge <the shards' files>`",
        );
      const set = await gatherCandidates({ paths, cwd, env, shard });
      const file = resolve(cwd, input.candidates);
      writeShardFile(file, { ...set, shard });
      const human = `shard ${shard.k}/${shard.n}: read ${counted(set.sessions, "session")}; ${counted(set.candidates.length, "failure signature")} written to ${input.candidates}`;
      return {
        data: { shard: input.shard, files: set.files, sessions: set.sessions, candidates: set.candidates.length, written: file },
        human,
        exit: set.files && !set.sessions ? 1 : 0,
      };
    }
    if (input.candidates) throw usageError("--candidates goes with --shard", "drop --candidates, or add --shard K/N");
    requireWritableKb(root);
    const report = input.report ? reportFile(resolve(cwd, input.report)) : undefined;
    let set: CandidateSet;
    if (input.merge) {
      const shards = paths.map((p) => ({ name: p, set: readShardFile(resolve(cwd, p)) }));
      requireAllShards(shards);
      set = mergeCandidateSets(shards);
    } else set = await gatherCandidates({ paths, cwd, env });
    const { index, place: here, usage } = openSearch(env, cwd, place);
    const result = await proposeOnBranch({
      root,
      env,
      branch: input.branch ?? "rkb/proposals",
      set,
      rule: (failure) => decideFailureIn(index, here, usage, failure),
      minSessions: input.min_sessions ?? 2,
      max: input.max ?? 20,
      minSimilarity: loadKbConfig(root).dupesMinSimilarity,
      cache: cacheDir(env),
    });
    report?.write(proposalReport(result));
    return { data: result, human: humanSummary(result, input.report), exit: set.sessions === 0 ? 1 : 0 };
  },
});

function humanSummary(r: ProposeResult, report?: string): string {
  const out: string[] = [];
  if (r.sessions === 0) out.push(`nothing could be read: ${counted(r.files, "file")} found, no session among them`);
  else out.push(`read ${counted(r.sessions, "session")}`);
  if (!r.proposals.length) out.push(`nothing new to propose on ${r.branch}`);
  else {
    out.push(`proposed ${counted(r.proposals.length, "lesson")} on ${r.branch} (now at ${r.tip.slice(0, 12)}):`);
    for (const p of r.proposals) out.push(`  ${p.id}  ${p.path}  (${counted(p.occurrences, "time")} in ${counted(p.sessions, "session")})`);
    out.push(`push it with \`git push origin ${r.branch}\``);
  }
  const left = r.left_out.length + r.unfixed + r.too_few;
  if (left)
    out.push(
      `left out: ${counted(left, "failure")} (${r.left_out.length} on record, answered or alike, ${r.too_few} in too few sessions, ${r.unfixed} never fixed)`,
    );
  if (r.waiting) out.push(`${counted(r.waiting, "candidate")} more wait for the next run (or --max)`);
  for (const p of r.problems) out.push(`  ${p.path}: ${p.message}`);
  if (report) out.push(`report written to ${report}`);
  return out.join("\n");
}
