import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { stripInjected } from "./clean.ts";
import { clip, type Entry, type Header, type LineFormat, resultEvent, shellCall, str, toolCall } from "./entries.ts";

// Gemini CLI sessions, ~/.gemini/tmp/<project>/chats/session-<time>-<id>. Since 0.40 (checked with
// 0.61.0) a JSON-lines file: a header line `{sessionId, projectHash, startTime, …}`, message records
// `{id, timestamp, type: "user" | "gemini" | …, content, toolCalls?}`, patches `{"$set": {…}}`
// (a `$set` of `messages` is the whole list again) and rewinds `{"$rewindTo": id}` (/rewind). A record is written again with the same id once
// its tool calls ran: the later one counts. Before (checked with 0.25.0) one JSON document,
// `{sessionId, …, messages: [records]}`. A tool call carries its result; a shell command's exit code
// is only the `Exit Code: N` line of the text the model got (absent when it worked), and the plain
// output is `resultDisplay`. Gemini CLI adds blocks of its own to prompts and results
// (`<session_context>`, `<hook_context>`: what rkb's hooks added), which are nobody's words.

const SHELL = "run_shell_command";
/** Record types that hold no conversation. */
const QUIET = new Set(["info", "error", "warning", "debug"]);
/** What an older whole-file session may weigh: a JSON document is parsed at once. */
const MAX_JSON_BYTES = 256 * 1024 * 1024;

export const geminiFormat: LineFormat = {
  // Any of its lines says a file is Gemini CLI's, the header or not (a damaged file may have lost it):
  // a patch, or a record of the user or the model with its own id and content (Claude Code's
  // entries carry a message, a uuid and a session id instead).
  claims(obj) {
    if (isHeader(obj) || isPatch(obj) || isRewind(obj)) return "gemini";
    const record = (obj.type === "user" || obj.type === "gemini") && typeof obj.id === "string" && "content" in obj;
    return record && !("message" in obj) && !("uuid" in obj) && !("sessionId" in obj) ? "gemini" : undefined;
  },
  entry(obj, line, entries, header) {
    if (isHeader(obj)) return readHeader(obj, header);
    if (isPatch(obj)) {
      const set = obj.$set;
      if (!Array.isArray(set.messages)) return;
      // The list again, as it stands now: what came before it is replaced.
      entries.length = 0;
      positions.delete(entries);
      for (const m of set.messages) addRecord(m, line, entries);
      return;
    }
    if (isRewind(obj)) return rewind(obj.$rewindTo, entries);
    return addRecord(obj, line, entries);
  },
};

const isHeader = (obj: any) => typeof obj?.sessionId === "string" && typeof obj.projectHash === "string" && obj.type === undefined;
const isPatch = (obj: any) => obj?.$set !== null && typeof obj?.$set === "object" && Object.keys(obj).length === 1;
/** `{"$rewindTo": id}`: the user went back to before that message (/rewind); it and all after it are gone. */
const isRewind = (obj: any) => typeof obj?.$rewindTo === "string" && Object.keys(obj).length === 1;

/**
 * Drops the rewound records from this read's entries, as Gemini CLI does when it loads the file:
 * from the named one on, or all of them when it is not among them (it came before this read).
 * Each entry is dropped at most once, so a file of rewinds stays linear.
 */
function rewind(id: string, entries: Entry[]): undefined {
  const at = positions.get(entries);
  const from = at?.get(id) ?? 0;
  for (const e of entries.splice(from)) if (e.id !== undefined) at?.delete(e.id);
  return undefined;
}

function readHeader(obj: any, header: Header): undefined {
  header.sessionId ??= obj.sessionId;
  header.startedAt ??= str(obj.startTime);
  return undefined;
}

/**
 * An older Gemini CLI session, one JSON document (written whole again as the session goes on): its
 * header and its records from record `from` on, as entries. `seen` counts the records read, this
 * read's included; a last model record whose tool calls have not all ended is left for the next read.
 */
export function readGeminiJson(path: string, from = 0): GeminiDocument {
  const read: GeminiDocument = { entries: [], header: {}, skipped: [], seen: from };
  // Only a document that opens as a Gemini CLI session is read whole: any other JSON file (a
  // 200 MB export) would be parsed for nothing, at several times its size in memory.
  if (!looksLikeGemini(head(path))) return { ...read, problem: "no Gemini CLI session" };
  if (statSync(path).size > MAX_JSON_BYTES) return { ...read, problem: `larger than ${MAX_JSON_BYTES >> 20} MB` };
  const text = readFileSync(path, "utf8");
  let doc: any;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    return { ...read, problem: "not valid JSON", damaged: damage(text, e) };
  }
  if (!isHeader(doc) || !Array.isArray(doc.messages)) return { ...read, problem: "no Gemini CLI session" };
  readHeader(doc, read.header);
  const records: unknown[] = doc.messages;
  const end = records.length > 0 && running(records.at(-1)) ? records.length - 1 : records.length;
  for (let i = from; i < end; i++) {
    const problem = addRecord(records[i], i + 1, read.entries);
    if (problem) read.skipped.push({ line: i + 1, reason: problem });
  }
  read.seen = Math.max(from, end);
  return read;
}

export interface GeminiDocument {
  entries: Entry[];
  header: Header;
  skipped: { line: number; reason: string }[];
  /** Records read, this read's included: where the next read starts (a record number, not a byte offset). */
  seen: number;
  problem?: string;
  /** For a document that starts as a Gemini CLI session but does not parse: where and how it breaks, in words. */
  damaged?: string;
}

/** A model record with a tool call still running (or waiting for the user): it is written again once they end. */
const ENDED = new Set(["success", "error", "cancelled"]);
const running = (m: any) => m?.type === "gemini" && Array.isArray(m.toolCalls) && m.toolCalls.some((c: any) => !ENDED.has(c?.status));

/** Whether a document's start (its first few KB) is a Gemini CLI session's header: its first keys. */
const looksLikeGemini = (start: string) => /"sessionId"\s*:/.test(start) && /"projectHash"\s*:/.test(start);

/** The file's first 4 KB, as text. */
function head(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(4096);
    return buf.toString("utf8", 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

function damage(text: string, e: unknown): string {
  let lines = text.endsWith("\n") ? 0 : 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  const why = e instanceof Error ? e.message : String(e);
  return /EOF|end of (data|input)|unterminated/i.test(why)
    ? `a Gemini CLI session (one JSON document) cut off after line ${lines} (copied while Gemini CLI wrote it?)`
    : `a Gemini CLI session (one JSON document) that is not valid JSON (${why})`;
}

/** Where each record id sits in its file's entries, so a record written again replaces the first. */
const positions = new WeakMap<Entry[], Map<string, number>>();

function addRecord(m: any, line: number, entries: Entry[]): string | undefined {
  if (!m || typeof m !== "object" || typeof m.type !== "string" || typeof m.id !== "string") return "record without `type` or `id`";
  const entry: Entry = { id: m.id, line, time: str(m.timestamp), raw: [] };
  if (m.type === "user") readUser(m, entry);
  else if (m.type === "gemini") readGemini(m, entry);
  else if (QUIET.has(m.type)) entry.message = "other";
  else return `unknown record type "${clip(m.type)}"`;
  let at = positions.get(entries);
  if (!at) positions.set(entries, (at = new Map()));
  const earlier = at.get(m.id);
  if (earlier !== undefined && entries[earlier]?.id === m.id) {
    entry.parentId = entries[earlier]!.parentId;
    entries[earlier] = entry;
    return;
  }
  // One record after the other: a chain, so the reader keeps them all.
  entry.parentId = entries.at(-1)?.id ?? null;
  at.set(m.id, entries.length);
  entries.push(entry);
}

function readUser(m: any, entry: Entry): void {
  // Tool results sent back are the user's turn in the API, not words: the gemini record has them.
  if (asParts(m.content).some((p: any) => p?.functionResponse)) {
    entry.message = "toolResult";
    return;
  }
  // What the user typed is `displayContent` when what was sent differs (files named with @ are
  // sent with their text); an older record has the files' text inside `content`, between markers.
  const typed = asParts(m.displayContent ?? m.content).map((p: any) => str(p?.text) ?? "");
  const text = stripInjected(withoutReferencedFiles(typed.join("\n")));
  // A message of Gemini CLI's own blocks alone (the session's context) is nobody's words.
  entry.message = text ? "user" : "other";
  if (text) entry.raw.push({ kind: "user", text });
}

const asParts = (content: unknown): any[] => (typeof content === "string" ? [{ text: content }] : Array.isArray(content) ? content : []);

/** The text without the files Gemini CLI sent with it (`--- Content from referenced files ---` to `--- End of content ---`). */
function withoutReferencedFiles(text: string): string {
  let out = "";
  let at = 0;
  for (let start = text.indexOf(REFERENCED_START); start !== -1; start = text.indexOf(REFERENCED_START, at)) {
    out += text.slice(at, start);
    const end = text.indexOf(REFERENCED_END, start);
    if (end === -1) return out.trim(); // cut off: the rest is the files'
    at = end + REFERENCED_END.length;
  }
  return (out + text.slice(at)).trim();
}
const REFERENCED_START = "--- Content from referenced files ---";
const REFERENCED_END = "--- End of content ---";

function readGemini(m: any, entry: Entry): void {
  entry.message = "assistant";
  const text = stripInjected(typeof m.content === "string" ? m.content : "");
  if (text) entry.raw.push({ kind: "agent", text });
  for (const c of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
    const id = str(c?.id);
    if (!id) continue;
    const name = str(c.name) ?? "?";
    entry.raw.push(name === SHELL ? shellCall(id, name, str(c.args?.command)) : toolCall(id, name, c.args));
    if (!ENDED.has(c.status)) continue; // still running
    const sent = responseText(c.result);
    const failed = c.status !== "success";
    const shown = str(c.resultDisplay) ?? sent;
    const exitCode = name === SHELL ? exitCodeOf(sent, c.status === "error") : undefined;
    const output = stripInjected(shown);
    entry.raw.push(resultEvent(id, name, failed, output, { exitCode, ...(c.status === "cancelled" ? { stopped: "aborted" as const } : {}) }));
  }
}

/** The text the model got for a call: its function responses' output (or error) joined. */
function responseText(result: unknown): string {
  if (!Array.isArray(result)) return "";
  return result
    .map((r: any) => {
      const response = r?.functionResponse?.response;
      return str(response?.output) ?? str(response?.error) ?? "";
    })
    .join("\n");
}

/**
 * The shell tool's exit code from its text: the last `Exit Code: N` line (Gemini CLI writes it after
 * the command's output, which may print such a line of its own), 0 when there is none and the tool
 * reported no error.
 */
export function exitCodeOf(text: string, toolError: boolean): number {
  let code: number | undefined;
  for (const m of text.matchAll(/^Exit Code: (-?\d+)[ \t]*$/gm)) code = Number(m[1]);
  return code ?? (toolError ? 1 : 0);
}
