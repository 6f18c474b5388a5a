// Compiles the rkb binary: `bun scripts/build.ts [--target bun-linux-x64] [--outfile dist/rkb]`.
import { $ } from "bun";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { target: { type: "string" }, outfile: { type: "string", default: "dist/rkb" } } });
const commit = (await $`git rev-parse --short=12 HEAD`.quiet().nothrow()).stdout.toString().trim() || "unknown";

export async function build(outfile: string, target?: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [new URL("../cli/main.ts", import.meta.url).pathname],
    compile: target ? { target: target as any, outfile } : { outfile },
    minify: true,
    define: { RKB_COMMIT: JSON.stringify(commit) },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}

if (import.meta.main) {
  await build(values.outfile!, values.target);
  console.log(`built ${values.outfile}${values.target ? ` (${values.target})` : ""} from ${commit}`);
}
