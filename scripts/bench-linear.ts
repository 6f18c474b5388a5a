// Benchmark for linear time (not a test): `bun scripts/bench-linear.ts`. Runs the compiled binary on
// the inputs of test/reliability/linear.test.ts at a quarter, half and full size, best of three,
// and prints a Markdown table for BENCHMARKS.md: time per size and the growth from half to full
// size (2.0 is linear, 4.0 quadratic; start-up time pulls small sizes up, so ratios sit below 2).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "./build.ts";
import { kbFromFixture, sandbox } from "../test/helpers.ts";
import { brokenFrontmatter, lessonLinking, lessonWithDataUri, MiB, run, sessionWithLongLines, svg } from "../test/reliability/adversarial.ts";

const work = mkdtempSync(join(tmpdir(), "rkb-bench-linear-"));
const bin = join(work, "rkb");
await build(bin);

function best(argv: string[], env: Record<string, string>, stdin?: string): number {
  let min = Infinity;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    Bun.spawnSync([bin, ...argv], { env, stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "ignore", stderr: "ignore" });
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

interface Case {
  name: string;
  full: string;
  /** Sets up the input at `fraction` of full size; returns the command to time. */
  at: (fraction: number) => { argv: string[]; env: Record<string, string>; stdin?: string };
}

const fresh = () => {
  const box = sandbox("rkb-bench-linear");
  kbFromFixture(box);
  return box;
};
const payload = (kb: string, extra: object) => JSON.stringify({ session_id: "s1", cwd: kb, harness: "pi", ...extra });

const cases: Case[] = [
  {
    name: "lint: broken frontmatter",
    full: "16,000 lines",
    at: (f) => {
      const box = fresh();
      writeFileSync(join(box.kb, "general", "git", "broken.md"), brokenFrontmatter(16_000 * f).text);
      return { argv: ["lint", "--format", "json"], env: box.env };
    },
  },
  {
    name: "lint: SVG data URI in a lesson",
    full: "1 MiB line",
    at: (f) => {
      const box = fresh();
      writeFileSync(join(box.kb, "general", "git", "inline.md"), lessonWithDataUri(MiB * f));
      return { argv: ["lint", "--format", "json"], env: box.env };
    },
  },
  {
    name: "lint: one-line SVG asset",
    full: "1 MiB",
    at: (f) => {
      const box = fresh();
      const topic = join(box.kb, "general", "git");
      mkdirSync(join(topic, "d.assets"));
      writeFileSync(join(topic, "d.assets", "layout.svg"), svg(MiB * f - 1024));
      writeFileSync(join(topic, "d.md"), lessonLinking("d.assets/layout.svg"));
      return { argv: ["lint", "--format", "json"], env: box.env };
    },
  },
  {
    name: "extract: session of long lines",
    full: "10 MB lines",
    at: (f) => {
      const box = fresh();
      const file = join(box.dir, "s.jsonl");
      writeFileSync(file, sessionWithLongLines(10 * MiB * f));
      return { argv: ["extract", file, "--dry-run", "--format", "json"], env: box.env };
    },
  },
  {
    name: "hook tool-failed: one-word error",
    full: "10 MB",
    at: (f) => {
      const box = fresh();
      return { argv: ["hook", "tool-failed"], env: box.env, stdin: payload(box.kb, { command: "make", error: run("x", 10 * MiB * f) }) };
    },
  },
  {
    name: "hook tool-failed: error lines",
    full: "10 MB",
    at: (f) => {
      const box = fresh();
      return {
        argv: ["hook", "tool-failed"],
        env: box.env,
        stdin: payload(box.kb, { command: "make", error: run("error: cannot find target foo\n", 10 * MiB * f) }),
      };
    },
  },
  {
    name: "hook prompt",
    full: "10 MB",
    at: (f) => {
      const box = fresh();
      return { argv: ["hook", "prompt"], env: box.env, stdin: payload(box.kb, { prompt: run("remember to rebuild the index ", 10 * MiB * f) }) };
    },
  },
];

try {
  console.log("| input | full size | ¼ size | ½ size | full size | full ÷ ½ |");
  console.log("|---|---|---|---|---|---|");
  for (const c of cases) {
    const ms = [0.25, 0.5, 1].map((f) => {
      const { argv, env, stdin } = c.at(f);
      return best(argv, env, stdin);
    });
    const cell = (v: number) => (v < 1000 ? `${v.toFixed(0)} ms` : `${(v / 1000).toFixed(2)} s`);
    console.log(`| ${c.name} | ${c.full} | ${ms.map(cell).join(" | ")} | ${(ms[2]! / ms[1]!).toFixed(2)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
