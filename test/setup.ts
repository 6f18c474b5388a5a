// Builds the compiled binary once per `bun test` run, so CLI tests exercise what users run.
import { statSync } from "node:fs";
import { Glob } from "bun";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { removeSandboxes } from "./helpers.ts";

// A hook in this preload file runs once, after every test file: the sandboxes go then (hundreds of
// folders, some holding installed agents; on a loaded 2-core machine that took 145 s once, so the
// hook gets ten minutes: it is cleanup, not a measure).
afterAll(removeSandboxes, { timeout: 600_000 });

const root = join(import.meta.dir, "..");
const bin = join(root, "dist", "rkb");

function newestSource(): number {
  let newest = statSync(join(root, "package.json")).mtimeMs;
  for (const file of new Glob("{cli,extension}/**/*.{ts,js,md,json,css}").scanSync(root)) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

function binTime(): number {
  try {
    return statSync(bin).mtimeMs;
  } catch {
    return 0;
  }
}

if (!process.env.RKB_BIN && binTime() < newestSource()) {
  const proc = Bun.spawnSync([process.execPath, join(root, "scripts", "build.ts")], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) throw new Error("building dist/rkb failed");
}
