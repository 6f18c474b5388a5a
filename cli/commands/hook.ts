import { defineCommand, innerContext } from "./_shared.ts";
import contextCommand from "./context.ts";
import { HANDLERS, HOOK_EVENTS, hookCaller, type HookEvent, type HookHost, type HookPayload } from "../agent/hooks/events.ts";
import { expectedValue, inputProblem } from "../base/input.ts";
import { claudeReply, fromClaudeCode } from "../agent/hooks/claude.ts";
import { codexDialect } from "../agent/hooks/codex.ts";
import { dialectReply, type HookDialect } from "../agent/hooks/dialect.ts";
import { geminiDialect } from "../agent/hooks/gemini.ts";
import { logHookError, noteHookCall } from "../machine/state.ts";

// `rkb hook <event>`: what the pi/omp and opencode extensions and the hooks of Claude Code, Codex CLI and
// Gemini CLI call on agent events. It never fails: whatever goes wrong is logged in the state (`rkb
// doctor` shows it), the exit code is 0, and the agent sees nothing. `--harness codex|gemini` says the
// JSON on stdin is that program's own hook payload.

/** The programs whose own hook payloads rkb reads when `--harness` names them (Claude Code's are told by their shape). */
const DIALECTS: Record<string, HookDialect> = { codex: codexDialect, gemini: geminiDialect };
export default defineCommand({
  name: "hook",
  description:
    "Handle one agent event (for the pi/omp and opencode extensions, and the hooks of Claude Code, Codex CLI and Gemini CLI): payload as JSON on stdin, or as flags",
  examples: [
    `echo '{"session_id": "s1", "cwd": "/src/app"}' | rkb hook session-start`,
    "rkb hook session-end --session-file ~/.pi/agent/sessions/x.jsonl --harness pi",
  ],
  input: (Type) =>
    Type.Object(
      {
        event: Type.Optional(Type.String({ description: `One of ${HOOK_EVENTS.join(", ")}` })),
        session_file: Type.Optional(Type.String({ description: "The session's file (a detached caller has no stdin for the payload)" })),
        session_id: Type.Optional(Type.String({ description: "The session's id" })),
        cwd: Type.Optional(Type.String({ description: "The agent's working folder" })),
        harness: Type.Optional(Type.String({ description: "The harness: pi, omp or opencode; codex or gemini when stdin holds that program's own payload" })),
        reason: Type.Optional(Type.String({ description: "Why the session ends" })),
      },
      { additionalProperties: false },
    ),
  cli: {
    positionals: ["event"],
    flags: {
      session_file: { valueHint: "path" },
      session_id: { valueHint: "id" },
      cwd: { valueHint: "dir" },
      harness: { valueHint: "name" },
      reason: { valueHint: "text" },
    },
  },
  run: async (input, ctx) => {
    const { event, ...flags } = input;
    let text = "";
    let harness: string | undefined;
    try {
      if (!event || !(HOOK_EVENTS as readonly string[]).includes(event))
        throw new Error(`unknown hook event \`${event ?? ""}\` (known: ${HOOK_EVENTS.join(", ")})`);
      const raw = await readPayload(flags, ctx.stdinPayload);
      const dialect = flags.harness ? DIALECTS[flags.harness] : undefined;
      const claude = dialect ? undefined : fromClaudeCode(raw);
      const payload = await checkedPayload(dialect?.payload(raw) ?? claude ?? raw);
      harness = payload.harness;
      if (harness) noteHookCall(ctx.env, harness, event);
      text = await HANDLERS[event as HookEvent](payload, { env: ctx.env, caller: hookCaller(payload), host: HOST });
      const programEvent = String(raw.hook_event_name ?? "");
      if (dialect) text = dialectReply(dialect, programEvent, text);
      else if (claude) text = claudeReply(programEvent, text);
    } catch (e) {
      logHookError(ctx.env, event ?? "", harness, e);
      text = "";
    }
    return { data: { output: text }, human: text, raw: true };
  },
});

/** What the hooks need of the commands: session start runs the `context` handler. */
const HOST: HookHost = {
  context: async ({ env, caller }, cwd) => (await contextCommand.run({}, innerContext(env, cwd, caller))).human,
};

async function readPayload(flags: Record<string, string | undefined>, stdin: () => Promise<string>): Promise<Record<string, unknown>> {
  // The payload is JSON on stdin, or flags (a detached caller has no stdin: it reads as empty, as a
  // terminal does), or both: a program's own payload on stdin, with `--harness` naming the program.
  const fromFlags = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined && v !== ""));
  const text = (await stdin()).trim();
  if (!text) return fromFlags;
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the hook payload must be a JSON object");
  return { ...(parsed as Record<string, unknown>), ...fromFlags };
}

/**
 * The payload checked against its one schema (null counts as absent, as in a tool call). Loaded
 * here, not at the top: the inputs module must not load with a command (its macro loads them all).
 */
async function checkedPayload(payload: Record<string, unknown>): Promise<HookPayload> {
  const given = Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== null));
  const { hookPayloadInput } = await import("./inputs.ts");
  const problem = await inputProblem(hookPayloadInput(), given);
  if (problem?.kind === "invalid") throw new Error(`the hook payload's \`${problem.field}\` must be ${expectedValue(problem.schema)}`);
  return given as HookPayload;
}
