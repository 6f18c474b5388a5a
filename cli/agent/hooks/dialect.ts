import type { HookEvent, HookPayload } from "./events.ts";

// The programs whose hooks send their own JSON to `rkb hook` (Claude Code, Codex CLI, Gemini CLI):
// which of their events runs which rkb hook (the install writes their hook settings from this), how
// their payload reads in rkb's terms, and how the reply must look for them to use it. All three take
// added context as `hookSpecificOutput.additionalContext` and a "go on" as `decision: "block"`.

export interface HookBinding {
  /** The program's event name, as it sends it in `hook_event_name`. */
  event: string;
  /** The program's tool-name matcher (only tool events). */
  matcher?: string;
  rkb: HookEvent;
}

export interface HookDialect {
  /** The name rkb records the calls under (RKB_HARNESS, `--harness`). */
  harness: string;
  bindings: readonly HookBinding[];
  /** Events whose reply's additionalContext reaches the model. */
  contextEvents: ReadonlySet<string>;
  /** Events where `decision: "block"` makes the agent go on. */
  stopEvents: ReadonlySet<string>;
  /** The payload in rkb's terms. */
  payload(raw: Record<string, unknown>): HookPayload;
}

export const str = (v: unknown) => (typeof v === "string" ? v : undefined);
export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** What to print for the program: the text in the shape its event reads, or "" for nothing. */
export function dialectReply(dialect: HookDialect, event: string, text: string): string {
  if (!text) return "";
  if (dialect.contextEvents.has(event)) return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
  if (dialect.stopEvents.has(event)) return JSON.stringify({ decision: "block", reason: text });
  return "";
}
