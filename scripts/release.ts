// Builds the release binaries and their checksums: `bun scripts/release.ts [--outdir dist/release]`.
// Writes rkb-<os>-<arch>[.exe] for every target below plus SHA256SUMS (the format `sha256sum -c` reads).
// Bun fetches the runtimes of the other platforms from the npm registry and keeps them in its cache.
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build, commit } from "./build.ts";
import pkg from "../package.json" with { type: "json" };

/** Release file name → Bun compile target. install.sh derives the same names from `uname`. */
export const TARGETS: Record<string, string> = {
  "rkb-linux-x64": "bun-linux-x64",
  "rkb-linux-arm64": "bun-linux-arm64",
  "rkb-darwin-x64": "bun-darwin-x64",
  "rkb-darwin-arm64": "bun-darwin-arm64",
  "rkb-windows-x64.exe": "bun-windows-x64",
};

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  // Streamed: each binary is around 100 MB.
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest("hex");
}

/** `<hex>  <name>` lines, sorted by name; two spaces mean "binary mode" to sha256sum and shasum. */
export function checksumsText(sums: Record<string, string>): string {
  return Object.keys(sums)
    .sort()
    .map((name) => `${sums[name]}  ${name}\n`)
    .join("");
}

export async function release(outdir: string, names: string[] = Object.keys(TARGETS)): Promise<Record<string, string>> {
  mkdirSync(outdir, { recursive: true });
  // Files from an earlier run would otherwise be uploaded next to, and not listed in, the new SHA256SUMS.
  for (const name of [...Object.keys(TARGETS), "SHA256SUMS"]) rmSync(join(outdir, name), { force: true });
  const sums: Record<string, string> = {};
  for (const name of names) {
    const target = TARGETS[name];
    if (!target) throw new Error(`unknown release file ${name}; known: ${Object.keys(TARGETS).join(", ")}`);
    const file = join(outdir, name);
    await build(file, target);
    sums[name] = await sha256File(file);
  }
  writeFileSync(join(outdir, "SHA256SUMS"), checksumsText(sums));
  return sums;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { outdir: { type: "string", default: "dist/release" } } });
  const outdir = values.outdir!;
  try {
    const sums = await release(outdir);
    console.log(`rkb ${pkg.version} (${commit}) → ${outdir}`);
    for (const [name, sum] of Object.entries(sums)) {
      const mb = (statSync(join(outdir, name)).size / 1e6).toFixed(1);
      console.log(`  ${name.padEnd(22)} ${mb.padStart(6)} MB  sha256 ${sum}`);
    }
    console.log(`  SHA256SUMS`);
  } catch (e) {
    console.error(e instanceof AggregateError ? [e.message, ...e.errors].join("\n") : e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
