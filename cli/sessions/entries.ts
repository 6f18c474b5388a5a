import { stripHarnessTrailer } from "../shell/result.ts";
import type { Unread } from "./bulk.ts";
import { stripInjected } from "./clean.ts";
import { fileChange, type FileChange } from "./edits.ts";

// What a format module (pi.ts, claude.ts, codex.ts) makes of one line of a session file: an entry
// with its place in the tree and the raw events it holds. The reader (reader.ts) keeps the entries
// on the branch and pairs tool calls with their results into session events.

export type SessionFormat = "pi" | "omp" | "claude-code" | "codex" | "gemini" | "opencode";

/** How a command ended without finishing: the user stopped or refused it, or a time limit did. */
export type Stopped = "aborted" | "rejected" | "timeout";

export type RawEvent =
  /** `via`: typed into the prompt (unset), queued while the agent worked, or given as the reason for refusing a tool call. */
  | { kind: "user"; text: string; via?: "queued" | "rejection" }
  | { kind: "agent"; text: string }
  /**
   * A tool call: a shell command (`shell`, with the command when the call names one), a file edit or
   * write (`change`), a read of a command left running (`polls`: the id it runs under), or another tool.
   */
  | { kind: "call"; callId: string; name: string; shell?: true; command?: string; change?: FileChange; polls?: string }
  /**
   * `running`: the command goes on under this id, and a later result says how it ended: a poll's
   * (its call `polls` the id) or one that `ends` it (a delivery naming the id, no call of its own).
   */
  | { kind: "result"; callId: string; name?: string; failed: boolean; exitCode?: number; output: string; stopped?: Stopped; running?: string; ends?: string }
  /** A command the user ran themselves (pi's `!`), with its result. */
  | { kind: "ran"; command: string; ok: boolean; exitCode?: number; output: string; stopped?: Stopped }
  | { kind: "compaction" }
  | { kind: "model_change"; model: string }
  | { kind: "custom"; customType: string };

/** One entry as kept until the branch is known. */
export interface Entry {
  id?: string;
  parentId?: string | null;
  line: number;
  time?: string;
  message?: "user" | "assistant" | "toolResult" | "other";
  raw: RawEvent[];
}

export interface Header {
  sessionId?: string;
  cwd?: string;
  startedAt?: string;
}

/** A JSON-lines session format: which entry says a file is one, and how each entry reads. */
export interface LineFormat {
  /**
   * The harness when this object says the file is of this format (`firstType`: "title" once a
   * title line came first). Every object is offered until one format claims one, typed or not.
   */
  claims(obj: any, firstType: string): SessionFormat | undefined;
  /** Adds the line's entry (any JSON object once the format is known); returns why the line was skipped, if it was. */
  entry(obj: any, line: number, entries: Entry[], header: Header): string | undefined;
  /** Where an entry holds strings `entry` never reads whole (bulk.ts): a long one there is not parsed. */
  unread?: Unread;
}

/** Failed output kept per command: enough for any excerpt, small enough to stay flat. */
const MAX_OUTPUT_CHARS = 64 * 1024;
/** Enough of a result's end to hold omp's `Wall time` and the `Command exited with code N` lines. */
const TRAILER_CHARS = 200;
/**
 * How much of a successful result's end is read for a failure its program printed last (a
 * pipe's last stage gave the exit status: `npm test 2>&1 | tail -20`). Within what a cut
 * string keeps of its end (bulk.ts KEPT_END: at least 341 characters of its own).
 */
const SAYS_FAILED_CHARS = 320;
/**
 * Lines a build, test run or program prints when it failed, at a line's start (indented too, as in
 * a tool's boxed summary: ` [ERROR] Found 1 error`): `error:` (after
 * the program's name or a location: `clang: error:`, `a.c:3:5: error:`), `fatal:`, npm's and
 * pnpm's, TypeScript's, a traceback, make's `***`, test runners' FAIL lines and summaries,
 * bundlers' and linters' summaries, Maven's `[ERROR]`, an exception's name, a panic, PHP's fatal errors.
 */
const FAILED_LINE =
  /^[ \t]*(?:(?:[\w./+-]+: )?(?:\S+:\d+(?::\d+)?: )?(?:fatal )?(?:error|ERROR)(?:\[[\w-]+\])?:|fatal:|npm (?:ERR!|error)|ERR_PNPM_|.*\bELIFECYCLE\b|.*\berror TS\d+:|Found [1-9]\d* errors?\b|Traceback \(most recent call last\):|make(?:\[\d+\])?: \*\*\*|FAIL(?:ED)?\s|=+ .*\b[1-9]\d* failed\b|Tests?: .*\b[1-9]\d* failed\b|[\w.]*(?:Error|Exception): |error Command failed|error during build|Failed to compile|.*\bcompiled with \d+ errors?\b|--- FAIL|✖ \d+ problems?|\[ERROR\]|BUILD FAILED|[Bb]uild (?:FAILED|failed)|FAILURE:|thread '[^']*' panicked at|Segmentation fault|(?:PHP )?(?:Fatal|Parse) error: )/m;

/** True when the end of a result's text has a line saying its program failed (its first, cut-off line left out). */
function endSaysFailed(text: string): boolean {
  const end = text.slice(-SAYS_FAILED_CHARS);
  return FAILED_LINE.test(end.length < text.length ? end.slice(end.indexOf("\n") + 1) : end);
}

/** The result of a shell call whose command goes on under `id` (in the background, or past the harness's wait). */
export function runningResult(callId: string, id: string): RawEvent {
  return { kind: "result", callId, failed: false, output: "", running: id };
}

export function shellCall(callId: string, name: string, command: string | undefined): RawEvent {
  return command === undefined ? { kind: "call", callId, name, shell: true } : { kind: "call", callId, name, shell: true, command };
}

/** Any other tool call; a file edit or write carries what it changed. */
export function toolCall(callId: string, name: string, args: unknown): RawEvent {
  const change = fileChange(name, args);
  return change ? { kind: "call", callId, name, change } : { kind: "call", callId, name };
}

/** How a format writes an assistant's tool call: the block's type, its arguments' field, the shell tool's name. */
export interface CallShape {
  block: string;
  args: string;
  shell: string;
}

/** An assistant message's blocks: its words (harness text taken out) and its tool calls. */
export function readAgentBlocks(content: unknown, entry: Entry, shape: CallShape): void {
  for (const block of asBlocks(content)) {
    if (block.type === "text" && typeof block.text === "string") {
      const text = stripInjected(block.text);
      if (text) entry.raw.push({ kind: "agent", text });
    } else if (block.type === shape.block && typeof block.id === "string") {
      const name = typeof block.name === "string" ? block.name : "?";
      const args = block[shape.args];
      entry.raw.push(
        name === shape.shell ? shellCall(block.id, name, typeof args?.command === "string" ? args.command : undefined) : toolCall(block.id, name, args),
      );
    }
  }
}

/**
 * A tool result. A success keeps no output, so only its tail is looked at, for a non-zero exit
 * line or a failure its program printed last: big build logs are the bulk of session files, and
 * this keeps reading them near parse speed. `exitCode` is given when the format states it apart
 * from the text (Codex).
 */
export function resultEvent(
  callId: string,
  name: string | undefined,
  isError: boolean,
  raw: string,
  given?: { exitCode?: number; stopped?: Stopped; ends?: string },
): RawEvent {
  const base = { kind: "result" as const, callId, name, ...(given?.stopped ? { stopped: given.stopped } : {}), ...(given?.ends ? { ends: given.ends } : {}) };
  const quiet = quietEnd(isError, raw, given?.exitCode);
  if (quiet) return { ...base, failed: false, exitCode: quiet.exitCode, output: "" };
  const stripped = stripHarnessTrailer(stripInjected(raw));
  const exitCode = given?.exitCode ?? stripped.exitCode;
  const failed = isError || (exitCode !== undefined && exitCode !== 0);
  // A success that ends saying its program failed keeps its output: the reader decides with the
  // command whether a pipe hid the failure (reader.ts), and drops the output otherwise.
  return { ...base, failed, exitCode, output: failed || endSaysFailed(stripped.text) ? capMiddle(stripped.text, MAX_OUTPUT_CHARS) : "" };
}

/** For a result that keeps no output (no error, no non-zero exit code or failure at its end): the exit code it states, if any. */
function quietEnd(isError: boolean, raw: string, given: number | undefined): { exitCode?: number } | undefined {
  if (isError || given) return undefined;
  const tail = stripHarnessTrailer(raw.slice(-TRAILER_CHARS));
  if (tail.exitCode || endSaysFailed(raw)) return undefined;
  return { exitCode: given ?? tail.exitCode };
}

/** True when a result (its text as resultEvent gets it) keeps no output: only its end is read. */
export function keepsNothing(isError: boolean, raw: string): boolean {
  return quietEnd(isError, raw, undefined) !== undefined;
}

/** Output as kept for a failed command (pi's `!` commands carry theirs apart from any tool result). */
export function keptOutput(text: string): string {
  return capMiddle(stripInjected(text), MAX_OUTPUT_CHARS);
}

export function asBlocks(content: unknown): any[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter((b) => b && typeof b === "object") : [];
}

/** The blocks whose text joinText reads. */
export const TEXT_BLOCKS = new Set(["text", "input_text", "output_text"]);

export function joinText(content: unknown): string {
  return asBlocks(content)
    .filter((b) => TEXT_BLOCKS.has(b.type) && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

/** The places (bulk.ts) of the blocks of a message whose type is not one of `read`: their strings are never read. */
export function otherBlocks(content: unknown, read: Set<string>): [object, number][] {
  if (!Array.isArray(content)) return [];
  const out: [object, number][] = [];
  content.forEach((b, i) => {
    if (b && typeof b === "object" && !read.has(b.type)) out.push([content, i]);
  });
  return out;
}

/** The text's start and end, at most `max` characters, with a line saying how much of the middle was cut (error lines come last). */
export function capMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 4);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - max} characters cut]\n${text.slice(text.length - tail)}`;
}

export function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 40) + "…" : s;
}

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
