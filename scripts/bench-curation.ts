// Times `rkb dupes` and `rkb review` as whole processes on a generated knowledge base of 10,000
// lessons (a git repository with use records), and checks that dupes finds the near-copies planted
// in it. Target (BENCHMARKS.md): each ≤ 2 s. Run: `bun scripts/bench-curation.ts [--runs 3]`;
// RKB_BIN=<binary> skips the build.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_IDENTITY, isolatedEnv, median } from "./bench-run.ts";
import { build } from "./build.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, size: { type: "string", default: "10000" } } });
const RUNS = Number(values.runs);
const SIZE = Number(values.size);
/** Every PLANT-th lesson is a reworded copy of the one before it. */
const PLANT = 50;
const work = mkdtempSync(join(tmpdir(), "rkb-bench-curation-"));

// A vocabulary of 20,000 made-up words drawn with a Zipf-like skew, so a few words are everywhere
// and most are rare, as in real text.
const syllables =
  "ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo fu ga ge gi go gu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu".split(
    " ",
  );
const VOCAB = Array.from({ length: 20_000 }, (_, i) => syllables[i % 60]! + syllables[Math.floor(i / 60) % 60]! + syllables[Math.floor(i / 3600) % 60]! + "x");
let seed = 42;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const word = () => VOCAB[Math.floor(VOCAB.length * random() ** 3)]!;
const words = (n: number) => Array.from({ length: n }, word).join(" ");

function lessonText(i: number, title: string, sections: string[], status: string): string {
  const id = (0x5e00000000 + i).toString(16);
  const stale = status === "stale" ? "stale_reason: the tool changed\n" : "";
  const verified = i % 7 === 0 ? "2025-01-01" : "2026-11-01";
  return `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: ${status}\n${stale}verified: ${verified}\nverified_how: ran\ntags:\n  - ${word()}\n---\n\n# ${title}\n\n## Symptom\n${sections[0]}.\n\n## Cause\n${sections[1]}.\n\n## Fix\n${sections[2]}.\n\n## Evidence\n${sections[3]}.\n`;
}

function makeKb(): string {
  const kb = join(work, "kb");
  let previous: { title: string; sections: string[] } | undefined;
  const usage: string[] = [];
  for (let i = 0; i < SIZE; i++) {
    const dir = join(kb, "general", `topic-${i % 40}`);
    mkdirSync(dir, { recursive: true });
    let title = words(7);
    let sections = [words(25), words(35), words(35), words(15)];
    if (i % PLANT === 1 && previous) {
      // A near-copy: the same lesson with a few words changed.
      title = previous.title
        .split(" ")
        .map((w, k) => (k === 0 ? word() : w))
        .join(" ");
      sections = previous.sections.map((s) =>
        s
          .split(" ")
          .map((w, k) => (k % 9 === 0 ? word() : w))
          .join(" "),
      );
    }
    previous = { title, sections };
    writeFileSync(join(dir, `lesson-${i}.md`), lessonText(i, title, sections, i % 97 === 0 ? "stale" : "active"));
    const id = (0x5e00000000 + i).toString(16);
    if (i % 3 === 0) usage.push(JSON.stringify({ time: "2026-11-20T10:00:00Z", id, event: "injected", session: `s${i}` }));
    if (i % 11 === 0) usage.push(JSON.stringify({ time: "2026-11-21T10:00:00Z", id, event: "failed", session: `s${i}`, reason: "did not apply" }));
  }
  mkdirSync(join(kb, ".rkb", "usage"), { recursive: true });
  writeFileSync(join(kb, ".rkb", "usage", "bench-0000.jsonl"), usage.join("\n") + "\n");
  writeFileSync(join(kb, "kb.toml"), '[labels]\nsensitivity = ["public", "internal", "confidential"]\n');
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], {
      cwd: kb,
      env: { ...env, ...BENCH_IDENTITY },
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "generated");
  return kb;
}

const env = isolatedEnv(work);
try {
  const bin = process.env.RKB_BIN ?? join(work, "rkb");
  if (!process.env.RKB_BIN) await build(bin);
  const kb = makeKb();
  const runEnv = { ...env, RKB_HOME: kb };
  // Wall time counts the time the process waited for a core on a shared machine; CPU time (user +
  // system of the child) is what the command itself costs. Both are reported, with the load.
  const time = (args: string[]) => {
    const walls: number[] = [];
    const cpus: number[] = [];
    let out = "";
    for (let r = 0; r < RUNS; r++) {
      const t0 = Bun.nanoseconds();
      const p = Bun.spawnSync([bin, ...args, "--format", "json"], { env: runEnv, cwd: work });
      walls.push((Bun.nanoseconds() - t0) / 1e6);
      if (p.exitCode !== 0) throw new Error(`rkb ${args.join(" ")} exited ${p.exitCode}: ${p.stderr}`);
      cpus.push(Number(p.resourceUsage!.cpuTime.total) / 1000);
      out = p.stdout.toString();
    }
    return { wall: median(walls), cpu: median(cpus), data: JSON.parse(out) };
  };
  const load = () => loadavg()[0]!.toFixed(1);
  // The first call builds the search index cache; the timed runs then find it warm.
  Bun.spawnSync([bin, "dupes", "--format", "json"], { env: runEnv, cwd: work });
  const loadAtStart = load();
  const dupes = time(["dupes"]);
  const planted = Math.floor((SIZE - 2) / PLANT) + 1;
  const found = dupes.data.pairs.filter((p: any) => Math.abs(parseInt(p.a.id, 16) - parseInt(p.b.id, 16)) === 1).length;
  const review = time(["review"]);
  const ms = (t: { wall: number; cpu: number }) => `wall ${t.wall.toFixed(0)} ms, cpu ${t.cpu.toFixed(0)} ms`;
  console.log(
    `lessons: ${SIZE}, median of ${RUNS} runs, search index cache warm, load average ${loadAtStart} at start, ${load()} at end (${cpus().length} cores)`,
  );
  console.log(`dupes:  ${ms(dupes)}, ${dupes.data.pairs.length} pairs, ${found} of ${planted} planted near-copies found`);
  console.log(`review: ${ms(review)}, ${review.data.candidates.length} candidates`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
