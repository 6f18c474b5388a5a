// Times `rkb search` as a whole process on generated knowledge bases of 100, 1,000 and 10,000
// lessons against the floor of a correct warm search (a compiled Bun binary that runs the cache
// check alone: it walks the knowledge base and stats every lesson file, `cli/kb/signature.ts`),
// times the first search (which builds the index), `rkb show` / `rkb list` and the failure hook
// (`rkb hook tool-failed` on a realistic payload; with --compare, the other binary's hook in the
// same interleaved run), and writes the `## Search` section of BENCHMARKS.md. Run: `bun scripts/bench-search.ts [--runs 20] [--compare <rkb binary>]`:
// with --compare, the outputs of a set of searches (typos, synonyms, compounds, --explain, --all,
// literal, use records) from that binary and from this build must be the same before anything is
// timed (a faster search that answers differently measures nothing).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build, compileOptions } from "./build.ts";
import { makeKb } from "./bench-kb.ts";
import { isolatedEnv, median } from "./bench-run.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "20" }, compare: { type: "string" } } });
const RUNS = Number(values.runs);
const FIRST_RUNS = 5;
const SIZES = [100, 1_000, 10_000];
const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "rkb-bench-search-"));

/** Median of RUNS runs, the first one discarded (it warms the page cache). */
function timeRuns(cmd: string[], env: Record<string, string>): number {
  return timeInterleaved([cmd], env)[0]!;
}

/**
 * Medians of RUNS runs of each command, run in turn (a, b, c, a, b, c, …) so that every command
 * meets the same load on a shared machine and their ratios hold even when the load moves.
 */
function timeInterleaved(cmds: string[][], env: Record<string, string>): number[] {
  for (const cmd of cmds) once(cmd, env);
  const times = cmds.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) cmds.forEach((cmd, c) => times[c]!.push(once(cmd, env)));
  return times.map(median);
}

function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(" / ");
}

/** Compiles a one-file Bun program (the floor and the no-op): as `bun build --compile --minify` does, or with rkb's own options. */
async function compile(name: string, source: string, asRkb = false): Promise<string> {
  const entry = join(work, `${name}.ts`);
  writeFileSync(entry, source);
  const out = join(work, name);
  const built = await Bun.build({ entrypoints: [entry], compile: { outfile: out }, ...(asRkb ? compileOptions : { minify: true }) });
  if (!built.success) throw new Error(`building the ${name} binary failed`);
  return out;
}

const noop = await compile("noop", "export {};\n");
const floorSource = `import { kbSignature } from ${JSON.stringify(join(root, "cli/kb/signature.ts"))};\nkbSignature(process.env.RKB_HOME!);\n`;
const floor = await compile("floor", floorSource);
// The same program compiled as rkb is (bytecode): a lower floor, reported beside the target's.
const floorAsRkb = await compile("floor-as-rkb", floorSource, true);
const bin = join(work, "rkb");
await build(bin);

/** How many lessons a search ranks (shows without a limit): a bench that times a search finding nothing measures nothing. */
function foundCount(cmd: string[], env: Record<string, string>): number {
  const p = Bun.spawnSync(cmd, { env, cwd: work, stdout: "pipe", stderr: "pipe" });
  const results = p.exitCode === 0 ? (JSON.parse(p.stdout.toString()) as { results?: unknown[] }).results : undefined;
  if (!results?.length) throw new Error(`${cmd.join(" ")} found nothing (exit ${p.exitCode}): ${p.stdout}${p.stderr}`);
  return results.length;
}

function once(cmd: string[], env: Record<string, string>): number {
  return timed(cmd, env).wall;
}

/** A command and what it reads on stdin (the hook's payload). */
interface Fed {
  cmd: string[];
  stdin: string;
}

/** Medians of RUNS runs of each fed command, run in turn as timeInterleaved does. */
function timeFed(runs: Fed[], env: Record<string, string>): number[] {
  for (const r of runs) timed(r.cmd, env, r.stdin);
  const times = runs.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) runs.forEach((r, c) => times[c]!.push(timed(r.cmd, env, r.stdin).wall));
  return times.map(median);
}

/**
 * What the failure hook is handed for a failed build: a command and 30 lines of output as a tool
 * prints them (progress, a chain of causes, the error, its aftermath), with the generated knowledge
 * base's words, so that the search finds candidates and the rule weighs each of them.
 */
const HOOK_PAYLOAD = JSON.stringify({
  session_id: "bench",
  command: "make -j8 all",
  error: [
    ...Array.from({ length: 20 }, (_, i) => `cc -O2 -c -o obj/module${i}.o src/module${i}.c`),
    "/usr/bin/ld: obj/module7.o: in function `cache_rebuild':",
    "module7.c:(.text+0x1c4): undefined reference to `linker_symbol_cache'",
    "/usr/bin/ld: obj/module9.o: undefined symbol after linker cache rebuild: kernel driver thread timeout",
    "error: build failed: could not link: undefined symbol after linker cache rebuild",
    "collect2: error: ld returned 1 exit status",
    "make[1]: *** [Makefile:37: app] Error 1",
    "make: *** [Makefile:12: all] Error 2",
    "",
    "Command exited with code 2",
  ].join("\n"),
});

/** Wall time and the child's CPU time (user + system), in ms. */
function timed(cmd: string[], env: Record<string, string>, stdin?: string): { wall: number; cpu: number } {
  const t0 = Bun.nanoseconds();
  const p = Bun.spawnSync(cmd, { env, cwd: work, stdout: "ignore", stderr: "ignore", ...(stdin === undefined ? {} : { stdin: Buffer.from(stdin) }) });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${p.exitCode}`);
  const wall = (Bun.nanoseconds() - t0) / 1e6;
  const used = p.resourceUsage;
  return { wall, cpu: used ? Number(used.cpuTime.user + used.cpuTime.system) / 1000 : Number.NaN };
}

/** Searches whose outputs --compare holds to the other binary's (typos, synonyms, compounds, a folder, explain, all statuses, literal, list). */
const COMPARED: string[][] = [
  ["search", "undefined symbol after linker cache rebuild", "--format", "json", "--limit", "100000"],
  ["search", "undefined symbol after linker cache rebuild"],
  ["search", "compilr cach segfalt", "--format", "json", "--limit", "50"],
  ["search", "rebuld memry allocaton optimze pyth confi", "--format", "json", "--limit", "30"],
  ["search", "kernel driver", "--all", "--status", "all", "--format", "json", "--limit", "200"],
  ["search", "thread timeout hang stuck", "--explain", "--format", "json"],
  ["search", "docker container folder", "--explain"],
  ["search", "bacedix vozuzux kacefox bacedi vozuzx", "--format", "json", "--limit", "40"],
  ["search", "hdf5::File libfoo.so -lbar H5Fopen", "--format", "json"],
  ["search", "topic-3 symbol", "--format", "json"],
  ["search", "--literal", "linker cache", "--format", "json"],
  ["list", "--format", "json"],
];

/** Stops the bench when the other binary answers any compared search differently; returns how many were compared. */
function compareOutputs(other: string, kb: string, size: number, env: Record<string, string>): number {
  // Use records move scores: the comparison runs once without and once with some.
  const usageDir = join(kb, ".rkb", "usage");
  let compared = 0;
  for (const withUsage of [false, true]) {
    if (withUsage) {
      mkdirSync(usageDir, { recursive: true });
      const events = ["worked", "failed", "injected", "inferred", "irrelevant"];
      const lines = Array.from({ length: 500 }, (_, i) => {
        const id = (0x3d00000000 + ((i * 7919) % size)).toString(16);
        return JSON.stringify({ time: `2026-11-${String(1 + (i % 28)).padStart(2, "0")}T10:00:00Z`, id, event: events[i % 5] });
      });
      writeFileSync(join(usageDir, "bench.jsonl"), lines.join("\n") + "\n");
    }
    for (const cmd of COMPARED) {
      const run = (bin: string, cache: string) => {
        const p = Bun.spawnSync([bin, ...cmd], { env: { ...env, XDG_CACHE_HOME: join(work, cache) }, cwd: work, stdout: "pipe", stderr: "pipe" });
        return `${p.exitCode}\n${p.stdout}${p.stderr}`;
      };
      if (run(other, "cache-other") !== run(bin, "cache"))
        throw new Error(`${other} and this build answer \`rkb ${cmd.join(" ")}\` differently at ${kb}${withUsage ? " (with use records)" : ""}`);
      compared++;
    }
  }
  rmSync(join(kb, ".rkb"), { recursive: true, force: true });
  rmSync(join(work, "cache-other"), { recursive: true, force: true });
  return compared;
}

const env = isolatedEnv(work);
const baseline = timeRuns([noop], env);
const rows: string[] = [];
const hookRows: string[] = [];
for (const size of SIZES) {
  const kb = makeKb(work, size);
  const kbEnv = { ...env, RKB_HOME: kb };
  const query = ["search", "undefined symbol after linker cache rebuild", "--format", "json"];
  const found = foundCount([bin, ...query, "--limit", "100000"], kbEnv);
  if (values.compare) console.log(`${size} lessons: ${compareOutputs(values.compare, kb, size, kbEnv)} outputs the same as ${values.compare}'s`);
  // The first search builds the index; each run starts without the cache file (median of a few).
  const cacheDir = join(work, "cache");
  const firsts: number[] = [];
  const firstCpus: number[] = [];
  for (let i = 0; i < FIRST_RUNS; i++) {
    rmSync(cacheDir, { recursive: true, force: true });
    const { wall, cpu } = timed([bin, ...query], kbEnv);
    firsts.push(wall);
    firstCpus.push(cpu);
  }
  const first = median(firsts);
  const firstCpu = median(firstCpus);
  const id = (0x3d00000000 + Math.floor(size / 2)).toString(16);
  const [floorTime, floorAsRkbTime, warm, show, list] = timeInterleaved(
    [[floor], [floorAsRkb], [bin, ...query], [bin, "show", id, "--format", "json"], [bin, "list", "--format", "json"]],
    kbEnv,
  ) as [number, number, number, number, number];
  rows.push(
    `| ${size.toLocaleString("en-US")} | ${found.toLocaleString("en-US")} | ${floorTime.toFixed(1)} ms | ${warm.toFixed(1)} ms | ${(warm / floorTime).toFixed(2)}× | ${floorAsRkbTime.toFixed(1)} ms (${(warm / floorAsRkbTime).toFixed(2)}×) | ${first.toFixed(0)} ms (CPU ${firstCpu.toFixed(0)} ms) | ${show.toFixed(1)} ms | ${list.toFixed(1)} ms |`,
  );
  const hook = (binary: string): Fed => ({ cmd: [binary, "hook", "tool-failed"], stdin: HOOK_PAYLOAD });
  const [hookFloor, hookTime, otherHook] = timeFed([{ cmd: [floor], stdin: "" }, hook(bin), ...(values.compare ? [hook(values.compare)] : [])], kbEnv);
  const other = otherHook === undefined ? "" : ` ${otherHook.toFixed(1)} ms | ${(otherHook / hookFloor!).toFixed(2)}× |`;
  hookRows.push(
    `| ${size.toLocaleString("en-US")} | ${hookFloor!.toFixed(1)} ms | ${hookTime!.toFixed(1)} ms | ${(hookTime! / hookFloor!).toFixed(2)}× |${other}`,
  );
  console.log(
    `${size} lessons: hook tool-failed ${hookTime!.toFixed(1)} ms (${(hookTime! / hookFloor!).toFixed(2)}× floor)${otherHook === undefined ? "" : `, ${values.compare}'s ${otherHook.toFixed(1)} ms`}`,
  );
  console.log(
    `${size} lessons: floor ${floorTime.toFixed(1)} ms, search ${warm.toFixed(1)} ms (${(warm / floorTime).toFixed(2)}× floor; ${(warm / floorAsRkbTime).toFixed(2)}× the floor compiled as rkb, ${floorAsRkbTime.toFixed(1)} ms), first search ${first.toFixed(0)} ms (CPU ${firstCpu.toFixed(0)} ms), show ${show.toFixed(1)} ms, list ${list.toFixed(1)} ms; the query ranks ${found} lessons`,
  );
}

const section = [
  "## Search",
  "",
  `\`rkb search\` as a whole process against the floor of a correct warm search: a compiled Bun binary that runs the cache check alone (walks the knowledge base and stats every lesson file, \`cli/kb/signature.ts\`). The query (\`undefined symbol after linker cache rebuild\`) ranks the number of lessons in the second column (all above the score cut, no limit; the bench stops if it finds none); the timed search shows the first 10. Median of ${RUNS} runs each, the commands run in turn so that they meet the same load (index cache warm), except the first search (index build, cache removed before each of ${FIRST_RUNS} runs, median of the wall time and, apart, of the process's CPU time: user + system).${values.compare ? ` Before timing, ${COMPARED.length * 2} outputs per size (${COMPARED.length} searches, without and with use records) were compared with those of another build (\`--compare\`) and were the same.` : ""} \`rkb show\` and \`rkb list\` read the index too. The column after \`vs floor\` times the same floor compiled with rkb's own options (bytecode, \`scripts/build.ts\`), and the search against it: a lower floor than the target's (\`bun build --compile --minify\`). A compiled no-op Bun binary takes ${baseline.toFixed(1)} ms. Generated by \`bun scripts/bench-search.ts\` on ${new Date().toISOString().slice(0, 10)}; load average ${loadAverage()} at the end. Targets: warm search ≤ 1.35× the floor at 1,000 and 10,000 lessons (the design card allows citty its share); first search at 10,000 lessons ≤ 1.5 s.`,
  "",
  "| lessons | ranked | floor | search | vs floor | floor as rkb (search vs it) | first search | show | list |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...rows,
  "",
  `The failure hook, \`rkb hook tool-failed\` on a failed build's payload (a command and 30 lines of output: progress, the linker's errors with the generated knowledge base's words, make's aftermath), against the same floor in one interleaved run (median of ${RUNS})${values.compare ? `, and the hook of \`${values.compare}\` in the same run` : ""}:`,
  "",
  values.compare ? "| lessons | floor | hook | vs floor | other build's hook | vs floor |" : "| lessons | floor | hook | vs floor |",
  values.compare ? "|---:|---:|---:|---:|---:|---:|" : "|---:|---:|---:|---:|",
  ...hookRows,
  "",
].join("\n");
const file = join(root, "BENCHMARKS.md");
const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n\n";
const pattern = /## Search\n[\s\S]*?(?=\n## |$)/;
writeFileSync(file, pattern.test(current) ? current.replace(pattern, section.trimEnd() + "\n") : current.trimEnd() + "\n\n" + section);
rmSync(work, { recursive: true, force: true });
console.log(`wrote the Search section of ${file}`);
