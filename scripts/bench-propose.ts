// Benchmark for `rkb propose` (not a test): `bun scripts/bench-propose.ts [--sessions 10000] [--kb 100]
// [--baseline path/to/older/rkb]` (--baseline: that build's extract and propose rows in the same rounds).
// Generates a team's archive (pi, omp and Claude Code sessions, each with a long successful build log
// and up to two failures from a pool, most of them fixed, some recurring across many sessions), measures
// the floor (read every file and JSON.parse each line, in this process), then runs the compiled
// binary over it: `rkb propose` alone (it reads every session whole), the CI workflow (`rkb extract`,
// then `rkb propose`), and `--shard K/4` in four processes at once followed by `--merge`. Each run
// gets a fresh copy of the knowledge base and of rkb's folders. Peak memory is GNU time's max RSS.
// The merged run must propose exactly what the single run proposes. Paste the output into BENCHMARKS.md.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build } from "./build.ts";
import { BENCH_IDENTITY, isolatedEnv } from "./bench-run.ts";
import { seededRandom } from "../test/helpers.ts";
import { SessionWriter, type Flavor } from "../test/sessions/session-writer.ts";

const { values } = parseArgs({
  options: { sessions: { type: "string", default: "10000" }, kb: { type: "string", default: "100" }, baseline: { type: "string" } },
});
const SESSIONS = Number(values.sessions);
const LOG_KB = Number(values.kb);
const work = mkdtempSync(join(tmpdir(), "rkb-bench-propose-"));
const timeBin = ["/usr/bin/time", "/bin/time"].find((p) => existsSync(p));

const WORDS =
  "alpha bravo cobalt delta ember falcon garnet harbor indigo jasper kelvin lumen mango nickel onyx pepper quartz raven sierra tundra umber velvet willow xenon yonder zephyr".split(
    " ",
  );

/** A pool of failures: each its own program, error line and fix, so that no two say the same thing. */
function story(j: number) {
  const a = WORDS[j % WORDS.length]!;
  const b = WORDS[Math.floor(j / WORDS.length) % WORDS.length]!;
  const tool = `${a}ctl`;
  return {
    command: `${tool} build --target ${b}`,
    output: `${tool}: loading plugin ${b}-${a}\nerror: ${tool} cannot resolve ${a}_${b}_plugin: symbol ${b}${j}_init not exported by lib${a}${j}.so\n${tool}: build stopped`,
    fix: [`${tool} plugins enable ${b}-${a}-compat`, `export ${a.toUpperCase()}_PLUGIN_PATH=/opt/${b}/lib`],
  };
}

function generate(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const random = seededRandom(0xbe7c4);
  const line = "[ 42%] Building CXX object src/core/CMakeFiles/core.dir/parser.cpp.o -- ok\n";
  const log = line.repeat(Math.ceil((LOG_KB * 1000) / line.length));
  const flavors: Flavor[] = ["pi", "omp", "claude-code"];
  let bytes = 0;
  for (let i = 0; i < SESSIONS; i++) {
    const w = new SessionWriter(flavors[i % 3], `bench-${i}`, `/work/p${i % 31}`, Date.parse("2026-10-01T00:00:00Z") + i * 60_000);
    w.user(`Build project ${i} and fix what fails.`);
    w.bash("cmake --build build", log);
    w.bash("git status --short", " M src/core/parser.cpp");
    // No failure in a third of the sessions, one in half, two in the rest; a few stories are met
    // often, most rarely (squared random).
    const dice = random();
    const count = dice < 0.33 ? 0 : dice < 0.83 ? 1 : 2;
    for (let f = 0; f < count; f++) {
      const s = story(Math.floor(random() ** 2 * 400));
      w.bash(s.command, s.output, 1);
      if (random() < 0.8) {
        for (const step of s.fix) w.bash(step, "ok");
        w.bash(s.command, "built");
      }
    }
    w.agent(`Done with project ${i}.`);
    const text = w.text();
    bytes += text.length;
    writeFileSync(join(dir, `${String(i).padStart(5, "0")}.jsonl`), text);
  }
  return bytes;
}

/** The floor's best wall time and its CPU time (this process, user + system). */
function floor(dir: string): { seconds: number; cpu: number } {
  let best = { seconds: Infinity, cpu: Infinity };
  for (let round = 0; round < 2; round++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let parsed = 0;
    for (const name of readdirSync(dir)) for (const l of readFileSync(join(dir, name), "utf8").split("\n")) if (l) parsed += JSON.parse(l) ? 1 : 0;
    if (!parsed) throw new Error("nothing parsed");
    const c = process.cpuUsage(c0);
    best = { seconds: Math.min(best.seconds, (performance.now() - t0) / 1000), cpu: Math.min(best.cpu, (c.user + c.system) / 1e6) };
  }
  return best;
}

interface Timed {
  seconds: number;
  /** User + system CPU time: on a machine others share, the part of the time that is the run's own. */
  cpu: number;
  rssMb: number;
  out: string;
}

async function timed(argv: string[], env: Record<string, string>, cwd: string): Promise<Timed> {
  const t0 = performance.now();
  const proc = Bun.spawn(timeBin ? [timeBin, "-f", "%M %U %S", ...argv] : argv, { env, cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const exit = await proc.exited;
  if (exit !== 0) throw new Error(`${argv.join(" ")} exited ${exit}: ${err.slice(-2000)}`);
  const [rss, user, sys] = (timeBin ? err.trim().split("\n").pop()! : "NaN NaN NaN").split(" ").map(Number);
  return { seconds: (performance.now() - t0) / 1000, cpu: user! + sys!, rssMb: rss! / 1024, out };
}

/** A fresh knowledge base (the project's 122-lesson eval set) and fresh rkb folders for one run. */
async function freshRun(bin: string, name: string): Promise<{ env: Record<string, string>; dir: string }> {
  const dir = join(work, name);
  const env = {
    ...isolatedEnv(dir),
    RKB_HOME: join(dir, "kb"),
    ...BENCH_IDENTITY,
  };
  mkdirSync(dir, { recursive: true });
  await timed([bin, "init"], env, dir);
  cpSync(join(import.meta.dir, "..", "test", "fixtures", "eval-kb", "general"), join(dir, "kb", "general"), { recursive: true });
  for (const args of [
    ["add", "-A"],
    ["-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "eval lessons"],
  ]) {
    const p = Bun.spawnSync(["git", ...args], { cwd: join(dir, "kb"), env });
    if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  }
  return { env, dir };
}

const comparable = (json: string) => {
  const d = JSON.parse(json);
  return JSON.stringify({ ...d, base: undefined, tip: undefined, proposals: d.proposals.map((p: any) => ({ ...p, commit: undefined })) });
};

try {
  const sessions = join(work, "sessions");
  const mb = generate(sessions) / 1024 / 1024;
  const bin = join(work, "rkb");
  await build(bin);
  const base = floor(sessions);
  const rows: { run: string; seconds: number; cpu: number; rssMb: number }[] = [];
  let single = "";
  let merged = "";
  for (let round = 0; round < 2; round++) {
    const d = await freshRun(bin, `dry-${round}`);
    rows.push({
      run: "for comparison: rkb extract --dry-run (the same reading, no proposals)",
      ...(await timed([bin, "extract", sessions, "--dry-run", "--format", "json"], d.env, d.dir)),
    });

    const a = await freshRun(bin, `single-${round}`);
    const alone = await timed([bin, "propose", sessions, "--format", "json"], a.env, a.dir);
    single = comparable(alone.out);
    rows.push({ run: "rkb propose (reads every session, proposes, commits)", ...alone });
    if (values.baseline) {
      const before = values.baseline;
      const bd = await freshRun(before, `before-dry-${round}`);
      rows.push({
        run: `before (${before}): rkb extract --dry-run`,
        ...(await timed([before, "extract", sessions, "--dry-run", "--format", "json"], bd.env, bd.dir)),
      });
      const ba = await freshRun(before, `before-single-${round}`);
      rows.push({ run: `before (${before}): rkb propose`, ...(await timed([before, "propose", sessions, "--format", "json"], ba.env, ba.dir)) });
    }

    const b = await freshRun(bin, `workflow-${round}`);
    const extract = await timed([bin, "extract", sessions, "--format", "json"], b.env, b.dir);
    const then = await timed([bin, "propose", sessions, "--format", "json"], b.env, b.dir);
    rows.push({
      run: "the CI workflow: rkb extract (writes the inbox), then rkb propose",
      seconds: extract.seconds + then.seconds,
      cpu: extract.cpu + then.cpu,
      rssMb: Math.max(extract.rssMb, then.rssMb),
    });

    const c = await freshRun(bin, `shards-${round}`);
    const t0 = performance.now();
    const shards = await Promise.all(
      [1, 2, 3, 4].map((k) =>
        timed([bin, "propose", sessions, "--shard", `${k}/4`, "--candidates", join(c.dir, `shard-${k}.json`), "--format", "json"], c.env, c.dir),
      ),
    );
    const merge = await timed([bin, "propose", "--merge", ...[1, 2, 3, 4].map((k) => join(c.dir, `shard-${k}.json`)), "--format", "json"], c.env, c.dir);
    merged = comparable(merge.out);
    rows.push({
      run: "rkb propose --shard K/4 in 4 processes at once, then --merge",
      seconds: (performance.now() - t0) / 1000,
      cpu: merge.cpu + shards.reduce((n, s) => n + s.cpu, 0),
      rssMb: Math.max(merge.rssMb, ...shards.map((s) => s.rssMb)),
    });
    if (merged !== single) throw new Error("the merged shards propose something else than the single run");
  }
  const proposals = JSON.parse(single).proposals.length;
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" / ");
  console.log(
    `data: ${SESSIONS} sessions, ${mb.toFixed(0)} MB; floor (read + JSON.parse every line, one process): ${base.seconds.toFixed(2)} s wall (${(mb / base.seconds).toFixed(0)} MB/s), ${base.cpu.toFixed(2)} s CPU; ${proposals} proposals, the same from the merged shards; load average at the end ${load}\n`,
  );
  console.log("| run | time | share of floor | CPU time | share of floor's CPU | peak RSS |");
  console.log("|---|---:|---:|---:|---:|---:|");
  const best = new Map<string, { seconds: number; cpu: number; rssMb: number }>();
  for (const r of rows) {
    const prev = best.get(r.run);
    best.set(r.run, {
      seconds: Math.min(prev?.seconds ?? Infinity, r.seconds),
      cpu: Math.min(prev?.cpu ?? Infinity, r.cpu),
      rssMb: Math.max(prev?.rssMb ?? 0, r.rssMb),
    });
  }
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  for (const [run, r] of best)
    console.log(
      `| ${run} | ${r.seconds.toFixed(2)} s | ${pct(base.seconds / r.seconds)} | ${r.cpu.toFixed(2)} s | ${pct(base.cpu / r.cpu)} | ${Number.isNaN(r.rssMb) ? "n/a" : `${r.rssMb.toFixed(0)} MB`} |`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
