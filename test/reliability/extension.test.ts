// The pi/omp extension against binaries that misbehave: missing, hanging, ignoring SIGTERM while
// its children run on, printing garbage, printing without end, and exiting with codes rkb never
// uses. Small shell scripts stand in for rkb at the path the installed extension runs. The
// extension is loaded twice over: in-process with a recording stand-in for pi's API (every case,
// fast), and inside a real pi over RPC against the fake model (the hanging and the huge-printing
// binary), where the time the agent waits is measured.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extensionText } from "../../cli/install/index.ts";
import { AGENTS, agentsInstalled, configureAgent, RpcAgent } from "../e2e/agent.ts";
import { FakeLlm, type Step } from "../e2e/fake-llm.ts";
import { BIN, ROOT, sandbox } from "../helpers.ts";

// The extension's budgets (extension/rkb.ts): a hook or the load waits this long at most.
const HOOK_MS = 5_000;
const MAX_OUTPUT_BYTES = 1 << 20;
// Starting a process on a loaded machine is slow; the slack is for that, never for a second budget.
const SLACK_MS = 2_500;

const box = sandbox("rkb-ext");
const surface = Bun.spawnSync([BIN, "tools", "--format", "json"], { env: box.env }).stdout.toString();
const surfaceFile = join(box.dir, "surface.json");
writeFileSync(surfaceFile, surface);
// The in-process copies import typebox as the installed extension does.
symlinkSync(join(ROOT, "node_modules"), join(box.dir, "node_modules"));

/** A fake rkb: `tools` answers with `onTools`, everything else runs `onOther`. Each run logs its pid and its children's. */
function fakeBin(name: string, onTools: string, onOther: string): { path: string; pids: string } {
  const dir = join(box.dir, name);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "rkb");
  const pids = join(dir, "pids");
  writeFileSync(path, `#!/bin/sh\necho $$ >> ${pids}\nif [ "$1" = tools ]; then\n${onTools}\nelse\n${onOther}\nfi\n`);
  chmodSync(path, 0o755);
  return { path, pids };
}

const REAL_TOOLS = `cat ${surfaceFile}`;
// Ignores SIGTERM and leaves a grandchild that would outlive it if only the binary were killed.
const HANG = `trap '' TERM\nsleep 300 &\necho $! >> "$(dirname "$0")/pids"\nwhile :; do sleep 1; done`;
const GARBAGE = `printf '\\000\\377\\376garbage {{{\\n'; head -c 2000 /dev/urandom`;
const HUGE = `yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'`;

/** Running, as opposed to gone or a zombie that only waits to be reaped. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
/** The logged processes still running after a moment for the kill to land. */
async function survivors(file: string): Promise<number[]> {
  for (let i = 0; i < 20 && loggedPids(file).some(alive); i++) await Bun.sleep(100);
  return loggedPids(file).filter(alive);
}
const loggedPids = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : []);
afterAll(() => {
  // Nothing a fake started may outlive the test, whatever it asserted.
  for (const dir of ["hang", "hang-hooks", "huge", "pi-hang", "pi-huge"])
    for (const pid of loggedPids(join(box.dir, dir, "pids"))) if (alive(pid)) process.kill(pid, "SIGKILL");
});

/** pi's API as far as the extension uses it, recording what the extension registers. */
function fakePi() {
  const handlers = new Map<string, (event: unknown, ctx: unknown) => Promise<unknown>>();
  const tools = new Map<string, { execute: (...a: unknown[]) => Promise<{ content: { text: string }[] }> }>();
  const notices: string[] = [];
  const ctx = {
    cwd: box.dir,
    hasUI: true,
    ui: { notify: (message: string) => notices.push(message) },
    sessionManager: { getSessionId: () => "s1", getSessionFile: () => undefined },
    isIdle: () => true,
  };
  const api = {
    registerTool: (t: { name: string; execute: never }) => tools.set(t.name, t),
    registerCommand: () => {},
    sendUserMessage: () => {},
    on: (event: string, handler: never) => handlers.set(event, handler),
  };
  return { api, handlers, tools, notices, ctx };
}

let loads = 0;
/** Loads a fresh copy of the installed extension pointing at bin; returns the recorder and the load time. */
async function loadExtension(bin: string) {
  const file = join(box.dir, `ext-${++loads}.ts`);
  writeFileSync(file, extensionText("pi", bin));
  const pi = fakePi();
  const start = performance.now();
  await (await import(file)).default(pi.api);
  await pi.handlers.get("session_start")!({ type: "session_start" }, pi.ctx);
  return { ...pi, loadMs: performance.now() - start };
}

const failedBash = {
  toolName: "bash",
  input: { command: "make" },
  isError: true,
  content: [{ type: "text", text: "make: *** No rule to make target 'all'." }],
};

describe("the extension in-process, against a broken binary", () => {
  test("missing: no tools, the notice says it is not installed and how to install it, hooks are silent", async () => {
    const ext = await loadExtension(join(box.dir, "nowhere", "rkb"));
    expect(ext.tools.size).toBe(0);
    expect(ext.notices).toEqual([expect.stringContaining(`rkb is not installed at ${join(box.dir, "nowhere", "rkb")}`)]);
    expect(ext.notices[0]).toContain("rkb install pi");
    expect(await ext.handlers.get("tool_result")!(failedBash, ext.ctx)).toBeUndefined();
  });

  test("hanging and ignoring SIGTERM while loading: the load takes one budget, the binary and its child are killed, hooks then skip it", async () => {
    const bin = fakeBin("hang", HANG, HANG);
    const ext = await loadExtension(bin.path);
    expect(ext.loadMs).toBeGreaterThanOrEqual(HOOK_MS - 100);
    expect(ext.loadMs).toBeLessThan(HOOK_MS + SLACK_MS);
    expect(ext.notices).toEqual([`rkb tools did not finish within ${HOOK_MS / 1000} s and was stopped`]);
    expect(loggedPids(bin.pids).length).toBe(2); // the binary and the sleep it left behind
    expect(await survivors(bin.pids)).toEqual([]);
    // The session-start hook above was skipped (it would have been a second budget); so are the next ones.
    const start = performance.now();
    expect(await ext.handlers.get("tool_result")!(failedBash, ext.ctx)).toBeUndefined();
    expect(await ext.handlers.get("before_agent_start")!({ prompt: "how do I build this" }, ext.ctx)).toBeUndefined();
    expect(performance.now() - start).toBeLessThan(SLACK_MS);
    expect(loggedPids(bin.pids).length).toBe(2);
  }, 30_000);

  test("tools answer, hooks hang: one hook waits one budget and kills the group, the next ones do not wait", async () => {
    const bin = fakeBin("hang-hooks", REAL_TOOLS, HANG);
    const ext = await loadExtension(bin.path); // session_start's hook hangs here
    expect(ext.tools.size).toBeGreaterThan(0);
    expect(ext.loadMs).toBeLessThan(HOOK_MS + SLACK_MS);
    expect(ext.notices).toEqual([]);
    expect(await survivors(bin.pids)).toEqual([]);
    const start = performance.now();
    for (let i = 0; i < 3; i++) expect(await ext.handlers.get("tool_result")!(failedBash, ext.ctx)).toBeUndefined();
    expect(performance.now() - start).toBeLessThan(SLACK_MS);
  }, 30_000);

  test("garbage on stdout: no tools, the notice names the problem; a hook's garbage never reaches the model", async () => {
    const loading = await loadExtension(fakeBin("garbage", GARBAGE, GARBAGE).path);
    expect(loading.tools.size).toBe(0);
    expect(loading.notices).toEqual([expect.stringContaining("rkb tools printed something that is not text")]);
    const ext = await loadExtension(fakeBin("garbage-hooks", REAL_TOOLS, GARBAGE).path);
    expect(await ext.handlers.get("tool_result")!(failedBash, ext.ctx)).toBeUndefined();
    expect(await ext.handlers.get("before_agent_start")!({ prompt: "how do I build this" }, ext.ctx)).toBeUndefined();
    await expect(ext.tools.get("rkb_search")!.execute("id", { query: "x" }, undefined, undefined, ext.ctx)).rejects.toThrow(/not text/);
  });

  test("printing without end: the read stops at the cap, the group is killed, nothing of it is kept", async () => {
    const bin = fakeBin("huge", HUGE, HUGE);
    const ext = await loadExtension(bin.path);
    expect(ext.loadMs).toBeLessThan(SLACK_MS);
    expect(ext.notices).toEqual([`rkb tools printed more than ${MAX_OUTPUT_BYTES >> 20} MiB, which no rkb answer is; it was stopped`]);
    expect(await survivors(bin.pids)).toEqual([]);
  });

  test("each exit code is named for what it is, never as 'not installed'", async () => {
    const cases: [number, RegExp][] = [
      [1, /rkb tools failed: it broke/],
      [2, /called wrongly.*different rkb versions/],
      [126, /cannot be run/],
      [127, /could not start a program/],
      [134, /exit code 134, which rkb never uses/],
    ];
    for (const [code, message] of cases) {
      const ext = await loadExtension(fakeBin(`exit-${code}`, `echo it broke >&2; exit ${code}`, `exit ${code}`).path);
      expect(ext.notices).toEqual([expect.stringMatching(message)]);
      expect(ext.notices[0]).not.toContain("not installed");
    }
    const killed = await loadExtension(fakeBin("segv", "kill -SEGV $$", "exit 0").path);
    expect(killed.notices).toEqual(["rkb tools was killed by SIGSEGV"]);
    // A tool whose binary fails without saying why: the error says how it ended.
    const ext = await loadExtension(fakeBin("tool-exit", REAL_TOOLS, "exit 70").path);
    await expect(ext.tools.get("rkb_search")!.execute("id", { query: "x" }, undefined, undefined, ext.ctx)).rejects.toThrow(
      /exit code 70, which rkb never uses/,
    );
  });
});

const pi = AGENTS.find((a) => a.name === "pi 1.6.0")!;
const SCENARIOS: Record<string, Step[]> = {
  fail: [{ tool: "bash", args: { command: "false" } }],
  search: [{ tool: "rkb_search", args: { query: "cmake zlib" } }],
};

/** A real pi with the extension installed for bin; returns it with the time until it answered its first request. */
async function startPi(bin: string) {
  if (!agentsInstalled()) throw new Error("the e2e agents are not installed: run `npm test` (its pretest installs them)");
  const world = sandbox("rkb-ext-pi");
  const llm = new FakeLlm(SCENARIOS);
  configureAgent(pi, world.home, llm.baseUrl);
  const dir = join(world.home, ".pi", "agent", "extensions");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "rkb.ts"), extensionText("pi", bin));
  const start = performance.now();
  const agent = new RpcAgent(pi, { env: world.env, cwd: world.home });
  await agent.state();
  return { agent, llm, startMs: performance.now() - start };
}

/** A real pi on bin: how long it took to start, and one prompt that runs a failing command; check runs before it closes. */
async function timedPi(bin: string, check?: (llm: FakeLlm) => Promise<void>) {
  const { agent, llm, startMs } = await startPi(bin);
  try {
    const turn = performance.now();
    await agent.prompt("[scenario:fail] run it");
    const turnMs = performance.now() - turn;
    await check?.(llm);
    return { startMs, turnMs };
  } finally {
    await agent.close();
    llm.stop();
  }
}

describe("the extension in a real pi, against a broken binary", () => {
  test("hanging on every hook: start-up waits one budget at most, a prompt with a failed command none more", async () => {
    // pi's own start-up and turn, measured with a binary whose hooks answer at once, so that a
    // loaded machine (a slow pi) does not count as time the extension waited.
    const quick = await timedPi(fakeBin("pi-quick", REAL_TOOLS, "exit 0").path);
    const bin = fakeBin("pi-hang", REAL_TOOLS, HANG);
    const hang = await timedPi(bin.path, async (llm) => {
      expect(llm.toolResultFor("bash")).not.toContain("rkb");
      expect(await survivors(bin.pids)).toEqual([]);
    });
    // Start-up ran the session-start hook into its budget, once.
    expect(hang.startMs - quick.startMs).toBeLessThan(HOOK_MS + SLACK_MS);
    // The prompt hook and the failed command's hook were skipped: the turn costs no budget.
    expect(hang.turnMs - quick.turnMs).toBeLessThan(SLACK_MS);
  }, 90_000);

  test("printing 300 MB: the tool call ends at the 1 MiB cap within seconds, the model gets a short error", async () => {
    const bin = fakeBin("pi-huge", REAL_TOOLS, "head -c 300000000 /dev/zero | tr '\\000' x");
    const { agent, llm } = await startPi(bin.path);
    try {
      const turn = performance.now();
      await agent.prompt("[scenario:search] look it up");
      expect(performance.now() - turn).toBeLessThan(HOOK_MS + SLACK_MS);
      const result = llm.toolResultFor("rkb_search")!;
      expect(result).toContain("printed more than 1 MiB");
      expect(result.length).toBeLessThan(1000);
      expect(agent.frames.find((f) => f.type === "tool_execution_end" && f.toolName === "rkb_search")?.isError).toBe(true);
      expect(await survivors(bin.pids)).toEqual([]);
    } finally {
      await agent.close();
      llm.stop();
    }
  }, 60_000);
});
