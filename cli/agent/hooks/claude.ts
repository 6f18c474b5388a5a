import type { HookEvent, HookPayload } from "./events.ts";

// Claude Code's side of `rkb hook`, as Claude Code 2.1.332 sends and reads it. Its payload names the
// event (`hook_event_name`), the transcript (`transcript_path`) and the Bash command
// (`tool_input.command`; a failure's text is `error`). It takes added context as
// `hookSpecificOutput.additionalContext` and a Stop hook's "go on" as `decision: "block"`.

/** Claude Code hook event → the rkb hook event it runs; the plugin's hooks.json is written from this. */
export const CLAUDE_HOOKS: readonly { claude: string; matcher?: string; rkb: HookEvent }[] = [
  { claude: "SessionStart", rkb: "session-start" },
  { claude: "UserPromptSubmit", rkb: "prompt" },
  { claude: "PostToolUse", matcher: "Bash", rkb: "tool-ok" },
  { claude: "PostToolUseFailure", matcher: "Bash", rkb: "tool-failed" },
  { claude: "Stop", rkb: "stop" },
  { claude: "PreCompact", rkb: "pre-compact" },
  { claude: "SessionEnd", rkb: "session-end" },
];

/** Events whose reply Claude Code adds to the model's context. */
const CONTEXT_EVENTS = new Set(["SessionStart", "UserPromptSubmit", "PostToolUseFailure"]);

/** The payload in rkb's terms when Claude Code sent it, else undefined. */
export function fromClaudeCode(raw: Record<string, unknown>): HookPayload | undefined {
  if (typeof raw.hook_event_name !== "string") return undefined;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const input = raw.tool_input && typeof raw.tool_input === "object" ? (raw.tool_input as Record<string, unknown>) : {};
  return {
    session_id: str(raw.session_id),
    session_file: str(raw.transcript_path),
    cwd: str(raw.cwd),
    harness: "claude-code",
    reason: str(raw.reason),
    command: str(input.command),
    error: str(raw.error),
    prompt: str(raw.prompt),
    stop_hook_active: raw.stop_hook_active === true,
  };
}

/** What to print for Claude Code: the text in the shape its event reads, or "" for nothing. */
export function claudeReply(event: string, text: string): string {
  if (!text) return "";
  if (CONTEXT_EVENTS.has(event)) return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
  if (event === "Stop") return JSON.stringify({ decision: "block", reason: text });
  return "";
}
