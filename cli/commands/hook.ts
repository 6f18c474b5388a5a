import { defineRkbCommand } from "./_shared.ts";
import { HANDLERS, HOOK_EVENTS, type HookEvent, type HookPayload } from "../hooks/events.ts";
import { claudeReply, fromClaudeCode } from "../hooks/claude.ts";
import { logHookError, touchHeartbeat } from "../hooks/log.ts";

// `rkb hook <event>`: what the pi/omp extension calls on agent events. It never fails: whatever goes
// wrong is logged to <state>/hook-errors.log, the exit code is 0, and the agent sees nothing.
export default defineRkbCommand({
  name: "hook",
  description: "Handle one agent event (for the pi/omp extension and Claude Code hooks): payload as JSON on stdin, or as flags",
  examples: [`echo '{"session_id": "s1", "cwd": "/src/app"}' | rkb hook session-start`, "rkb hook session-end --session-file ~/.pi/agent/sessions/x.jsonl --harness pi"],
  args: {
    event: { type: "positional", required: false, description: `One of ${HOOK_EVENTS.join(", ")}` },
    "session-file": { type: "string", description: "The session's file (a detached caller has no stdin for the payload)", valueHint: "path" },
    "session-id": { type: "string", description: "The session's id", valueHint: "id" },
    cwd: { type: "string", description: "The agent's working folder", valueHint: "dir" },
    harness: { type: "string", description: "pi or omp", valueHint: "pi|omp" },
    reason: { type: "string", description: "Why the session ends", valueHint: "text" },
  },
  run: async (ctx) => {
    const event = ctx.args.event as string | undefined;
    let text = "";
    try {
      if (!event || !(HOOK_EVENTS as readonly string[]).includes(event)) throw new Error(`unknown hook event \`${event ?? ""}\` (known: ${HOOK_EVENTS.join(", ")})`);
      const raw = await readPayload(ctx.args, ctx.stdin);
      const claude = fromClaudeCode(raw as Record<string, unknown>);
      const payload = claude ?? raw;
      if (payload.harness) touchHeartbeat(ctx.env, payload.harness);
      text = await HANDLERS[event as HookEvent](payload, ctx.env);
      if (claude) text = claudeReply((raw as Record<string, unknown>).hook_event_name as string, text);
    } catch (e) {
      logHookError(ctx.env, event ?? "", e);
      text = "";
    }
    return { data: { output: text }, human: text, raw: true };
  },
});

async function readPayload(args: Record<string, unknown>, stdin: () => Promise<string>): Promise<HookPayload> {
  const flag = (name: string) => (typeof args[name] === "string" && args[name] !== "" ? (args[name] as string) : undefined);
  const fromFlags: HookPayload = {
    session_file: flag("session-file"),
    session_id: flag("session-id"),
    cwd: flag("cwd"),
    harness: flag("harness"),
    reason: flag("reason"),
  };
  // A detached caller passes flags and has no stdin; reading it would wait for nothing.
  if (Object.values(fromFlags).some((v) => v !== undefined)) return fromFlags;
  const text = (await stdin()).trim();
  if (!text) return {};
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the hook payload must be a JSON object");
  return parsed as HookPayload;
}
