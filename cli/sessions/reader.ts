import { scanLines } from "./lines.ts";
import { stripHarnessTrailer } from "../shell/result.ts";
import { stripInjected } from "./clean.ts";
import { fileChange, type FileChange } from "./edits.ts";

// Reads pi, omp and Claude Code session files into a flat list of events on the branch that leads
// to the last entry. Bad lines are skipped and reported with their line number; nothing a file
// contains stops the read. Output kept per entry is small (failed command output is capped), so
// memory follows the number of entries, never their size.

export type SessionFormat = "pi" | "omp" | "claude-code" | "gemini" | "opencode";

export interface SkippedLine {
  line: number;
  reason: string;
}

interface At {
  entryId?: string;
  line: number;
  time?: string;
}

export type SessionEvent =
  | ({ kind: "user"; text: string } & At)
  | ({ kind: "agent"; text: string } & At)
  /** A bash command and its result. `output` is kept only for failures (trailer removed). */
  | ({ kind: "command"; command: string; ok: boolean; exitCode?: number; output: string; callEntryId?: string } & At)
  /** Any other tool call with its result; `change` for file edits and writes. */
  | ({ kind: "tool"; name: string; ok: boolean; change?: FileChange } & At)
  | ({ kind: "compaction" } & At)
  | ({ kind: "model_change"; model: string } & At)
  | ({ kind: "custom"; customType: string } & At);

export interface SessionCounts {
  entries: number;
  messages: number;
  userMessages: number;
  assistantMessages: number;
  toolResults: number;
  toolCalls: number;
  bashCommands: number;
  failedBash: number;
  compactions: number;
  modelChanges: number;
  customEntries: number;
}

/** A tool call whose result was not read yet (it comes after the end of this read). */
export interface PendingCall {
  name: string;
  command?: string;
  change?: FileChange;
  entryId?: string;
}

export interface SessionRead {
  path: string;
  /** "not-session" for JSONL that is no session file at all (event logs, RPC frames). */
  kind: "session" | "not-session" | "empty";
  harness?: SessionFormat;
  sessionId?: string;
  cwd?: string;
  startedAt?: string;
  events: SessionEvent[];
  counts: SessionCounts;
  skipped: SkippedLine[];
  /** Lines seen, blank ones included. */
  lines: number;
  /** Byte offset after the last whole line, and that line's number: where the next read starts. */
  endOffset: number;
  endLine: number;
  lastEntryId?: string;
  firstTime?: string;
  lastTime?: string;
  pendingCalls: Record<string, PendingCall>;
}

export interface ReadOptions {
  /** Start at this byte offset (the start of a line), numbered as line fromLine + 1. */
  fromOffset?: number;
  fromLine?: number;
  /** The format, when an earlier read of the file already found it. */
  harness?: SessionFormat;
  /** Tool calls read earlier whose results may come now. */
  pendingCalls?: Record<string, PendingCall>;
  maxLineBytes?: number;
}

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Failed output kept per command: enough for any excerpt, small enough to stay flat. */
const MAX_OUTPUT_CHARS = 64 * 1024;
/** Enough of a result's end to hold omp's `Wall time` and the `Command exited with code N` lines. */
const TRAILER_CHARS = 200;

const PI_TYPES = new Set([
  "session",
  "title",
  "message",
  "model_change",
  "thinking_level_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "usage",
  "context_edit",
]);
/** Claude Code entry types that can start a file; every Claude Code entry since 2.x also names its sessionId. */
const CLAUDE_TYPES = new Set(["user", "assistant", "system", "summary", "file-history-snapshot", "attachment", "progress", "queue-operation", "custom-title"]);
const PI_ROLES = new Set(["user", "assistant", "toolResult", "system", "bashExecution", "custom", "branchSummary", "compactionSummary"]);

/** One entry as kept until the branch is known. */
interface Entry {
  id?: string;
  parentId?: string | null;
  line: number;
  time?: string;
  message?: "user" | "assistant" | "toolResult" | "other";
  raw: RawEvent[];
}

type RawEvent =
  | { kind: "user" | "agent"; text: string }
  | { kind: "call"; callId: string; name: string; command?: string; change?: FileChange }
  | { kind: "result"; callId: string; name?: string; failed: boolean; exitCode?: number; output: string }
  | { kind: "compaction" }
  | { kind: "model_change"; model: string }
  | { kind: "custom"; customType: string };

const decoder = new TextDecoder("utf-8", { fatal: true });

export async function readSession(path: string, opts: ReadOptions = {}): Promise<SessionRead> {
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  let lineNo = opts.fromLine ?? 0;
  let endLine = lineNo;
  let harness: SessionFormat | undefined = opts.harness;
  let sawTitle = false;
  const skipped: SkippedLine[] = [];
  const entries: Entry[] = [];
  const header: { sessionId?: string; cwd?: string; startedAt?: string } = {};

  const skip = (reason: string) => skipped.push({ line: lineNo, reason });

  let endOffset = opts.fromOffset ?? 0;
  scanLines(path, endOffset, maxLine, ({ bytes, terminated, end }) => {
    lineNo++;
    // A last line without newline counts as read once it parses: a writer that never ends with a
    // newline loses nothing, and a line still being written is read again next time.
    const consumed = () => {
      endOffset = end;
      endLine = lineNo;
    };
    if (terminated) consumed();
    if (bytes === null) return skip(`line longer than ${Math.round(maxLine / 1024 / 1024)} MB`);
    if (bytes.length === 0 || (bytes.length < 8 && bytes.toString("latin1").trim() === "")) return;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return skip("invalid UTF-8");
    }
    let obj: any;
    try {
      obj = JSON.parse(text);
    } catch {
      return skip(terminated ? "not valid JSON" : "truncated last line (no newline, not valid JSON)");
    }
    if (!terminated) consumed();
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return skip("not a JSON object");
    const type = obj.type;
    if (typeof type !== "string") return skip("entry has no `type`");
    if (!harness) {
      if (type === "title") sawTitle = true;
      if (type === "session" || (PI_TYPES.has(type) && type !== "title" && typeof obj.id === "string")) harness = sawTitle ? "omp" : "pi";
      else if (typeof obj.sessionId === "string" || (CLAUDE_TYPES.has(type) && ("uuid" in obj || "message" in obj || type === "summary")))
        harness = "claude-code";
      else if (type !== "title") return skip(`not a session entry (type "${clip(type)}")`);
    }
    const problem = harness === "claude-code" ? readClaudeEntry(obj, lineNo, entries, header) : readPiEntry(obj, lineNo, entries, header);
    if (problem) skip(problem);
  });

  const branch = onBranch(entries);
  const { events, counts, pendingCalls } = pairTools(branch, opts.pendingCalls ?? {});
  const nonBlankSeen = lineNo - (opts.fromLine ?? 0);
  const kind: SessionRead["kind"] = harness ? "session" : nonBlankSeen === 0 || skipped.length === 0 ? "empty" : "not-session";
  const withTime = entries.filter((e) => e.time);
  return {
    path,
    kind,
    harness,
    sessionId: header.sessionId,
    cwd: header.cwd,
    startedAt: header.startedAt,
    events,
    counts: { ...counts, entries: entries.length },
    skipped,
    lines: lineNo - (opts.fromLine ?? 0),
    endOffset,
    endLine,
    lastEntryId: [...branch].reverse().find((e) => e.id)?.id,
    firstTime: withTime[0]?.time,
    lastTime: withTime[withTime.length - 1]?.time,
    pendingCalls,
  };
}

// ---- pi and omp ----

/** Adds the entry; returns why the line was skipped, if it was. */
function readPiEntry(obj: any, line: number, entries: Entry[], header: { sessionId?: string; cwd?: string; startedAt?: string }): string | undefined {
  const type: string = obj.type;
  if (!PI_TYPES.has(type)) return `unknown entry type "${clip(type)}"`;
  if (type === "title") return;
  if (type === "session") {
    if (typeof obj.id === "string") header.sessionId ??= obj.id;
    if (typeof obj.cwd === "string") header.cwd ??= obj.cwd;
    if (typeof obj.timestamp === "string") header.startedAt ??= obj.timestamp;
    return;
  }
  const entry: Entry = {
    id: typeof obj.id === "string" ? obj.id : undefined,
    parentId: typeof obj.parentId === "string" ? obj.parentId : obj.parentId === null ? null : undefined,
    line,
    time: typeof obj.timestamp === "string" ? obj.timestamp : undefined,
    raw: [],
  };
  if (type === "message") {
    const m = obj.message;
    if (!m || typeof m !== "object" || typeof m.role !== "string") return "message entry without a `message.role`";
    if (!PI_ROLES.has(m.role)) return `unknown message role "${clip(m.role)}"`;
    if (m.role === "user") {
      entry.message = "user";
      const text = stripInjected(joinText(m.content));
      if (text) entry.raw.push({ kind: "user", text });
    } else if (m.role === "assistant") {
      entry.message = "assistant";
      for (const block of asBlocks(m.content)) {
        if (block.type === "text" && typeof block.text === "string") {
          const text = stripInjected(block.text);
          if (text) entry.raw.push({ kind: "agent", text });
        } else if (block.type === "toolCall" && typeof block.id === "string") {
          const name = typeof block.name === "string" ? block.name : "?";
          entry.raw.push(callEvent(block.id, name, block.arguments));
        }
      }
    } else if (m.role === "toolResult") {
      entry.message = "toolResult";
      if (typeof m.toolCallId === "string") entry.raw.push(resultEvent(m.toolCallId, m.toolName, m.isError === true, m.content));
    } else entry.message = "other";
  } else if (type === "compaction") {
    entry.raw.push({ kind: "compaction" });
  } else if (type === "model_change") {
    const model = typeof obj.model === "string" ? obj.model : [obj.provider, obj.modelId].filter((p) => typeof p === "string").join("/");
    entry.raw.push({ kind: "model_change", model });
  } else if (type === "custom" || type === "custom_message") {
    entry.raw.push({ kind: "custom", customType: typeof obj.customType === "string" ? obj.customType : "?" });
  }
  entries.push(entry);
}

// ---- Claude Code ----

const CONVERSATION_TYPES = new Set(["user", "assistant", "system"]);

function readClaudeEntry(obj: any, line: number, entries: Entry[], header: { sessionId?: string; cwd?: string; startedAt?: string }): string | undefined {
  const type: string = obj.type;
  // Claude Code adds bookkeeping entry types from release to release (queue-operation,
  // api-request, cost-state, …); each names its session. They carry no conversation, so they are
  // read as links of the parent chain, not reported as bad lines.
  if (!CLAUDE_TYPES.has(type) && typeof obj.sessionId !== "string") return `unknown entry type "${clip(type)}"`;
  if (typeof obj.sessionId === "string") header.sessionId ??= obj.sessionId;
  if (typeof obj.cwd === "string") header.cwd ??= obj.cwd;
  if (typeof obj.timestamp === "string") header.startedAt ??= obj.timestamp;
  // Subagent conversations live in the same file; they are not the user's session.
  if (obj.isSidechain === true) return;
  // Without a uuid an entry is no link of the chain either: nothing to keep.
  if (typeof obj.uuid !== "string" && !CONVERSATION_TYPES.has(type)) return;
  const entry: Entry = {
    id: typeof obj.uuid === "string" ? obj.uuid : undefined,
    parentId: typeof obj.parentUuid === "string" ? obj.parentUuid : obj.parentUuid === null ? null : undefined,
    line,
    time: typeof obj.timestamp === "string" ? obj.timestamp : undefined,
    raw: [],
  };
  if (type === "system" && obj.subtype === "compact_boundary") {
    entry.raw.push({ kind: "compaction" });
  } else if (type === "user" || type === "assistant") {
    const m = obj.message;
    if (!m || typeof m !== "object") return `${type} entry without a \`message\``;
    if (type === "assistant") {
      entry.message = "assistant";
      for (const block of asBlocks(m.content)) {
        if (block.type === "text" && typeof block.text === "string") {
          const text = stripInjected(block.text);
          if (text) entry.raw.push({ kind: "agent", text });
        } else if (block.type === "tool_use" && typeof block.id === "string") {
          const name = typeof block.name === "string" ? block.name : "?";
          entry.raw.push(callEvent(block.id, name, block.input));
        }
      }
    } else {
      const results = asBlocks(m.content).filter((b) => b.type === "tool_result");
      entry.message = results.length ? "toolResult" : "user";
      for (const r of results) if (typeof r.tool_use_id === "string") entry.raw.push(resultEvent(r.tool_use_id, undefined, r.is_error === true, r.content));
      // Meta entries and compaction summaries are written by Claude Code, not typed by the user.
      if (!results.length && obj.isMeta !== true && obj.isCompactSummary !== true) {
        const text = stripInjected(joinText(m.content));
        if (text) entry.raw.push({ kind: "user", text });
      }
    }
  }
  entries.push(entry);
}

// ---- shared ----

function callEvent(callId: string, name: string, args: any): RawEvent {
  if (isBash(name)) return { kind: "call", callId, name, command: typeof args?.command === "string" ? args.command : undefined };
  const change = fileChange(name, args);
  return change ? { kind: "call", callId, name, change } : { kind: "call", callId, name };
}

function resultEvent(callId: string, name: unknown, isError: boolean, content: unknown): RawEvent {
  const raw = joinText(content);
  const toolName = typeof name === "string" ? name : undefined;
  if (!isError) {
    // A success keeps no output, so only its tail is looked at, for a non-zero exit line. Big
    // build logs are the bulk of session files; this keeps reading them close to parse speed.
    const tail = stripHarnessTrailer(raw.slice(-TRAILER_CHARS));
    if (!tail.exitCode) return { kind: "result", callId, name: toolName, failed: false, exitCode: tail.exitCode, output: "" };
  }
  const { text, exitCode } = stripHarnessTrailer(stripInjected(raw));
  const failed = isError || (exitCode !== undefined && exitCode !== 0);
  return { kind: "result", callId, name: toolName, failed, exitCode, output: failed ? capMiddle(text, MAX_OUTPUT_CHARS) : "" };
}

function asBlocks(content: unknown): any[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter((b) => b && typeof b === "object") : [];
}

function joinText(content: unknown): string {
  return asBlocks(content)
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

/** The text's start and end, at most `max` characters, with a line saying how much of the middle was cut (error lines come last). */
export function capMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 4);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - max} characters cut]\n${text.slice(text.length - tail)}`;
}

function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 40) + "…" : s;
}

/**
 * The entries on the branch that ends at the last entry. Entries without ids (old formats) are
 * always kept; a parent outside this read (before the cursor) ends the walk.
 */
function onBranch(entries: Entry[]): Entry[] {
  let leaf: Entry | undefined;
  for (let i = entries.length - 1; i >= 0 && !leaf; i--) if (entries[i]!.id) leaf = entries[i];
  if (!leaf) return entries;
  let linear = true;
  let prev: string | undefined;
  for (const e of entries) {
    if (e.id === undefined) continue;
    if (prev !== undefined && e.parentId !== prev) {
      linear = false;
      break;
    }
    prev = e.id;
  }
  if (linear) return entries;
  const parent = new Map<string, string | null | undefined>();
  for (const e of entries) if (e.id) parent.set(e.id, e.parentId);
  const keep = new Set<string>();
  for (let id: string | null | undefined = leaf.id; id && parent.has(id) && !keep.has(id); id = parent.get(id)) keep.add(id);
  return entries.filter((e) => e.id === undefined || keep.has(e.id));
}

/** Turns calls and results into one event per finished tool use, and counts the branch. */
function pairTools(
  branch: Entry[],
  earlier: Record<string, PendingCall>,
): { events: SessionEvent[]; counts: Omit<SessionCounts, "entries">; pendingCalls: Record<string, PendingCall> } {
  const counts = {
    messages: 0,
    userMessages: 0,
    assistantMessages: 0,
    toolResults: 0,
    toolCalls: 0,
    bashCommands: 0,
    failedBash: 0,
    compactions: 0,
    modelChanges: 0,
    customEntries: 0,
  };
  const pending = new Map<string, PendingCall>(Object.entries(earlier));
  const events: SessionEvent[] = [];
  for (const e of branch) {
    if (e.message) {
      counts.messages++;
      if (e.message === "user") counts.userMessages++;
      else if (e.message === "assistant") counts.assistantMessages++;
      else if (e.message === "toolResult") counts.toolResults++;
    }
    const at: At = { entryId: e.id, line: e.line, time: e.time };
    for (const r of e.raw) {
      if (r.kind === "call") {
        counts.toolCalls++;
        pending.set(r.callId, { name: r.name, command: r.command, change: r.change, entryId: e.id });
      } else if (r.kind === "result") {
        const call = pending.get(r.callId);
        pending.delete(r.callId);
        const name = call?.name ?? r.name ?? "?";
        if (isBash(name)) {
          counts.bashCommands++;
          if (r.failed) counts.failedBash++;
          // A result whose call was never seen cannot say which command failed; it is counted only.
          if (call?.command !== undefined) {
            events.push({ kind: "command", command: call.command, ok: !r.failed, exitCode: r.exitCode, output: r.output, callEntryId: call.entryId, ...at });
          }
        } else events.push({ kind: "tool", name, ok: !r.failed, ...(call?.change ? { change: call.change } : {}), ...at });
      } else {
        if (r.kind === "compaction") counts.compactions++;
        else if (r.kind === "model_change") counts.modelChanges++;
        else if (r.kind === "custom") counts.customEntries++;
        events.push({ ...r, ...at } as SessionEvent);
      }
    }
  }
  return { events, counts, pendingCalls: Object.fromEntries(pending) };
}

function isBash(name: string): boolean {
  return name === "bash" || name === "Bash";
}

/** Every failed bash command in a session file, in order (the `eval --replay` input). */
export async function* failedBashCommands(path: string): AsyncGenerator<{ command: string; error: string; exitCode?: number; entryId?: string; line: number }> {
  const read = await readSession(path);
  for (const e of read.events) {
    if (e.kind === "command" && !e.ok) yield { command: e.command, error: e.output, exitCode: e.exitCode, entryId: e.entryId, line: e.line };
  }
}
