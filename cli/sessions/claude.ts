import { stripInjected } from "./clean.ts";
import {
  asBlocks,
  clip,
  type Entry,
  type Header,
  joinText,
  keepsNothing,
  type LineFormat,
  otherBlocks,
  type RawEvent,
  readAgentBlocks,
  resultEvent,
  runningResult,
  TEXT_BLOCKS,
} from "./entries.ts";

// Claude Code transcripts (~/.claude/projects/<dir>/<session>.jsonl): entries chained by
// uuid/parentUuid. A compaction starts a new chain (`compact_boundary`, parentUuid null) that
// points back through `logicalParentUuid`; parallel tool calls are one entry each, and each result
// hangs off its own call (the reader matches results to calls by tool-use id). The user's words
// also arrive as messages queued while the agent worked and as the reason given for refusing a
// tool call.

/** Entry types that can start a file; every entry since 2.x also names its sessionId. */
const TYPES = new Set(["user", "assistant", "system", "summary", "file-history-snapshot", "attachment", "progress", "queue-operation", "custom-title"]);
const CONVERSATION = new Set(["user", "assistant", "system"]);

/** Claude Code's answer for a refused tool call; with a reason, the user's words follow `the user said:`. */
const REFUSED = "The user doesn't want to proceed with this tool use.";
const REASON = "To tell you how to proceed, the user said:\n";
/** Claude Code's result for a call the user interrupted while it ran. */
const INTERRUPTED = "[Request interrupted by user";
/** A Bash call's result when its command runs on in the background (started so, moved there at its timeout, or by the user). */
const BACKGROUND =
  /^Command (?:running in (?:the )?background(?: on \S+)? with ID: |was manually backgrounded by user with ID: |.{0,80}?moved to the background \(ID: )(\w+)/;
/** How a background command ended: Claude Code's notification names its call, its status and exit code. */
const NOTIFICATION = /^\s*<task-notification>/;
/** The summary Claude Code writes as the first user message after a compaction (older files lack the flag). */
const CONTINUED = "This session is being continued from a previous conversation";

export const claudeFormat: LineFormat = {
  claims(obj) {
    const type = obj.type;
    if (typeof type !== "string") return undefined;
    const named = typeof obj.sessionId === "string" || (TYPES.has(type) && ("uuid" in obj || "message" in obj || "messageId" in obj || type === "summary"));
    return named ? "claude-code" : undefined;
  },
  entry: readClaudeEntry,
  unread: unreadOfClaude,
};

const ASSISTANT_BLOCKS = new Set(["text", "tool_use"]);

/**
 * What readClaudeEntry never reads whole: the copy of a result Claude Code keeps for itself
 * (`toolUseResult`), a quiet tool result's content (only its end, for an exit code), the other
 * blocks of a message of results, and the blocks of a message that are neither text nor a tool
 * call (thinking, images).
 */
function unreadOfClaude(obj: any): [object, string | number][] {
  const out: [object, string | number][] = "toolUseResult" in obj ? [[obj, "toolUseResult"]] : [];
  const m = obj.message;
  if ((obj.type !== "user" && obj.type !== "assistant") || !m || typeof m !== "object") return out;
  if (obj.type === "assistant") return [...out, ...otherBlocks(m.content, ASSISTANT_BLOCKS)];
  if (!asBlocks(m.content).some((b) => b.type === "tool_result")) return [...out, ...otherBlocks(m.content, TEXT_BLOCKS)];
  for (const b of m.content as unknown[]) {
    const r = b as any;
    if (r?.type === "tool_result" && r.is_error !== true && keepsNothing(false, joinText(r.content))) out.push([r, "content"]);
  }
  return [...out, ...otherBlocks(m.content, new Set(["tool_result"]))];
}

function readClaudeEntry(obj: any, line: number, entries: Entry[], header: Header): string | undefined {
  const type: string = obj.type;
  if (typeof type !== "string") return "entry has no `type`";
  // Claude Code adds bookkeeping entry types from release to release (queue-operation,
  // api-request, cost-state, …); each names its session. They carry no conversation, so they are
  // read as links of the parent chain, not reported as bad lines.
  if (!TYPES.has(type) && typeof obj.sessionId !== "string") return `unknown entry type "${clip(type)}"`;
  if (typeof obj.sessionId === "string") header.sessionId ??= obj.sessionId;
  if (typeof obj.cwd === "string") header.cwd ??= obj.cwd;
  if (typeof obj.timestamp === "string") header.startedAt ??= obj.timestamp;
  // Subagent conversations live in the same file; they are not the user's session.
  if (obj.isSidechain === true) return;
  // Without a uuid an entry is no link of the chain either: nothing to keep.
  if (typeof obj.uuid !== "string" && !CONVERSATION.has(type)) return;
  const compaction = type === "system" && obj.subtype === "compact_boundary";
  const parent =
    typeof obj.parentUuid === "string" ? obj.parentUuid : compaction && typeof obj.logicalParentUuid === "string" ? obj.logicalParentUuid : obj.parentUuid;
  const entry: Entry = {
    id: typeof obj.uuid === "string" ? obj.uuid : undefined,
    parentId: typeof parent === "string" ? parent : parent === null ? null : undefined,
    line,
    time: typeof obj.timestamp === "string" ? obj.timestamp : undefined,
    raw: [],
  };
  if (compaction) entry.raw.push({ kind: "compaction" });
  else if (type === "attachment") readAttachment(obj, entry);
  else if (type === "user" || type === "assistant") {
    const m = obj.message;
    if (!m || typeof m !== "object") return `${type} entry without a \`message\``;
    if (type === "assistant") readAssistant(m, entry);
    else readUser(obj, m, entry);
  }
  entries.push(entry);
}

function readAssistant(m: any, entry: Entry): void {
  entry.message = "assistant";
  readAgentBlocks(m.content, entry, CALLS);
}

/** Claude Code's tool calls: `tool_use` blocks with an `input`; the shell tool is `Bash`. */
const CALLS = { block: "tool_use", args: "input", shell: "Bash" };

function readUser(obj: any, m: any, entry: Entry): void {
  const results = asBlocks(m.content).filter((b) => b.type === "tool_result");
  entry.message = results.length ? "toolResult" : "user";
  for (const r of results) if (typeof r.tool_use_id === "string") entry.raw.push(...resultOf(r));
  // Meta entries and compaction summaries are written by Claude Code, not typed by the user.
  if (results.length || obj.isMeta === true || obj.isCompactSummary === true) return;
  const said = joinText(m.content);
  if (NOTIFICATION.test(said)) {
    entry.message = "toolResult";
    const ended = backgroundEnd(said);
    if (ended) entry.raw.push(ended);
    return;
  }
  const text = stripInjected(said);
  if (text && !text.startsWith(CONTINUED)) entry.raw.push({ kind: "user", text });
}

/** A tool result; a refused or interrupted call is stopped, and the reason the user gave is their words. */
function resultOf(r: any): RawEvent[] {
  const text = joinText(r.content);
  // The interrupt line is the harness's (stripInjected takes it out), so it is read here.
  if (r.is_error === true && text.startsWith(INTERRUPTED)) return [resultEvent(r.tool_use_id, undefined, true, text, { stopped: "aborted" })];
  const background = r.is_error === true ? null : BACKGROUND.exec(text);
  if (background) return [runningResult(r.tool_use_id, background[1]!)];
  if (r.is_error !== true || !text.startsWith(REFUSED)) return [resultEvent(r.tool_use_id, undefined, r.is_error === true, text)];
  const refused: RawEvent = { kind: "result", callId: r.tool_use_id, failed: true, output: "", stopped: "rejected" };
  const at = text.indexOf(REASON);
  const reason = at === -1 ? "" : stripInjected(text.slice(at + REASON.length));
  return reason ? [refused, { kind: "user", text: reason, via: "rejection" }] : [refused];
}

/**
 * The end of a background command, from its notification: `<tool-use-id>` names the Bash call,
 * `<status>` is completed, failed or killed, and the summary gives the exit code. Its output is
 * in a file the transcript does not hold, so a failure keeps none.
 */
function backgroundEnd(text: string): RawEvent | undefined {
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1]?.trim();
  const callId = tag("tool-use-id");
  const status = tag("status");
  if (!callId || !status) return undefined;
  if (status === "killed") return { kind: "result", callId, failed: true, output: "", stopped: "aborted" };
  const code = /\bexit code (-?\d+)/.exec(tag("summary") ?? "")?.[1];
  const exitCode = code === undefined ? (status === "completed" ? 0 : undefined) : Number(code);
  return { kind: "result", callId, failed: status !== "completed" || (exitCode ?? 0) !== 0, exitCode, output: "" };
}

/** A message the user queued while the agent worked (`queued_command`, prompt mode). */
function readAttachment(obj: any, entry: Entry): void {
  const a = obj.attachment;
  if (a?.type !== "queued_command" || obj.isMeta === true || a.isMeta === true) return;
  if (a.commandMode !== undefined && a.commandMode !== "prompt") return;
  const text = stripInjected(typeof a.prompt === "string" ? a.prompt : joinText(a.prompt));
  if (!text) return;
  entry.message = "user";
  entry.raw.push({ kind: "user", text, via: "queued" });
}
