// Times the site on generated knowledge bases of 1,000 and 10,000 lessons (all public, a year of use
// records, one commit per 100 lessons): `rkb site build` as a whole process, the weight of the home
// page (HTML, stylesheet and script as sent, and gzipped), the in-page search per keystroke in a
// real headless Chromium (Debian's chromium, or RKB_CHROMIUM), and `rkb serve` answering lesson
// pages warm. Writes the `## Site` section of BENCHMARKS.md. Run: `bun scripts/bench-site.ts [--runs 3]`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openBrowser, serveFolder } from "../test-browser/browser.ts";
import { build } from "./build.ts";
import { makeKb } from "./bench-kb.ts";
import { BENCH_IDENTITY, isolatedEnv, median } from "./bench-run.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(values.runs);
const SIZES = [1_000, 10_000];
const QUERIES = ["undefined symbol after linker cache rebuild", "permission denied on mount", "segfault in thread"];
const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "rkb-bench-site-"));
const bin = join(work, "rkb");
await build(bin);
const loadBefore = loadavg()[0]!;

function run(cmd: string[], env: Record<string, string>, cwd: string): void {
  const p = Bun.spawnSync(cmd, { env, cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${p.exitCode}: ${p.stderr}`);
}

/** A generated knowledge base made publishable, with use records over a year, committed in parts. */
function siteKb(size: number, env: Record<string, string>): string {
  const kb = makeKb(work, size);
  writeFileSync(join(kb, "kb.toml"), '[labels]\nsensitivity = ["public", "internal", "confidential"]\n\n[sinks.web]\nallow = { sensitivity = ["public"] }\n');
  writeFileSync(join(kb, "general", "README.md"), "---\nlabels:\n  sensitivity: public\n---\n");
  mkdirSync(join(kb, ".rkb", "usage"), { recursive: true });
  const records: string[] = [];
  const start = Date.parse("2026-01-05T00:00:00Z");
  for (let i = 0; i < size * 2; i++) {
    const id = (0x3d00000000 + ((i * 7919) % size)).toString(16);
    const time = new Date(start + ((i * 3_600_000 * 4) % (360 * 86_400_000))).toISOString();
    records.push(JSON.stringify({ time, id, event: "injected", session: `s${i}` }));
    if (i % 3 === 0) records.push(JSON.stringify({ time, id, event: i % 2 ? "worked" : "irrelevant", session: `s${i}` }));
  }
  writeFileSync(join(kb, ".rkb", "usage", "bench-0000.jsonl"), records.join("\n") + "\n");
  const git = (...args: string[]) => run(["git", ...args], { ...env, ...BENCH_IDENTITY }, kb);
  git("init", "-q", "-b", "main");
  // One commit per 40 topics' worth of files, so the history has many commits to read.
  for (let t = 0; t < 40; t += 4) git("add", ...Array.from({ length: 4 }, (_, k) => `general/topic-${t + k}`));
  git("add", "-A");
  git("commit", "-q", "--no-verify", "-m", "bench lessons");
  return kb;
}

async function keystrokes(siteDir: string): Promise<{ ms: number[]; indexBytes: number }> {
  const chromium = process.env.RKB_CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(chromium)) return { ms: [], indexBytes: statSync(join(siteDir, "assets/search-index.bin")).size };
  const server = serveFolder(siteDir);
  const browser = await openBrowser(work);
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}search.html`);
    await page.waitForSelector("body[data-search-ready]", { timeout: 120_000 });
    const ms: number[] = [];
    for (const query of QUERIES) {
      await page.fill("#q", "");
      for (let i = 1; i <= query.length; i++) {
        await page.fill("#q", query.slice(0, i));
        ms.push(Number(await page.$eval("#results", (list) => list.getAttribute("data-ms"))));
      }
    }
    return { ms, indexBytes: statSync(join(siteDir, "assets/search-index.bin")).size };
  } finally {
    await browser.close();
    server.stop();
  }
}

async function serveTimes(env: Record<string, string>, ids: string[]): Promise<{ first: number; warm: number[] }> {
  const t0 = performance.now();
  const proc = Bun.spawn([bin, "serve"], { env, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const line = new TextDecoder().decode((await reader.read()).value);
  const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)![0];
  const get = async (path: string) => {
    const r = await fetch(url + path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    await r.arrayBuffer();
  };
  await get(`lessons/${ids[0]}.html`);
  const first = performance.now() - t0;
  const warm: number[] = [];
  for (const id of ids) {
    const t = performance.now();
    await get(`lessons/${id}.html`);
    warm.push(performance.now() - t);
  }
  proc.kill("SIGINT");
  await proc.exited;
  return { first, warm };
}

const rows: string[] = [];
for (const size of SIZES) {
  const env = { ...isolatedEnv(join(work, `home-${size}`)), RKB_HOME: "" };
  const kb = siteKb(size, env);
  env.RKB_HOME = kb;
  const out = join(work, `site-${size}`);
  const builds: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    run([bin, "site", "build", "--out", out], env, work);
    builds.push(performance.now() - t);
  }
  const home = ["index.html", "assets/site.css", "assets/site.js"].map((f) => readFileSync(join(out, f)));
  const homeBytes = home.reduce((n, b) => n + b.length, 0);
  const homeGzip = home.reduce((n, b) => n + Bun.gzipSync(b).length, 0);
  const { ms, indexBytes } = await keystrokes(out);
  const ids = Array.from({ length: 50 }, (_, i) => (0x3d00000000 + ((i * 197) % size)).toString(16));
  const served = await serveTimes(env, ids);
  const sorted = [...ms].sort((a, b) => a - b);
  const keys = ms.length
    ? `${median(ms).toFixed(1)} ms / ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1)} ms / ${sorted.at(-1)!.toFixed(1)} ms`
    : "no chromium";
  rows.push(
    `| ${size.toLocaleString("en")} | ${(median(builds) / 1000).toFixed(2)} s | ${(homeBytes / 1024).toFixed(0)} KB (${(homeGzip / 1024).toFixed(0)} KB gzipped) | ${(indexBytes / 1024 / 1024).toFixed(1)} MB | ${keys} | ${median(served.warm).toFixed(1)} ms / ${[...served.warm].sort((a, b) => a - b)[45]!.toFixed(1)} ms | ${(served.first / 1000).toFixed(2)} s |`,
  );
  console.log(rows.at(-1));
}

const section = [
  "## Site",
  "",
  `\`rkb site build\` and \`rkb serve\` on generated knowledge bases (\`scripts/bench-kb.ts\`, made public by a scope note, twice as many injections as lessons over a year, a third of them with a report). Build: the whole process, median of ${RUNS} runs (it empties and rewrites the folder each time). Home page: \`index.html\` with the stylesheet and the script it loads, as sent and gzipped (the search index loads only on the search page; its size is the next column). Search per keystroke: ${QUERIES.length} queries typed a character at a time in headless Chromium on the built site, the time the page's search took per keystroke (ranking and the result list), median / 90th percentile / worst. Serve: 50 different lesson pages asked in turn after the first, median / 95th percentile of the round trip; the first column is the start (model load) to the first page. Generated by \`bun scripts/bench-site.ts\` on ${new Date().toISOString().slice(0, 10)}, load average ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} on 2 cores. Targets: build of 10,000 lessons ≤ 10 s; home page ≤ 200 KB; search ≤ 50 ms per keystroke; a warm lesson page ≤ 50 ms.`,
  "",
  "| lessons | site build | home page | search index | search per keystroke | serve: lesson page warm | serve: first page |",
  "|---:|---:|---:|---:|---:|---:|---:|",
  ...rows,
  "",
].join("\n");
const file = join(root, "BENCHMARKS.md");
const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n\n";
const pattern = /## Site\n[\s\S]*?(?=\n## |$)/;
writeFileSync(file, pattern.test(current) ? current.replace(pattern, section.trimEnd() + "\n") : current.trimEnd() + "\n\n" + section);
rmSync(work, { recursive: true, force: true });
console.log(`wrote the Site section of ${file}`);
