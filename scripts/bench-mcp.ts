// What a running `rkb mcp` buys over a `rkb tool` process per call: the same rkb_search, timed as a
// tools/call round trip to one server (from writing the request line to reading the reply) and as
// a whole `rkb tool rkb_search` process, on generated knowledge bases of 100, 1,000 and 10,000
// lessons. Also times the part every call keeps, the stat walk that checks the index is current.
// Writes the `## MCP server` section of BENCHMARKS.md. Run: `bun scripts/bench-mcp.ts [--runs 30]`.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { kbSignature } from "../cli/kb/signature.ts";
import { makeKb } from "./bench-kb.ts";
import { isolatedEnv, median } from "./bench-run.ts";
import { build } from "./build.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "30" } } });
const RUNS = Number(values.runs);
const SIZES = [100, 1_000, 10_000];
// Words the generated lessons use, so every call ranks many hits (the check below insists on some).
const QUERY = { query: "network mount denied after cmake install" };
const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "rkb-bench-mcp-"));
const bin = join(work, "rkb");
await build(bin);
const env = isolatedEnv(work);

function processPerCall(kbEnv: Record<string, string>): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = Bun.nanoseconds();
    const p = Bun.spawnSync([bin, "tool", "rkb_search"], { env: kbEnv, cwd: work, stdin: new Blob([JSON.stringify(QUERY)]), stdout: "pipe" });
    times.push((Bun.nanoseconds() - t0) / 1e6);
    if (p.exitCode !== 0 || !/^results\[[1-9]/m.test(p.stdout.toString())) throw new Error(`rkb tool exited ${p.exitCode} or found nothing: ${p.stdout}`);
  }
  return median(times);
}

/** The first call (the server reads the index cache) and the median of the calls after it. */
async function serverCalls(kbEnv: Record<string, string>): Promise<{ first: number; warm: number }> {
  const proc = Bun.spawn([bin, "mcp"], { env: kbEnv, cwd: work, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let id = 0;
  const call = async (method: string, params: unknown): Promise<any> => {
    proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) + "\n");
    proc.stdin.flush();
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("rkb mcp closed its output");
      buffered += decoder.decode(value, { stream: true });
    }
    const at = buffered.indexOf("\n");
    const reply = JSON.parse(buffered.slice(0, at));
    buffered = buffered.slice(at + 1);
    if (reply.error || reply.result.isError) throw new Error(`rkb mcp: ${JSON.stringify(reply)}`);
    if (method === "tools/call" && !/^results\[[1-9]/m.test(reply.result.content[0].text)) throw new Error(`rkb mcp found nothing: ${JSON.stringify(reply)}`);
    return reply.result;
  };
  await call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } });
  const timed = async () => {
    const t0 = Bun.nanoseconds();
    await call("tools/call", { name: "rkb_search", arguments: QUERY });
    return (Bun.nanoseconds() - t0) / 1e6;
  };
  const first = await timed();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await timed());
  proc.stdin.end();
  await proc.exited;
  return { first, warm: median(times) };
}

function statWalk(kb: string): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = Bun.nanoseconds();
    kbSignature(kb);
    times.push((Bun.nanoseconds() - t0) / 1e6);
  }
  return median(times);
}

const loadBefore = loadavg()[0]!;
const rows: string[] = [];
for (const size of SIZES) {
  const kb = makeKb(work, size);
  const kbEnv = { ...env, RKB_HOME: kb };
  Bun.spawnSync([bin, "search", "warm the index cache"], { env: kbEnv, cwd: work, stdout: "ignore" });
  const perProcess = processPerCall(kbEnv);
  const server = await serverCalls(kbEnv);
  const walk = statWalk(kb);
  rows.push(
    `| ${size.toLocaleString("en-US")} | ${perProcess.toFixed(1)} ms | ${server.warm.toFixed(1)} ms | ${(perProcess / server.warm).toFixed(1)}× | ${server.first.toFixed(1)} ms | ${walk.toFixed(1)} ms |`,
  );
  console.log(
    `${size} lessons: process ${perProcess.toFixed(1)} ms, server ${server.warm.toFixed(1)} ms (first ${server.first.toFixed(1)} ms), stat walk ${walk.toFixed(1)} ms`,
  );
}

const section = [
  "## MCP server",
  "",
  `One \`rkb_search\` call with a query that hits many lessons: a \`rkb tool rkb_search\` process per call (what the pi/omp extension runs) against a \`tools/call\` round trip to one running \`rkb mcp\` (request line written to reply line read), median of ${RUNS} calls each, index cache warm on disk. The first server call reads the cache file; later calls reuse the index the server holds while the knowledge base's signature matches. Every call still stats each lesson file (last column, timed in-process), so an edit in place is seen by the next call. Generated by \`bun scripts/bench-mcp.ts\` on ${new Date().toISOString().slice(0, 10)}, load average ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} on 2 cores: compare the columns of one row, not runs.`,
  "",
  "| lessons | process per call | server call | gain | first server call | stat walk |",
  "|---:|---:|---:|---:|---:|---:|",
  ...rows,
  "",
].join("\n");
const file = join(root, "BENCHMARKS.md");
const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n\n";
const pattern = /## MCP server\n[\s\S]*?(?=\n## |$)/;
writeFileSync(file, pattern.test(current) ? current.replace(pattern, section.trimEnd() + "\n") : current.trimEnd() + "\n\n" + section);
rmSync(work, { recursive: true, force: true });
console.log(`wrote the MCP server section of ${file}`);
