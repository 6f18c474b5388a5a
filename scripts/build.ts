// Compiles the rkb binary: `bun scripts/build.ts [--target bun-linux-x64] [--outfile dist/rkb]`.
import { $ } from "bun";
import { renameSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";

// Asked in the repository itself, so a build started from another folder still names its commit.
export const commit =
  (
    await $`git rev-parse --short=12 HEAD`
      .cwd(import.meta.dir)
      .quiet()
      .nothrow()
  ).stdout
    .toString()
    .trim() || "unknown";

/**
 * How rkb is compiled. Bytecode and per-command chunks keep start-up close to a bare Bun binary:
 * every rkb call is a fresh process (each agent tool call, each hook), so start-up is most of its
 * cost. The search bench compiles its floor this way too, for a second comparison.
 */
export const compileOptions = { minify: true, bytecode: true, format: "esm", splitting: true } as const;

/**
 * The binary starts with JavaScriptCore's tier-up thresholds scaled by this: a one-shot rkb process
 * never earns back what the optimizing JIT spends compiling its code. Measured on `rkb extract
 * --dry-run` over real transcripts: the DFG compiled 121 functions in 82 ms of a 150 ms run, and
 * scale 16 cut the run's CPU time by 30% there, by 7–35% on 16 MB to 220 MB archives, never slower
 * (higher scales gained no more). The servers (`rkb mcp`, `rkb serve`) go back to the normal
 * policy once serving.
 */
export const JIT_POLICY = 16;

/** Builds to a temporary name and renames, so a concurrent run never sees a half-written binary. */
export async function build(outfile: string, target?: string): Promise<void> {
  // Bun appends ".exe" to a Windows outfile that lacks it, so the temporary name must already end in it.
  const tmp = `${outfile}.${process.pid}.tmp${target?.includes("windows") ? ".exe" : ""}`;
  try {
    const result = await Bun.build({
      entrypoints: [new URL("../cli/main.ts", import.meta.url).pathname],
      compile: { ...(target ? { target: target as any } : {}), outfile: tmp, jitPolicy: JIT_POLICY },
      ...compileOptions,
      define: { RKB_COMMIT: JSON.stringify(commit) },
    });
    if (!result.success) throw new AggregateError(result.logs, `building ${outfile}${target ? ` (${target})` : ""} failed`);
    renameSync(tmp, outfile);
  } finally {
    rmSync(tmp, { force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { target: { type: "string" }, outfile: { type: "string", default: "dist/rkb" } } });
  try {
    await build(values.outfile!, values.target);
  } catch (e) {
    console.error(e instanceof AggregateError ? [e.message, ...e.errors].join("\n") : e instanceof Error ? e.message : e);
    process.exit(1);
  }
  console.log(`built ${values.outfile}${values.target ? ` (${values.target})` : ""} from ${commit}`);
}
