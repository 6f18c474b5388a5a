import { readFileSync } from "node:fs";
import { join } from "node:path";

// A Bun macro, run when rkb is built (and when the source is loaded, so tests see the same): the
// pages' script bundled for the browser from browser/main.ts (which brings the CLI's own
// tokenizer and ranking, search/rank.ts) and the stylesheet, as text inside the binary. A macro
// cannot call Bun.build while the bundler waits for it, so it runs `bun build` as a process.

export function siteAssets(): { js: string; css: string } {
  const entry = join(import.meta.dir, "browser", "main.ts");
  const built = Bun.spawnSync([process.execPath, "build", entry, "--target=browser", "--format=esm", "--minify"], { stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`bundling ${entry} for the browser failed: ${built.stderr.toString()}`);
  return { js: built.stdout.toString(), css: readFileSync(join(import.meta.dir, "browser", "site.css"), "utf8") };
}
