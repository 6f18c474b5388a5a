// Benchmark for `rkb extract` (not a test): `bun scripts/bench-extract.ts [--sessions 1000] [--kb 215]
// [--real-only] [--baseline path/to/older/rkb]`.
// Generates sessions in a temp folder, measures the floor (read every file and JSON.parse each
// line, in this process), then runs the compiled binary over the same folder and reports its
// throughput against that floor and its peak memory. With ../shared next to the checkout, a last
// row does the same over the real transcripts of ../shared/fixtures/wild-sessions (--dry-run),
// runs interleaved with the floor (--real-only: that row alone; --baseline: another build's row in
// the same rounds of the real-file row, for a before/after measured in one run). Paste the output
// into BENCHMARKS.md.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build, compileOptions, JIT_POLICY } from "./build.ts";
import { writeCorpus } from "../test/sessions/corpus.ts";
import { median } from "./bench-run.ts";

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "1000" },
    kb: { type: "string", default: "215" },
    "real-only": { type: "boolean" },
    baseline: { type: "string" },
  },
});
const wild = join(import.meta.dir, "../../shared/fixtures/wild-sessions");
const work = mkdtempSync(join(tmpdir(), "rkb-bench-"));
try {
  if (values["real-only"]) {
    const bin = join(work, "rkb");
    await build(bin);
    if (!existsSync(wild)) throw new Error(`--real-only needs ${wild}`);
    console.log(await realFiles(withBaseline(bin), wild, timeBinary()));
    process.exit(0);
  }
  const corpus = join(work, "corpus");
  const expected = writeCorpus(corpus, Number(values.sessions), Number(values.kb) * 1000);
  const mb = expected.bytes / 1024 / 1024;
  const bin = join(work, "rkb");
  await build(bin);

  // Floor: the least any reader must do: read the bytes, split lines, JSON.parse each one.
  let floorSeconds = Infinity;
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    let parsed = 0;
    for (const name of readdirSync(corpus)) {
      for (const line of readFileSync(join(corpus, name), "utf8").split("\n")) if (line) parsed += JSON.parse(line) ? 1 : 0;
    }
    floorSeconds = Math.min(floorSeconds, (performance.now() - t0) / 1000);
    if (!parsed) throw new Error("nothing parsed");
  }

  // rkb extract, best of three each, with a fresh state folder so every run does the full work:
  // --dry-run (read and analyse only) and a full run, which also creates a lock file per session
  // and a file per inbox item, so it depends on how fast the disk creates files. The full run is
  // measured twice: with the state folder on the same disk as the sessions, and on a RAM disk
  // (/dev/shm) when there is one, to show how much of the time is file creation. Peak memory is
  // GNU time's max RSS.
  const timeBin = timeBinary();
  const runs: Record<string, { seconds: number; maxRssMb: number; summary: any }> = {};
  const ramDisk = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/rkb-bench-") : undefined;
  const modes = ["--dry-run", "full", ...(ramDisk ? ["full, state on /dev/shm"] : [])];
  for (const mode of modes) {
    for (let round = 0; round < 3; round++) {
      const state = join(mode.includes("/dev/shm") ? ramDisk! : work, `state-${round}-${mode.length}`);
      const argv = [bin, "extract", corpus, "--format", "json", ...(mode === "--dry-run" ? [mode] : [])];
      const t0 = performance.now();
      const proc = Bun.spawn(timeBin ? [timeBin, "-f", "%M", ...argv] : argv, {
        env: { ...process.env, XDG_STATE_HOME: state, HOME: work },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      await proc.exited;
      const seconds = (performance.now() - t0) / 1000;
      const maxRssMb = timeBin ? Number(err.trim().split("\n").pop()) / 1024 : NaN;
      const prev = runs[mode];
      runs[mode] = { seconds: Math.min(prev?.seconds ?? Infinity, seconds), maxRssMb: Math.max(prev?.maxRssMb ?? 0, maxRssMb), summary: JSON.parse(out) };
    }
  }
  const floorRate = mb / floorSeconds;
  console.log(
    `data: ${expected.sessions} sessions, ${mb.toFixed(0)} MB; floor (read + JSON.parse every line): ${floorRate.toFixed(0)} MB/s (${floorSeconds.toFixed(2)} s)\n`,
  );
  console.log(`| run | time | throughput | share of floor | peak RSS | summary correct |`);
  console.log(`|---|---:|---:|---:|---:|:---:|`);
  for (const [mode, r] of Object.entries(runs)) {
    const s = r.summary;
    const correct =
      s.sessions === expected.sessions &&
      s.failed === expected.failed &&
      s.fixed === expected.fixed &&
      s.correction === expected.correction &&
      s.remember === expected.remember &&
      s.repeat === expected.repeat &&
      (mode === "--dry-run" ? s.items_to_write : s.items_written) === expected.items;
    if (!correct) process.exitCode = 1;
    const rate = mb / r.seconds;
    console.log(
      `| rkb extract ${mode === "full" ? "" : mode === "--dry-run" ? mode : `(${mode})`} | ${r.seconds.toFixed(2)} s | ${rate.toFixed(0)} MB/s | ${((rate / floorRate) * 100).toFixed(0)}% | ${Number.isNaN(r.maxRssMb) ? "n/a" : r.maxRssMb.toFixed(0) + " MB"} | ${correct ? "yes" : "NO"} |`,
    );
  }
  if (existsSync(wild)) console.log(`\n${await realFiles(withBaseline(bin), wild, timeBin)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
  if (existsSync("/dev/shm"))
    for (const dir of readdirSync("/dev/shm").filter((d) => d.startsWith("rkb-bench-"))) rmSync(join("/dev/shm", dir), { recursive: true, force: true });
}

/** The binaries of the real-file row: this checkout's, and --baseline's in the same rounds. */
function withBaseline(bin: string): Record<string, string> {
  return { "this checkout": bin, ...(values.baseline ? { [values.baseline]: values.baseline } : {}) };
}

/** Every .jsonl below a folder. */
function jsonlBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((path) => path.endsWith(".jsonl") && statSync(path).isFile());
}

function timeBinary(): string | undefined {
  return ["/usr/bin/time", "/bin/time"].find((p) => existsSync(p));
}

/** The floor's loop: read every file, split its lines, JSON.parse each one. */
function readAndParse(files: string[]): void {
  for (const f of files)
    for (const line of readFileSync(f, "utf8").split("\n"))
      if (line)
        try {
          JSON.parse(line);
        } catch {}
}

/**
 * `rkb extract --dry-run` over real transcripts against the floor, in rounds that interleave the
 * floor, a run of each binary and a run over one tiny session (the process start, which a small
 * set cannot hide): medians of 7 rounds. Real files spend their time elsewhere than generated ones
 * do: long tool outputs, many small entries, edits that carry whole files.
 *
 * Both sides are single-threaded. Each is measured in wall time and in CPU time (user + system),
 * which a machine shared with other work inflates less. The floor runs warm, in this process, round
 * after round; rkb starts cold every time, so a second floor runs the same loop in a fresh process
 * compiled as rkb is: like with like for a one-shot command (the floor's work is native code, so
 * what the fresh process adds is mostly its start).
 */
async function realFiles(bins: Record<string, string>, dir: string, timeBin: string | undefined): Promise<string> {
  const files = jsonlBelow(dir);
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const tiny = mkdtempSync(join(tmpdir(), "rkb-bench-tiny-"));
  try {
    mkdirSync(join(tiny, "s"));
    writeFileSync(join(tiny, "s", "a.jsonl"), '{"type":"session","version":3,"id":"a","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}\n');
    const coldFloor = join(tiny, "floor");
    await compileColdFloor(join(tiny, "floor.ts"), coldFloor);
    const timed = async (argv: string[]) => {
      const state = mkdtempSync(join(tiny, "state-"));
      const t0 = performance.now();
      const proc = Bun.spawn(timeBin ? [timeBin, "-f", "%M", ...argv] : argv, {
        env: { ...process.env, XDG_STATE_HOME: state, HOME: tiny },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      await proc.exited;
      // In microseconds (GNU time counts in hundredths of a second, too coarse for these runs).
      const cpu = proc.resourceUsage()?.cpuTime;
      return {
        seconds: (performance.now() - t0) / 1000,
        cpu: cpu ? Number(cpu.user + cpu.system) / 1e6 : NaN,
        rssMb: timeBin ? Number(err.trim().split("\n").pop()) / 1024 : NaN,
      };
    };
    const timedRun = (bin: string, target: string) => timed([bin, "extract", target, "--dry-run", "--format", "json"]);
    const floor = { wall: [] as number[], cpu: [] as number[], coldWall: [] as number[], coldCpu: [] as number[] };
    const runs = Object.fromEntries(Object.keys(bins).map((name) => [name, { run: [] as number[], cpu: [] as number[], start: [] as number[], rss: 0 }]));
    for (let round = 0; round < 7; round++) {
      const [t0, c0] = [performance.now(), process.cpuUsage()];
      readAndParse(files);
      const c = process.cpuUsage(c0);
      floor.wall.push((performance.now() - t0) / 1000);
      floor.cpu.push((c.user + c.system) / 1e6);
      const cold = await timed([coldFloor, ...files]);
      floor.coldWall.push(cold.seconds);
      floor.coldCpu.push(cold.cpu);
      for (const [name, bin] of Object.entries(bins)) {
        const r = await timedRun(bin, dir);
        runs[name]!.run.push(r.seconds);
        runs[name]!.cpu.push(r.cpu);
        runs[name]!.rss = Math.max(runs[name]!.rss, r.rssMb);
        runs[name]!.start.push((await timedRun(bin, join(tiny, "s"))).seconds);
      }
    }
    const [f, fc, cw, cc] = [median(floor.wall), median(floor.cpu), median(floor.coldWall), median(floor.coldCpu)];
    const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
    const share = (floorSeconds: number, seconds: number) =>
      Number.isNaN(seconds) ? "n/a" : `${((floorSeconds / Math.max(seconds, 1e-6)) * 100).toFixed(0)}%`;
    const mb = bytes / 1024 / 1024;
    const out = [
      `real transcripts (${files.length} files, ${mb.toFixed(1)} MB, ../shared/fixtures/wild-sessions): floor ${ms(f)} wall, ${ms(fc)} CPU (warm, in this process); in a fresh process ${ms(cw)} wall, ${ms(cc)} CPU`,
      "",
      "| rkb extract --dry-run, real transcripts | time | CPU | process start | share of floor | without the process start | share of floor, CPU | share of the fresh-process floor, CPU | peak RSS |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ];
    for (const [name, r] of Object.entries(runs)) {
      const [t, cpu, s] = [median(r.run), median(r.cpu), median(r.start)];
      out.push(
        `| ${name} | ${ms(t)} | ${ms(cpu)} | ${ms(s)} | ${share(f, t)} | ${share(f, t - s)} | ${share(fc, cpu)} | ${share(cc, cpu)} | ${Number.isNaN(r.rss) ? "n/a" : r.rss.toFixed(0) + " MB"} |`,
      );
    }
    return out.join("\n");
  } finally {
    rmSync(tiny, { recursive: true, force: true });
  }
}

/** The floor's loop as a program of its own (the files to read as arguments), compiled as rkb is. */
async function compileColdFloor(source: string, outfile: string): Promise<void> {
  writeFileSync(source, `import { readFileSync } from "node:fs";\n${readAndParse.toString()}\nreadAndParse(process.argv.slice(2));\n`);
  const result = await Bun.build({ entrypoints: [source], compile: { outfile, jitPolicy: JIT_POLICY }, ...compileOptions });
  if (!result.success) throw new AggregateError(result.logs, "building the fresh-process floor failed");
}
