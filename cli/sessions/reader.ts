import { claudeFormat } from "./claude.ts";
import { codexFormat } from "./codex.ts";
import { geminiFormat, readGeminiJson } from "./gemini.ts";
import type { FileChange } from "./edits.ts";
import { clip, type Entry, type Header, type LineFormat, type RawEvent, type SessionFormat, type Stopped } from "./entries.ts";
import { parseLine } from "./bulk.ts";
import { scanLines } from "./lines.ts";
import { readOpencode, splitSource } from "./opencode.ts";
import { piFormat } from "./pi.ts";
import { statusHiddenByPipe } from "../shell/program.ts";

// Reads pi, omp, Claude Code, Codex CLI and Gemini CLI session files, and opencode's sessions in its
// store, into a flat list of events on the branch that leads to the last entry. Bad lines are
// skipped and reported with their line number; nothing a file contains stops the read, and a file
// that is no session is named by what it looks like. Output kept per entry is small (failed command
// output is capped), so memory follows the number of entries, never their size. The formats
// themselves are pi.ts, claude.ts, codex.ts and gemini.ts (JSON lines), and opencode.ts (SQLite) and
// Gemini CLI's older sessions, one JSON document each (gemini.ts), which are read whole.

export type { SessionFormat } from "./entries.ts";

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
  /** What the user said: typed, queued while the agent worked, or the reason for refusing a tool call. */
  | ({ kind: "user"; text: string; via?: "queued" | "rejection" } & At)
  | ({ kind: "agent"; text: string } & At)
  /**
   * A shell command and its result. `output` is kept only for failures (trailer removed); `by:
   * "user"` for a command the user ran; `stopped` when it did not finish (refused, aborted, timed out).
   */
  | ({ kind: "command"; command: string; ok: boolean; exitCode?: number; output: string; callEntryId?: string; by?: "user"; stopped?: Stopped } & At)
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
  shell?: true;
  command?: string;
  change?: FileChange;
  polls?: string;
  /** A command left running: the id its polls name. */
  runsAs?: string;
  entryId?: string;
}

export interface SessionRead {
  path: string;
  /** "not-session" for JSONL that is no session file at all (event logs, RPC frames). */
  kind: "session" | "not-session" | "empty";
  harness?: SessionFormat;
  /** For a file that is no session: what it looks like, in a few words. */
  looksLike?: string;
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

const FORMATS: LineFormat[] = [piFormat, geminiFormat, claudeFormat, codexFormat];
const FORMAT_OF: Partial<Record<SessionFormat, LineFormat>> = {
  pi: piFormat,
  omp: piFormat,
  "claude-code": claudeFormat,
  codex: codexFormat,
  gemini: geminiFormat,
};

const decoder = new TextDecoder("utf-8", { fatal: true });

export async function readSession(path: string, opts: ReadOptions = {}): Promise<SessionRead> {
  const whole = readWhole(path, opts);
  if (whole) return whole;
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  let lineNo = opts.fromLine ?? 0;
  let endLine = lineNo;
  let harness: SessionFormat | undefined = opts.harness;
  let format = harness && FORMAT_OF[harness];
  let sawTitle = false;
  let firstBytes: Buffer | undefined;
  const otherTypes = new Set<string>();
  const skipped: SkippedLine[] = [];
  const entries: Entry[] = [];
  const header: Header = {};

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
    // A byte-order mark (an editor's, a Windows tool's) is no part of the first line's JSON.
    if (lineNo === 1 && !opts.fromOffset && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    firstBytes ??= Buffer.from(bytes.subarray(0, 4));
    if (bytes.length === 0 || (bytes.length < 8 && bytes.toString("latin1").trim() === "")) return;
    // Decoded leniently, and checked strictly only when a replacement character shows up: one in
    // the text itself is rare, invalid bytes always make one.
    let text = bytes.toString("utf8");
    if (text.includes("\ufffd")) {
      try {
        text = decoder.decode(bytes);
      } catch {
        return skip("invalid UTF-8");
      }
    }
    let obj: any;
    try {
      // Once the format is known, its long lines are parsed without the strings it never reads whole.
      obj = parseLine(text, format?.unread);
    } catch {
      return skip(terminated ? "not valid JSON" : "truncated last line (no newline, not valid JSON)");
    }
    if (!terminated) consumed();
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return skip("not a JSON object");
    const type = obj.type;
    if (!format) {
      if (type === "title") sawTitle = true;
      // Every object is offered, typed or not: a format may open its files with an untyped header.
      for (const f of FORMATS) {
        harness = f.claims(obj, sawTitle ? "title" : String(type));
        if (harness) {
          format = f;
          break;
        }
      }
      if (!format) {
        if (typeof type !== "string") return skip("entry has no `type`");
        // omp opens its files with a title line, before anything names the format.
        if (type === "title") return;
        if (otherTypes.size < 3) otherTypes.add(type);
        return skip(`not a session entry (type "${clip(type)}")`);
      }
    }
    const problem = format.entry(obj, lineNo, entries, header);
    if (problem) skip(problem);
  });

  const nonBlankSeen = lineNo - (opts.fromLine ?? 0);
  const kind: SessionRead["kind"] = harness ? "session" : nonBlankSeen === 0 || skipped.length === 0 ? "empty" : "not-session";
  return sessionRead(path, entries, header, opts, {
    kind,
    harness,
    ...(kind === "not-session" ? { looksLike: looksLike(firstBytes, skipped, otherTypes) } : {}),
    skipped,
    lines: lineNo - (opts.fromLine ?? 0),
    endOffset,
    endLine,
  });
}

/**
 * The sessions that are read whole, not line by line: one in opencode's store (`<db>#<session>`,
 * from part `fromOffset` on) and an older Gemini CLI session (one JSON document, from record
 * `fromOffset` on). Undefined for a file of JSON lines.
 */
function readWhole(path: string, opts: ReadOptions): SessionRead | undefined {
  const { session } = splitSource(path);
  if (session) {
    const r = readOpencode(path, opts.fromOffset ?? 0);
    const read = r.entries.length + r.skipped.length;
    return sessionRead(path, r.entries, r.header, opts, {
      kind: r.found ? "session" : "empty",
      ...(r.found ? { harness: "opencode" as const } : {}),
      skipped: r.skipped,
      lines: read,
      endOffset: r.seen,
      endLine: r.seen,
    });
  }
  if (!path.endsWith(".json")) return undefined;
  const g = readGeminiJson(path, opts.fromOffset ?? 0);
  if (g.damaged) return sessionRead(path, [], {}, opts, { kind: "not-session", looksLike: g.damaged, skipped: [], lines: 0, endOffset: 0, endLine: 0 });
  if (g.problem) return undefined; // read as lines, which names what the file looks like
  const lines = g.entries.length + g.skipped.length;
  return sessionRead(path, g.entries, g.header, opts, { kind: "session", harness: "gemini", skipped: g.skipped, lines, endOffset: g.seen, endLine: g.seen });
}

/** The session read from its entries: the branch, the tool calls paired with their results, the counts. */
function sessionRead(
  path: string,
  entries: Entry[],
  header: Header,
  opts: ReadOptions,
  read: Pick<SessionRead, "kind" | "harness" | "looksLike" | "skipped" | "lines" | "endOffset" | "endLine">,
): SessionRead {
  const branch = onBranch(entries);
  const { events, counts, pendingCalls } = pairTools(branch, opts.pendingCalls ?? {});
  const withTime = entries.filter((e) => e.time);
  return {
    path,
    ...read,
    sessionId: header.sessionId,
    cwd: header.cwd,
    startedAt: header.startedAt,
    events,
    counts: { ...counts, entries: entries.length },
    lastEntryId: [...branch].reverse().find((e) => e.id)?.id,
    firstTime: withTime[0]?.time,
    lastTime: withTime[withTime.length - 1]?.time,
    pendingCalls,
  };
}

/** What a file that is no session looks like, from its first bytes and why its lines were skipped. */
function looksLike(first: Buffer | undefined, skipped: SkippedLine[], types: Set<string>): string {
  if (first && ((first[0] === 0xff && first[1] === 0xfe) || (first[0] === 0xfe && first[1] === 0xff))) return "UTF-16 text, not UTF-8 JSON lines";
  const reasons = new Map<string, number>();
  for (const s of skipped) {
    const reason = s.reason.startsWith("not a session entry") ? "other" : s.reason;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  const most = [...reasons].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (most === "invalid UTF-8") return "not UTF-8 text";
  if (most === "not valid JSON" || most?.startsWith("truncated"))
    return first?.[0] === 0x7b || first?.[0] === 0x5b ? "one JSON document over several lines (a JSON dump), not JSON lines" : "text that is not JSON lines";
  if (most === "entry has no `type`" || most === "not a JSON object") return "JSON lines without a `type` field (an event log?)";
  return `JSON lines of another tool (entries of type ${[...types].map((t) => `"${t.length > 30 ? t.slice(0, 30) + "…" : t}"`).join(", ")})`;
}

/**
 * The entries on the branch that ends at the last entry. Entries without ids (old formats,
 * Codex) are always kept; a parent outside this read (before the cursor) ends the walk. A tool
 * result off the branch is kept when its call is on it: Claude Code hangs each result of
 * parallel calls off its own call entry, not off the last one.
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
  const called = new Set<string>();
  for (const e of entries) if (e.id && keep.has(e.id)) for (const r of e.raw) if (r.kind === "call") called.add(r.callId);
  const answersBranch = (e: Entry) =>
    e.raw.length > 0 && e.raw.every((r) => r.kind !== "result" || called.has(r.callId)) && e.raw.some((r) => r.kind === "result");
  return entries.filter((e) => e.id === undefined || keep.has(e.id) || (e.message === "toolResult" && answersBranch(e)));
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
    for (const r of e.raw) pairOne(r, at, e.id);
  }
  return { events, counts, pendingCalls: Object.fromEntries(pending) };

  function pairOne(r: RawEvent, at: At, entryId: string | undefined): void {
    if (r.kind === "call") {
      counts.toolCalls++;
      const { kind: _, callId, ...call } = r;
      pending.set(callId, { ...call, entryId });
    } else if (r.kind === "result") {
      let call = pending.get(r.callId);
      pending.delete(r.callId);
      // A command left running (Codex's `exec_command` past its wait, Claude Code's and omp's
      // background bash) stays pending under its call; its end comes later: in the result of a poll
      // of the id it runs as (Codex's `write_stdin`) or of a delivery naming that id (omp's), which
      // is then the command's, or in a result of its own call's id (Claude Code's notification).
      const polled = r.ends ?? call?.polls;
      const left = polled === undefined ? undefined : [...pending].find(([, c]) => c.runsAs === polled);
      if (r.running !== undefined && (call?.shell || left)) {
        if (call?.shell) pending.set(r.callId, { ...call, runsAs: r.running });
        return;
      }
      if (r.ends !== undefined && !left) return;
      if (left) {
        pending.delete(left[0]);
        call = left[1];
      }
      const stopped = r.stopped ? { stopped: r.stopped } : {};
      if (call?.shell || (!call && (r.name === "bash" || r.name === "Bash"))) {
        counts.bashCommands++;
        // A success whose output ends saying its program failed, behind a pipe whose last stage
        // gave the exit status (`npm test 2>&1 | tail -20`), failed; any other success keeps no output.
        const failed = r.failed || (r.output !== "" && call?.command !== undefined && statusHiddenByPipe(call.command));
        if (failed && r.stopped !== "rejected") counts.failedBash++;
        // A result whose call was never seen cannot say which command failed; it is counted only.
        if (call?.command !== undefined)
          events.push({
            kind: "command",
            command: call.command,
            ok: !failed,
            exitCode: r.exitCode,
            output: failed ? r.output : "",
            callEntryId: call.entryId,
            ...stopped,
            ...at,
          });
      } else events.push({ kind: "tool", name: call?.name ?? r.name ?? "?", ok: !r.failed, ...(call?.change ? { change: call.change } : {}), ...at });
    } else if (r.kind === "ran") {
      counts.bashCommands++;
      if (!r.ok) counts.failedBash++;
      const { kind: _, ...ran } = r;
      events.push({ kind: "command", ...ran, by: "user", ...at });
    } else {
      if (r.kind === "compaction") counts.compactions++;
      else if (r.kind === "model_change") counts.modelChanges++;
      else if (r.kind === "custom") counts.customEntries++;
      events.push({ ...r, ...at } as SessionEvent);
    }
  }
}

/** Every failed bash command of a session read, in order (the `eval --replay` input); refused ones never ran. */
export function failedBashCommands(read: SessionRead): { command: string; error: string; exitCode?: number; entryId?: string; line: number }[] {
  const failed = [];
  for (const e of read.events) {
    if (e.kind === "command" && !e.ok && e.stopped !== "rejected")
      failed.push({ command: e.command, error: e.output, exitCode: e.exitCode, entryId: e.entryId, line: e.line });
  }
  return failed;
}
