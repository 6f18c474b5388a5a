// Runs a real pi or omp in `--mode rpc` (JSON lines on stdin/stdout) against the fake model, with
// its own HOME so nothing leaks between tests or into the developer's setup.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ROOT } from "../helpers.ts";

export const AGENTS_DIR = join(import.meta.dir, "agents");
const modules = join(AGENTS_DIR, "node_modules");

export interface AgentKind {
  name: string;
  harness: "pi" | "omp";
  cli: string;
}

export const AGENTS: AgentKind[] = [
  { name: "pi 0.87.1", harness: "pi", cli: join(modules, "pi-0.87.1", "dist", "bundle", "cli.js") },
  { name: "pi 1.6.0", harness: "pi", cli: join(modules, "pi-1.6.0", "dist", "bundle", "cli.js") },
  { name: "omp 18.2.3", harness: "omp", cli: join(modules, "@oh-my-pi", "pi-coding-agent", "dist", "cli.js") },
];

export const agentsInstalled = () => AGENTS.every((a) => existsSync(a.cli));

/** Points the agent at the fake model; a small keepRecentTokens makes a short session compactable. */
export function configureAgent(kind: AgentKind, home: string, baseUrl: string): void {
  const model = {
    id: "fake-model",
    name: "Fake",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128000,
    maxTokens: 4096,
  };
  if (kind.harness === "pi") {
    const dir = join(home, ".pi", "agent");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "models.json"),
      JSON.stringify({ providers: { fake: { baseUrl, api: "openai-completions", apiKey: "fake-key", models: [model] } } }),
    );
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 50 } }));
  } else {
    const dir = join(home, ".omp", "agent");
    mkdirSync(dir, { recursive: true });
    // JSON is YAML, so the same structure serves omp's models.yml and config.yml.
    writeFileSync(
      join(dir, "models.yml"),
      JSON.stringify({ providers: { fake: { baseUrl, api: "openai-completions", apiKey: "fake-key", models: [model] } } }),
    );
    writeFileSync(join(dir, "config.yml"), JSON.stringify({ compaction: { keepRecentTokens: 50 } }));
  }
}

export type Frame = Record<string, any>;

export class RpcAgent {
  readonly frames: Frame[] = [];
  stderr = "";
  private proc: Subprocess<"pipe", "pipe", "pipe">;
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  private seq = 0;
  readonly exited: Promise<number>;

  constructor(kind: AgentKind, opts: { env: Record<string, string>; cwd: string; args?: string[] }) {
    const modelArgs = kind.harness === "pi" ? ["--provider", "fake", "--model", "fake-model"] : ["--model", "fake/fake-model"];
    // Both agents run under the Bun that runs the tests (pi needs a newer Node than CI may have).
    this.proc = Bun.spawn([process.execPath, kind.cli, "--mode", "rpc", ...modelArgs, ...(opts.args ?? [])], {
      cwd: opts.cwd,
      env: { ...opts.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${opts.env.PATH}`, PI_OFFLINE: "1", PI_NO_TITLE: "1" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.exited = this.proc.exited;
    void this.read();
    void new Response(this.proc.stderr).text().then((t) => (this.stderr = t));
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of this.proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        let frame: Frame;
        try {
          frame = JSON.parse(line);
        } catch {
          continue; // not a protocol line
        }
        this.frames.push(frame);
        for (const w of [...this.waiters]) {
          if (w.pred(frame)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(frame);
          }
        }
      }
    }
  }

  waitFor(pred: (f: Frame) => boolean, what: string, ms = 60_000, from = 0): Promise<Frame> {
    const hit = this.frames.slice(from).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr.slice(-2000)}`));
      }, ms);
      const waiter = { pred, resolve: (f: Frame) => (clearTimeout(timer), resolve(f)) };
      this.waiters.push(waiter);
    });
  }

  /** Sends one command and returns its response frame. */
  async request(command: Frame): Promise<Frame> {
    const id = `r${++this.seq}`;
    this.proc.stdin.write(JSON.stringify({ id, ...command }) + "\n");
    this.proc.stdin.flush();
    const res = await this.waitFor((f) => f.type === "response" && f.id === id, `response to ${command.type}`);
    if (!res.success) throw new Error(`${command.type} failed: ${JSON.stringify(res.error ?? res)}`);
    return res;
  }

  /** Sends a prompt and waits until the run it starts has ended. */
  async prompt(message: string): Promise<void> {
    const mark = this.frames.length;
    await this.request({ type: "prompt", message });
    await this.waitFor((f) => f.type === "agent_end", `the end of the run for ${JSON.stringify(message.slice(0, 40))}`, 60_000, mark);
  }

  async state(): Promise<{ sessionFile?: string; sessionId: string }> {
    return (await this.request({ type: "get_state" })).data;
  }

  /** Closes stdin, as a user ending the session would, and measures how long the agent takes to exit. */
  async close(): Promise<{ code: number; ms: number; exitedAt: number }> {
    const start = performance.now();
    this.proc.stdin.end();
    const code = await Promise.race([this.exited, Bun.sleep(20_000).then(() => -1)]);
    if (code === -1) this.proc.kill("SIGKILL");
    return { code, ms: performance.now() - start, exitedAt: Date.now() };
  }
}
