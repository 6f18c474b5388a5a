import { stripInjected } from "./clean.ts";
import {
  clip,
  type Entry,
  type Header,
  joinText,
  keepsNothing,
  keptOutput,
  type LineFormat,
  otherBlocks,
  readAgentBlocks,
  resultEvent,
  runningResult,
  TEXT_BLOCKS,
} from "./entries.ts";

// pi and omp session files: a `session` header (older pi: no `version`, entries without ids), then
// entries chained by id/parentId; omp files open with a `title` line. Messages hold the user's
// words, the agent's text and tool calls, tool results, and the user's own `!` commands
// (`bashExecution`, with their output and exit code).

const TYPES = new Set([
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
const ROLES = new Set(["user", "assistant", "toolResult", "system", "bashExecution", "custom", "branchSummary", "compactionSummary"]);

export const piFormat: LineFormat = {
  claims(obj, firstType) {
    const type = obj.type;
    if (typeof type !== "string") return undefined;
    if (type === "session" || (TYPES.has(type) && type !== "title" && typeof obj.id === "string")) return firstType === "title" ? "omp" : "pi";
    return undefined;
  },
  entry: readPiEntry,
  unread: unreadOfPi,
};

/**
 * What readPiEntry never reads whole: a quiet result's content (only its end, for an exit code),
 * and the blocks of a message that are neither text nor a tool call (thinking, images).
 */
function unreadOfPi(obj: any): [object, string | number][] {
  const m = obj.message;
  if (obj.type !== "message" || !m || typeof m !== "object") return [];
  if (m.role === "toolResult") return keepsNothing(m.isError === true, joinText(m.content)) ? [[m, "content"]] : [];
  if (m.role !== "user" && m.role !== "assistant") return [];
  const read = m.role === "user" ? TEXT_BLOCKS : ASSISTANT_BLOCKS;
  return otherBlocks(m.content, read);
}

const ASSISTANT_BLOCKS = new Set(["text", "toolCall"]);
/** pi's and omp's tool calls: `toolCall` blocks with `arguments`; the shell tool is `bash`. */
const CALLS = { block: "toolCall", args: "arguments", shell: "bash" };

function readPiEntry(obj: any, line: number, entries: Entry[], header: Header): string | undefined {
  const type: string = obj.type;
  if (typeof type !== "string") return "entry has no `type`";
  if (!TYPES.has(type)) return `unknown entry type "${clip(type)}"`;
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
    if (!ROLES.has(m.role)) return `unknown message role "${clip(m.role)}"`;
    if (m.role === "user") {
      entry.message = "user";
      const text = stripInjected(joinText(m.content));
      if (text) entry.raw.push({ kind: "user", text });
    } else if (m.role === "assistant") {
      entry.message = "assistant";
      readAgentBlocks(m.content, entry, CALLS);
    } else if (m.role === "toolResult") {
      entry.message = "toolResult";
      if (typeof m.toolCallId === "string") {
        const text = joinText(m.content);
        const job = m.isError === true ? null : BACKGROUNDED.exec(text.slice(-200));
        entry.raw.push(job ? runningResult(m.toolCallId, job[1]!) : resultEvent(m.toolCallId, m.toolName, m.isError === true, text));
      }
    } else if (m.role === "bashExecution" && typeof m.command === "string") {
      entry.message = "other";
      const exitCode = typeof m.exitCode === "number" ? m.exitCode : undefined;
      const ok = exitCode === 0 && m.cancelled !== true;
      const output = ok ? "" : keptOutput(typeof m.output === "string" ? m.output : "");
      entry.raw.push({ kind: "ran", command: m.command, ok, exitCode, output, ...(m.cancelled === true ? { stopped: "aborted" as const } : {}) });
    } else entry.message = "other";
  } else if (type === "compaction") {
    entry.raw.push({ kind: "compaction" });
  } else if (type === "model_change") {
    const model = typeof obj.model === "string" ? obj.model : [obj.provider, obj.modelId].filter((p) => typeof p === "string").join("/");
    entry.raw.push({ kind: "model_change", model });
  } else if (type === "custom" || type === "custom_message") {
    entry.raw.push({ kind: "custom", customType: typeof obj.customType === "string" ? obj.customType : "?" });
    if (type === "custom_message" && obj.customType === "async-result") readJobResults(obj, entry);
  }
  entries.push(entry);
}

/** omp's answer for a bash call it runs on in the background (asked for, or past its wait): the job's id. */
const BACKGROUNDED = /Backgrounded as job (\S+); result will be delivered automatically\.\s*$/;

/**
 * omp's delivery of finished background jobs (`async-result`): one notice, the result of each job
 * in it (after `── Job <id> … ──` when there are several). Each bash job's result `ends` the call
 * left running as that id.
 */
function readJobResults(obj: any, entry: Entry): void {
  const jobs: { jobId: string; type?: unknown }[] = (Array.isArray(obj.details?.jobs) ? obj.details.jobs : []).filter((j: any) => typeof j?.jobId === "string");
  const text = joinText(obj.content).replace(/\n<\/system-notice>\s*$/, "");
  const headers = jobs.length > 1 ? jobs.map((j) => text.indexOf(`\n── Job ${j.jobId}`)) : [text.indexOf("\n")];
  jobs.forEach((job, i) => {
    if ((job.type ?? "bash") !== "bash" || headers[i]! < 0) return;
    const start = text.indexOf("\n", headers[i]! + 1) + 1;
    const next = headers.slice(i + 1).find((h) => h > start);
    entry.raw.push(resultEvent(`${entry.id ?? entry.line}:${job.jobId}`, undefined, false, text.slice(start, next ?? text.length), { ends: job.jobId }));
  });
}
