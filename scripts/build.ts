// Compiles the rkb binary: `bun scripts/build.ts [--target bun-linux-x64] [--outfile dist/rkb]`.
import { $ } from "bun";
import { renameSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";

const commit = (await $`git rev-parse --short=12 HEAD`.quiet().nothrow()).stdout.toString().trim() || "unknown";

/** Builds to a temporary name and renames, so a concurrent run never sees a half-written binary. */
export async function build(outfile: string, target?: string): Promise<void> {
  const tmp = `${outfile}.${process.pid}.tmp`;
  const result = await Bun.build({
    entrypoints: [new URL("../cli/main.ts", import.meta.url).pathname],
    compile: target ? { target: target as any, outfile: tmp } : { outfile: tmp },
    minify: true,
    define: { RKB_COMMIT: JSON.stringify(commit) },
  });
  if (!result.success) {
    rmSync(tmp, { force: true });
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
  renameSync(tmp, outfile);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { target: { type: "string" }, outfile: { type: "string", default: "dist/rkb" } } });
  await build(values.outfile!, values.target);
  console.log(`built ${values.outfile}${values.target ? ` (${values.target})` : ""} from ${commit}`);
}
