// Capture on sessions the real agents write: pi 0.87.1, pi 1.6.0, omp 18.2.3 (RPC) and Claude Code
// 2.1.332 (`claude -p`), each against a scripted model, with the shapes real sessions have and
// written ones lacked: parallel tool calls, a compaction between a failure and its fix, an aborted
// command, a message the user queued while the agent worked, a failure behind `| tail` (exit status
// 0). `rkb extract` then reads the file the agent wrote.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox, type Sandbox, withPrograms } from "../helpers.ts";
import { AGENTS, AGENTS_DIR, agentsInstalled, configureAgent, RpcAgent } from "./agent.ts";
import { FakeAnthropic } from "./fake-anthropic.ts";
import { FakeLlm, type Step } from "./fake-llm.ts";
import { until } from "./world.ts";

if (!agentsInstalled()) throw new Error("the e2e agents are not installed: run `npm test` (its pretest installs them)");
const CLAUDE = join(AGENTS_DIR, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe");

// A build tool that fails until its lock file exists, naming the folder it ran in.
const GADGET = `#!/bin/sh
case "$1" in
  lock) touch gadget.lock; echo "gadget: wrote gadget.lock" ;;
  build) if [ -f gadget.lock ]; then echo "gadget: built 3 targets"; else echo "gadget: error: no gadget.lock in $(pwd); run 'gadget lock' first" >&2; exit 3; fi ;;
esac
`;

/** The same story for every agent: a failure beside a parallel call, a compaction, then its fix. */
const scenarios = (bash: string): Record<string, Step[]> => ({
  first: [
    {
      parallel: [
        { tool: bash, args: { command: "gadget build" } },
        { tool: bash, args: { command: "ls" } },
      ],
    },
  ],
  fix: [
    { tool: bash, args: { command: "gadget lock" } },
    { tool: bash, args: { command: "gadget build" } },
  ],
  look: [
    { tool: bash, args: { command: "echo looking around the project for the build settings" } },
    { tool: bash, args: { command: "echo nothing else to see here, the lock is what is missing" } },
  ],
  wait: [{ tool: bash, args: { command: "sleep 30" } }],
  // `| tail` gives the pipeline tail's exit status: the failure is only in what gadget printed.
  piped: [{ tool: bash, args: { command: "gadget build 2>&1 | tail -1" } }],
  "piped-fix": [
    { tool: bash, args: { command: "gadget lock" } },
    { tool: bash, args: { command: "gadget build 2>&1 | tail -1" } },
  ],
  // omp runs it as a background job and delivers its result after the turn.
  background: [{ tool: bash, args: { command: "gadget build", async: true } }],
  queue: [
    { tool: bash, args: { command: "sleep 3; echo slept" } },
    { tool: bash, args: { command: "echo done" } },
  ],
});

let boxes: Sandbox[] = [];
let servers: { stop(): void }[] = [];
afterEach(() => {
  for (const s of servers) s.stop();
  for (const b of boxes) rmSync(b.dir, { recursive: true, force: true });
  servers = [];
  boxes = [];
});

function world() {
  const box = sandbox("rkb-e2e-capture");
  boxes.push(box);
  const env = withPrograms(box, { gadget: GADGET });
  const proj = join(box.dir, "proj");
  mkdirSync(proj);
  return { box, env, proj };
}

async function extract(env: Record<string, string>, file: string) {
  const r = await rkb(["extract", file, "--dry-run", "--format", "json"], { env });
  expect(r.exit).toBe(0);
  return r.json();
}

/** The one draft the story makes: `gadget build` failed, `gadget lock` fixed it, `gadget build` worked. */
function expectGadgetDraft(summary: any) {
  expect(summary.files.map((f: any) => f.status)).toEqual(["session"]);
  expect(summary.drafts).toHaveLength(1);
  const [draft] = summary.drafts;
  expect(draft).toMatchObject({ program: "gadget", failed: { command: "gadget build", exitCode: 3 }, worked: { command: "gadget build" } });
  expect(draft.fix.map((s: any) => s.command)).toEqual(["gadget lock"]);
  // The folder the agent ran in is the session's working directory: written as `.`.
  expect(draft.failed.keyLines.join("\n")).toContain("no gadget.lock in .;");
  return draft;
}

/** A session of an RPC agent (pi, omp) against the scripted model: `drive` talks to it; the file it wrote. */
async function rpcSession(kind: (typeof AGENTS)[number], drive: (agent: RpcAgent) => Promise<void>) {
  const { box, env, proj } = world();
  const llm = new FakeLlm(scenarios("bash"));
  servers.push(llm);
  configureAgent(kind, box.home, llm.baseUrl);
  const agent = new RpcAgent(kind, { env, cwd: proj });
  try {
    await drive(agent);
    return { env, file: (await agent.state()).sessionFile as string };
  } finally {
    await agent.close();
  }
}

describe.each(AGENTS.map((a) => [a.name, a] as const))("%s", (_name, kind) => {
  test("a failure in a parallel call, compacted away before its fix, is a draft; an aborted command is none", async () => {
    const { env, file } = await rpcSession(kind, async (agent) => {
      await agent.prompt("[scenario:first] build it");
      // One more turn: pi keeps the last turn whole and has nothing to compact before it otherwise.
      await agent.prompt("[scenario:look] look around");
      await agent.request({ type: "compact" });
      await agent.prompt("[scenario:fix] try again");
      const mark = agent.frames.length;
      await agent.request({ type: "prompt", message: "[scenario:wait] wait a while" });
      await agent.waitFor((f) => f.type === "tool_execution_start", "the sleep to start", 30_000, mark);
      await agent.request({ type: "abort" });
      await agent.waitFor((f) => f.type === "agent_end", "the end of the aborted run", 30_000, mark);
    });
    const summary = await extract(env, file);
    expect(summary.files[0]).toMatchObject({ harness: kind.harness, skipped_lines: 0 });
    const draft = expectGadgetDraft(summary);
    // The failure was read from before the compaction.
    const lines = readFileSync(file, "utf8").split("\n");
    const compaction = lines.findIndex((l) => l.includes('"type":"compaction"')) + 1;
    expect(draft.failed.line).toBeLessThan(compaction);
    expect(draft.worked.line).toBeGreaterThan(compaction);
  }, 90_000);

  test("a failure behind `| tail` (exit status 0) is a draft", async () => {
    const { env, file } = await rpcSession(kind, async (agent) => {
      await agent.prompt("[scenario:piped] build it");
      await agent.prompt("[scenario:piped-fix] try again");
    });
    expectPipedDraft(await extract(env, file));
  }, 90_000);
});

describe("omp 18.2.3 background jobs", () => {
  test("a bash job run in the background failed where omp delivered its result; with its fix after it, it is a draft", async () => {
    const omp = AGENTS.find((a) => a.harness === "omp")!;
    const { env, file } = await rpcSession(omp, async (agent) => {
      await agent.prompt("[scenario:background] build it");
      const path = (await agent.state()).sessionFile as string;
      await until("the job's result delivered", () => (readFileSync(path, "utf8").includes('"customType":"async-result"') ? true : undefined));
      await agent.prompt("[scenario:fix] try again");
    });
    const text = readFileSync(file, "utf8");
    expect(text).toContain("Backgrounded as job");
    const draft = expectGadgetDraft(await extract(env, file));
    const delivered = text.split("\n").findIndex((l) => l.includes('"customType":"async-result"')) + 1;
    expect(draft.failed.line).toBe(delivered);
  }, 90_000);
});

/** The draft of the piped story: the failure behind `| tail`, exit status 0, fixed by `gadget lock`. */
function expectPipedDraft(summary: any) {
  expect(summary.drafts).toHaveLength(1);
  const [draft] = summary.drafts;
  expect(draft).toMatchObject({ program: "gadget", failed: { command: "gadget build 2>&1 | tail -1" }, worked: { command: "gadget build 2>&1 | tail -1" } });
  expect(draft.fix.map((s: any) => s.command)).toEqual(["gadget lock"]);
  expect(draft.failed.keyLines.join("\n")).toContain("no gadget.lock in .;");
}

/** One headless Claude Code run in the project; Bash allowed. */
async function claude(env: Record<string, string>, proj: string, llm: FakeAnthropic, args: string[]) {
  const proc = Bun.spawn([CLAUDE, ...args, "--output-format", "json", "--allowedTools", "Bash"], {
    cwd: proj,
    env: { ...env, ANTHROPIC_BASE_URL: llm.baseUrl, ANTHROPIC_API_KEY: "fake-key", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (exit !== 0) throw new Error(`claude exited ${exit}: ${stderr.slice(-2000)}`);
  return JSON.parse(stdout) as { session_id: string };
}

/** The transcript Claude Code wrote for a session, under ~/.claude/projects. */
function transcript(box: Sandbox, sessionId: string): string {
  const root = join(box.home, ".claude", "projects");
  for (const dir of readdirSync(root)) {
    const file = join(root, dir, `${sessionId}.jsonl`);
    if (existsSync(file)) return file;
  }
  throw new Error(`no transcript for ${sessionId}`);
}

describe("Claude Code 2.1.332", () => {
  test("a failure in a parallel call, before /compact, with its fix after it, is a draft", async () => {
    const { box, env, proj } = world();
    const llm = new FakeAnthropic(scenarios("Bash"));
    servers.push(llm);
    const first = await claude(env, proj, llm, ["-p", "[scenario:first] build it"]);
    await claude(env, proj, llm, ["-p", "/compact", "--resume", first.session_id]);
    await claude(env, proj, llm, ["-p", "[scenario:fix] try again", "--resume", first.session_id]);
    const file = transcript(box, first.session_id);
    const summary = await extract(env, file);
    expect(summary.files[0]).toMatchObject({ harness: "claude-code" });
    const draft = expectGadgetDraft(summary);
    const boundary =
      readFileSync(file, "utf8")
        .split("\n")
        .findIndex((l) => l.includes('"compact_boundary"')) + 1;
    expect(boundary).toBeGreaterThan(0);
    expect(draft.failed.line).toBeLessThan(boundary);
  }, 90_000);

  test("a failure behind `| tail` (exit status 0) is a draft", async () => {
    const { box, env, proj } = world();
    const llm = new FakeAnthropic(scenarios("Bash"));
    servers.push(llm);
    const first = await claude(env, proj, llm, ["-p", "[scenario:piped] build it"]);
    await claude(env, proj, llm, ["-p", "[scenario:piped-fix] try again", "--resume", first.session_id]);
    expectPipedDraft(await extract(env, transcript(box, first.session_id)));
  }, 90_000);

  test("a message queued while the agent works is read as the user's words", async () => {
    const { box, env, proj } = world();
    const llm = new FakeAnthropic(scenarios("Bash"));
    servers.push(llm);
    const proc = Bun.spawn([CLAUDE, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"], {
      cwd: proj,
      env: { ...env, ANTHROPIC_BASE_URL: llm.baseUrl, ANTHROPIC_API_KEY: "fake-key", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const say = (text: string) => {
      proc.stdin.write(JSON.stringify({ type: "user", message: { role: "user", content: text } }) + "\n");
      proc.stdin.flush();
    };
    const out = new Response(proc.stdout).text();
    say("[scenario:queue] start");
    // Sent while `sleep 3` runs: Claude Code queues it.
    while (!llm.served.length) await Bun.sleep(50);
    await Bun.sleep(1000);
    say("no, use the staging config instead of the production one");
    while (!llm.served.some((s) => JSON.stringify(s.messages).includes("staging config"))) await Bun.sleep(100);
    await Bun.sleep(500);
    proc.stdin.end();
    const sessionId = /"session_id":"([^"]+)"/.exec(await out)![1]!;
    expect(await proc.exited).toBe(0);
    const file = transcript(box, sessionId);
    const lines = readFileSync(file, "utf8").split("\n");
    const queued = lines.findIndex((l) => l.includes('"queued_command"')) + 1;
    expect(queued).toBeGreaterThan(0);
    const summary = await extract(env, file);
    expect(summary.signals.filter((s: any) => s.kind === "correction")).toMatchObject([
      { line: queued, text: "no, use the staging config instead of the production one" },
    ]);
  }, 90_000);
});
