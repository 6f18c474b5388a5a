// The extension must type-check against the pi it runs in: both pi versions, with pi's own TypeBox.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers.ts";
import { AGENTS_DIR } from "./agent.ts";

const modules = join(AGENTS_DIR, "node_modules");

describe("extension/rkb.ts type-checks", () => {
  for (const version of ["0.87.1", "1.6.0"]) {
    test(`against @earendil-works/pi-coding-agent ${version}`, () => {
      const dir = mkdtempSync(join(tmpdir(), "rkb-tsc-"));
      try {
        const config = {
          compilerOptions: {
            target: "ESNext",
            module: "ESNext",
            moduleResolution: "bundler",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            noUnusedLocals: true,
            verbatimModuleSyntax: true,
            types: ["node"],
            typeRoots: [join(ROOT, "node_modules", "@types")],
            paths: {
              "@earendil-works/pi-coding-agent": [join(modules, `pi-${version}`)],
              typebox: [join(modules, "typebox")],
            },
          },
          files: [join(ROOT, "extension", "rkb.ts")],
        };
        writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
        const tsc = Bun.spawnSync([process.execPath, join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], {
          cwd: ROOT,
          // tsc turns on Node's compile cache, which lands in TMPDIR: keep it in the folder removed below.
          env: { ...process.env, TMPDIR: dir },
        });
        expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
        expect(tsc.exitCode).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // tsc over pi's whole type tree takes ~15 s on a quiet machine and over 60 s on a loaded one.
    }, 240_000);
  }
});
