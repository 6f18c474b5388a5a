// rkb for pi and omp: maps agent events to the rkb binary. Every decision (what to search, what to
// inject, what to capture) lives in the binary; this file only knows the binary's path, which event
// calls which `rkb` command, how long it may wait, and how an exit code becomes a result or an error.
// `rkb install pi|omp` writes a copy with the two constants below filled in.
import type { ExtensionAPI, ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { spawn } from "node:child_process";

const RKB: string = "__RKB_BIN__";
const HARNESS: string = "__RKB_HARNESS__";

// Budgets: a hook may hold up the agent this long at most, and so may loading the tool list (omp
// kills shutdown handlers after 2 s, so shutdown does not wait at all); a tool call may take
// longer because the model waits for it. A call that runs out of budget is killed with its whole
// process group, and hooks then leave the binary alone for PAUSE_MS, so a hung rkb costs the agent
// one budget per pause, not one per event.
const HOOK_MS = 5_000;
const TOOL_MS = 60_000;
const PAUSE_MS = 60_000;
// rkb's largest answers (the tool list, a long rkb_show) are tens of KB; 1 MiB is far past any of
// them yet small for the agent's memory and a model's context. A binary that prints more is broken
// and is stopped, rather than its output being held or handed to the model.
const MAX_OUTPUT_BYTES = 1 << 20;
const MAX_STDERR_BYTES = 4 << 10;

const NOT_INSTALLED = `rkb is not installed at ${RKB}. Install rkb, then run \`rkb install ${HARNESS}\` so this extension points at it.`;

interface Surface {
  tools: { name: string; label: string; description: string; snippet: string; inputSchema: Record<string, unknown> }[];
  commands: { name: string; description: string; prompt: string; arguments_token: string }[];
}

// omp-only parts, typed here because pi's types do not have them.
interface OmpSessionStopEvent {
  type: "session_stop";
  stop_hook_active: boolean;
}
interface OmpSessionStopResult {
  continue?: boolean;
  additionalContext?: string;
}
interface OmpEvents {
  on(event: "session_stop", handler: (event: OmpSessionStopEvent, ctx: ExtensionContext) => Promise<OmpSessionStopResult | undefined>): void;
}
type OmpToolDefinition = ToolDefinition & { loadMode: "essential" };

const childEnv = () => ({ ...process.env, RKB_HARNESS: HARNESS });

interface Ran {
  code: number | null;
  stdout: string;
  /** Set when the binary did not answer normally: what went wrong, in words for the user. */
  problem?: string;
}

/** What an exit code of rkb means (0 ok, 1 error or findings, 2 usage, 3 needs the user; see `rkb --help`). */
function exitProblem(what: string, code: number | null, signal: NodeJS.Signals | null, stderr: string): string | undefined {
  const said = stderr.trim().split("\n").slice(-3).join(" ").slice(0, 500);
  const tail = said ? `: ${said}` : "";
  if (signal) return `${what} was killed by ${signal}${tail}`;
  if (code === 0 || code === 3) return undefined;
  if (code === 1) return `${what} failed${tail}`;
  if (code === 2) return `${what} was called wrongly (this extension and the binary may be from different rkb versions; run \`rkb install ${HARNESS}\`)${tail}`;
  if (code === 126) return `${RKB} cannot be run (not executable, or built for another system)${tail}`;
  if (code === 127) return `${RKB} could not start a program it needs${tail}`;
  return `${what} stopped with exit code ${code}, which rkb never uses (a crash or a different program at ${RKB})${tail}`;
}

/** After a call ran out of budget, hooks skip the binary until this time. */
let pausedUntil = 0;

/**
 * Runs `rkb <args>` with `input` on stdin in its own process group; kills the whole group when
 * the budget or the signal ends it, or when it prints more than MAX_OUTPUT_BYTES. Never rejects.
 */
function run(args: string[], input: string, budgetMs: number, signal?: AbortSignal): Promise<Ran> {
  const what = `rkb ${args[0]}`;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = "";
    let done = false;
    const text = new TextDecoder("utf-8", { fatal: true });
    const finish = (r: Ran) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(r);
    };
    // detached: the binary leads a new process group, so killing -pid also ends what it started.
    const child = spawn(RKB, args, { stdio: ["pipe", "pipe", "pipe"], env: childEnv(), detached: true });
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is gone already, or was never made
      }
    };
    const stop = (problem: string) => {
      killGroup();
      finish({ code: null, stdout: "", problem });
    };
    const timer = setTimeout(() => {
      pausedUntil = Date.now() + PAUSE_MS;
      stop(`${what} did not finish within ${budgetMs / 1000} s and was stopped`);
    }, budgetMs);
    const onAbort = () => stop("cancelled");
    signal?.addEventListener("abort", onAbort);
    if (signal?.aborted) onAbort();
    child.on("error", (e: NodeJS.ErrnoException) =>
      finish({
        code: null,
        stdout: "",
        problem:
          e.code === "ENOENT"
            ? NOT_INSTALLED
            : e.code === "EACCES"
              ? `${RKB} is not executable (chmod +x it, or run \`rkb install ${HARNESS}\` again)`
              : `${what} did not run: ${e.message}`,
      }),
    );
    child.stdout.on("data", (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_OUTPUT_BYTES) stop(`${what} printed more than ${MAX_OUTPUT_BYTES >> 20} MiB, which no rkb answer is; it was stopped`);
      else out.push(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += d.toString("utf8").slice(0, MAX_STDERR_BYTES - stderr.length);
    });
    child.on("close", (code, sig) => {
      const problem = exitProblem(what, code, sig, stderr);
      let stdout: string;
      try {
        stdout = text.decode(Buffer.concat(out));
      } catch {
        stdout = "\0";
      }
      // rkb prints UTF-8 text; anything else comes from a broken binary or another program.
      if (stdout.includes("\0"))
        finish({
          code,
          stdout: "",
          problem: problem ?? `${what} printed something that is not text (${RKB} may be another program); run \`rkb install ${HARNESS}\``,
        });
      else finish({ code, stdout, problem });
    });
    child.stdin.on("error", () => {}); // the binary may exit before reading everything
    child.stdin.end(input);
  });
}

/** The session fields every hook payload carries. */
function session(ctx: ExtensionContext) {
  return {
    session_id: ctx.sessionManager.getSessionId(),
    session_file: ctx.sessionManager.getSessionFile(), // undefined with --no-session
    cwd: ctx.cwd,
    harness: HARNESS,
  };
}

/** `rkb hook <event>` with a JSON payload; its output is text for the model, or "" for nothing. */
async function hook(event: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
  if (Date.now() < pausedUntil) return "";
  const r = await run(["hook", event], JSON.stringify(payload), HOOK_MS, signal);
  return r.code === 0 && !r.problem ? r.stdout.trim() : "";
}

/**
 * Capture hooks get the payload as flags from a detached child that outlives the agent; waits up to
 * `waitMs` for it (0: not at all), then leaves it running.
 */
function capture(event: string, ctx: ExtensionContext, sessionFile: string, waitMs: number, reason?: string): Promise<void> {
  const s = session(ctx);
  const flags = ["--session-file", sessionFile, "--session-id", s.session_id, "--cwd", s.cwd, "--harness", HARNESS, ...(reason ? ["--reason", reason] : [])];
  const child = spawn(RKB, ["hook", event, ...flags], { detached: true, stdio: "ignore", env: childEnv() });
  child.on("error", () => {}); // a missing binary is reported when a tool is used
  child.unref();
  if (waitMs <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    child.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A handler that never throws into the agent: rkb trouble must not break a session. */
function guard<E, R>(fn: (event: E, ctx: ExtensionContext) => Promise<R> | R) {
  return async (event: E, ctx: ExtensionContext): Promise<R | undefined> => {
    try {
      return await fn(event, ctx);
    } catch {
      return;
    }
  };
}

/** The tools and commands the binary offers, or why there are none. */
async function readSurface(): Promise<{ surface?: Surface; problem?: string }> {
  const r = await run(["tools", "--format", "json"], "", HOOK_MS);
  if (r.problem || r.code !== 0) return { problem: r.problem ?? `rkb tools stopped with exit code ${r.code}` };
  try {
    const surface = JSON.parse(r.stdout) as Surface;
    if (Array.isArray(surface.tools) && Array.isArray(surface.commands)) return { surface };
  } catch {
    // reported below
  }
  return { problem: `rkb tools did not print its tool list (${RKB} may be another program or another rkb version); run \`rkb install ${HARNESS}\`` };
}

export default async function rkb(pi: ExtensionAPI) {
  // Loading waits for the binary at most one hook budget; without an answer there are no tools.
  const { surface, problem: loadProblem } = await readSurface();

  for (const t of surface?.tools ?? []) {
    const tool: OmpToolDefinition = {
      name: t.name,
      label: t.label,
      description: t.description,
      promptSnippet: t.snippet,
      parameters: Type.Unsafe(t.inputSchema),
      loadMode: "essential", // omp keeps extension tools away from the model otherwise
      async execute(_id, params, signal, _onUpdate, ctx) {
        const s = session(ctx);
        const args = ["tool", t.name, "--toon", "--session-id", s.session_id, "--cwd", s.cwd, "--harness", HARNESS];
        if (s.session_file) args.push("--session-file", s.session_file);
        const r = await run(args, JSON.stringify(params ?? {}), TOOL_MS, signal);
        // Exit 3 asks the user a question: a normal answer for the model, not an error.
        if (!r.problem) return { content: [{ type: "text", text: r.stdout.trim() }], details: {} };
        // Throwing is how pi and omp mark a tool result as an error the model sees. On exit 1 and
        // 2 rkb prints its own error record (what went wrong and the fix) for the model.
        throw new Error((r.code === 1 || r.code === 2) && r.stdout.trim() ? r.stdout.trim() : r.problem);
      },
    };
    pi.registerTool(tool);
  }

  for (const c of surface?.commands ?? []) {
    pi.registerCommand(c.name, {
      description: c.description,
      handler: async (args, ctx) => {
        try {
          const prompt = c.prompt.replace(c.arguments_token, args.trim() || "none");
          if (ctx.isIdle()) pi.sendUserMessage(prompt);
          else pi.sendUserMessage(prompt, { deliverAs: "followUp" });
        } catch {
          // a command that cannot send leaves the session as it was
        }
      },
    });
  }

  // Context for the model goes into the next turn as a custom message; putting it in the system
  // prompt would change the prompt and spoil the provider's prompt cache.
  let startText = "";
  // True after rkb's stop nudge made the agent continue, so the next stop does not nudge again.
  let nudged = false;

  pi.on(
    "session_start",
    guard(async (_event, ctx) => {
      if (loadProblem && ctx.hasUI) ctx.ui.notify(loadProblem, "warning");
      startText = await hook("session-start", session(ctx));
    }),
  );

  pi.on(
    "before_agent_start",
    guard(async (event, ctx) => {
      // Recall runs here rather than on `input`: omp fires `input` only in its interactive UI.
      const prompt = "prompt" in event && typeof event.prompt === "string" ? event.prompt : "";
      const recall = prompt ? await hook("prompt", { ...session(ctx), prompt }) : "";
      const content = [startText, recall].filter(Boolean).join("\n\n");
      startText = "";
      if (!content) return;
      return { message: { customType: "rkb", content, display: false } };
    }),
  );

  pi.on(
    "tool_result",
    guard(async (event, ctx) => {
      if (event.toolName !== "bash" || typeof event.input.command !== "string") return;
      const payload = { ...session(ctx), command: event.input.command };
      if (!event.isError) {
        void hook("tool-ok", payload); // bookkeeping only: the agent need not wait
        return;
      }
      const error = event.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
      const block = await hook("tool-failed", { ...payload, error });
      if (!block) return;
      return { content: [...event.content, { type: "text" as const, text: block }] };
    }),
  );

  pi.on(
    "session_before_compact",
    guard(async (_event, ctx) => {
      const file = ctx.sessionManager.getSessionFile();
      if (file) await capture("pre-compact", ctx, file, HOOK_MS);
      // returning nothing leaves the compaction as the agent planned it
    }),
  );

  pi.on(
    "session_shutdown",
    guard((event, ctx) => {
      const file = ctx.sessionManager.getSessionFile();
      if (!file) return; // --no-session: nothing to capture
      const reason = "reason" in event && typeof event.reason === "string" ? event.reason : undefined; // omp gives none
      void capture("session-end", ctx, file, 0, reason);
    }),
  );

  // Optional stop nudge (off unless the user turns it on in rkb's config; the binary decides).
  pi.on(
    "agent_before_settle",
    guard(async (event, ctx) => {
      if (event.outcome !== "completed" || !event.context.canContinue) return;
      const note = await hook("stop", { ...session(ctx), stop_hook_active: nudged });
      nudged = Boolean(note);
      if (!note) return;
      return { entries: [...event.entries, { type: "custom_message" as const, customType: "rkb", content: note, display: false }], continue: true };
    }),
  );
  (pi as unknown as OmpEvents).on(
    "session_stop",
    guard(async (event: OmpSessionStopEvent, ctx) => {
      const note = await hook("stop", { ...session(ctx), stop_hook_active: event.stop_hook_active });
      return note ? { continue: true, additionalContext: note } : undefined;
    }),
  );
}
