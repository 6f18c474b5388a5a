import { stripInjected } from "./clean.ts";
import {
  asBlocks,
  clip,
  type Entry,
  type Header,
  joinText,
  type LineFormat,
  type RawEvent,
  resultEvent,
  runningResult,
  shellCall,
  str,
  toolCall,
} from "./entries.ts";

// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one `{timestamp, type,
// payload}` per line, in order, no tree. `session_meta` opens the file; `response_item`s hold the
// conversation (messages, `function_call`s and their `function_call_output`s, matched by call_id);
// `event_msg`s repeat it for the terminal and, like the other bookkeeping types (`turn_context`,
// `world_state`, `token_usage_record`, new ones in later releases), are passed over; `compacted`
// marks a compaction. A shell call's exit code is inside its output: a JSON object with
// `metadata.exit_code` (older releases) or a `Process exited with code N` / `Exit code: N` line
// before `Output:`; one still running then says `Process running with session ID N`, and the
// `write_stdin` polls of that id carry the rest of its output and its exit line. Facts from rollouts
// of Codex 0.39 to 0.171.

/** Types that say a file is a rollout; any other type with a payload is bookkeeping of a release. */
const TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);
const ROLLOUT_KEYS = new Set(["timestamp", "type", "payload", "ordinal"]);
/** Tools that run a shell command. */
const SHELL_TOOLS = new Set(["shell", "exec_command", "local_shell", "container.exec", "shell_command"]);
/** User messages Codex writes itself: the project's AGENTS.md, the environment, permissions. */
const CONTEXT =
  /^\s*(?:<(?:environment_context|user_instructions|permissions instructions|collaboration_mode|user_shell_command|turn_aborted)\b|# AGENTS\.md instructions)/;
const EXIT_LINE = /^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$/m;
/** An `exec_command` still running when its wait ended: `write_stdin` to this id reads on. */
const RUNNING_LINE = /^Process running with session ID (\d+)\s*$/m;
const REFUSED = /^(?:exec command rejected by user|rejected by user|command was rejected|aborted by user)/i;

export const codexFormat: LineFormat = {
  // A rollout line is `{timestamp, type, payload}` (with an `ordinal` since 0.171), whatever its type.
  claims(obj) {
    const shaped = typeof obj.type === "string" && obj.payload && typeof obj.payload === "object" && !Array.isArray(obj.payload);
    return shaped && (TYPES.has(obj.type) || (typeof obj.timestamp === "string" && Object.keys(obj).every((k) => ROLLOUT_KEYS.has(k)))) ? "codex" : undefined;
  },
  entry: readCodexEntry,
};

function readCodexEntry(obj: any, line: number, entries: Entry[], header: Header): string | undefined {
  const type: string = obj.type;
  if (typeof type !== "string") return "entry has no `type`";
  const p = obj.payload;
  if (!p || typeof p !== "object") return TYPES.has(type) ? `${type} entry without a \`payload\`` : `unknown entry type "${clip(String(type))}"`;
  if (type === "session_meta") {
    header.sessionId ??= str(p.id) ?? str(p.session_id);
    header.cwd ??= str(p.cwd);
    header.startedAt ??= str(p.timestamp) ?? str(obj.timestamp);
    return;
  }
  const entry: Entry = { line, time: str(obj.timestamp), raw: [] };
  if (type === "compacted") entry.raw.push({ kind: "compaction" });
  else if (type === "response_item") readItem(p, entry);
  else return;
  entries.push(entry);
}

function readItem(p: any, entry: Entry): void {
  if (p.type === "message") {
    const text = joinText(p.content);
    if (p.role === "assistant") {
      entry.message = "assistant";
      const said = stripInjected(text);
      if (said) entry.raw.push({ kind: "agent", text: said });
    } else if (p.role === "user") {
      entry.message = "user";
      const said = CONTEXT.test(text) || byHarness(p) ? "" : stripInjected(text);
      if (said) entry.raw.push({ kind: "user", text: said });
    } else entry.message = "other";
  } else if (p.type === "function_call" || p.type === "custom_tool_call" || p.type === "local_shell_call") {
    entry.message = "assistant";
    const id = str(p.call_id) ?? str(p.id);
    if (id) entry.raw.push(callOf(id, p));
  } else if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
    entry.message = "toolResult";
    const id = str(p.call_id);
    if (id) entry.raw.push(outputOf(id, p.output));
  }
}

/** Newer releases mark what they wrote themselves (`provenance.type: "harness"`). */
function byHarness(p: any): boolean {
  const items = p.internal_chat_message_metadata_passthrough?.content_item_metadata;
  return Array.isArray(items) && items.length > 0 && items.every((m: any) => m?.provenance?.type === "harness");
}

function callOf(id: string, p: any): RawEvent {
  const name = p.type === "local_shell_call" ? "local_shell" : (str(p.name) ?? "?");
  const args = p.type === "local_shell_call" ? p.action : p.type === "custom_tool_call" ? { input: p.input } : parseArgs(p.arguments);
  // Older releases apply a patch through the shell tool: `{"command": ["apply_patch", "*** Begin Patch…"]}`.
  if (SHELL_TOOLS.has(name) && Array.isArray(args?.command) && args.command[0] === "apply_patch" && typeof args.command[1] === "string")
    return toolCall(id, "edit", { input: args.command[1] });
  if (SHELL_TOOLS.has(name)) return shellCall(id, name, commandOf(args));
  // A poll of a command left running (an empty `chars` only waits; other input is typed into it).
  if (name === "write_stdin" && (typeof args?.session_id === "number" || typeof args?.session_id === "string"))
    return { kind: "call", callId: id, name, polls: String(args.session_id) };
  // apply_patch carries the patch as its input, as omp's patch mode does.
  if (name === "apply_patch") return toolCall(id, "edit", { input: str(args?.input) ?? str(args?.patch) ?? (typeof args === "string" ? args : undefined) });
  return toolCall(id, name, args);
}

function parseArgs(args: unknown): any {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** `cmd: "…"`, or `command: ["bash", "-lc", "…"]` (the script), or an argv joined. */
function commandOf(args: any): string | undefined {
  if (typeof args?.cmd === "string") return args.cmd;
  const argv = args?.command;
  if (typeof argv === "string") return argv;
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) return undefined;
  if (argv.length === 3 && /^(?:.*\/)?(?:ba|z|da)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2];
  return argv.join(" ");
}

/** The output with its exit code: from `metadata.exit_code`, or from the header lines before `Output:`. */
function outputOf(id: string, output: unknown): RawEvent {
  let text = typeof output === "string" ? output : joinText(asBlocks((output as any)?.content ?? output));
  let exitCode: number | undefined;
  if (text.startsWith("{")) {
    try {
      const o = JSON.parse(text);
      if (typeof o?.output === "string") text = o.output;
      if (typeof o?.metadata?.exit_code === "number") exitCode = o.metadata.exit_code;
    } catch {}
  }
  const outputAt = text.indexOf("\nOutput:\n");
  if (exitCode === undefined && outputAt !== -1) {
    const header = text.slice(0, outputAt);
    const m = EXIT_LINE.exec(header);
    if (m) {
      exitCode = Number(m[1]);
      text = text.slice(outputAt + "\nOutput:\n".length);
    } else {
      const running = RUNNING_LINE.exec(header);
      if (running) return runningResult(id, running[1]!);
    }
  }
  if (exitCode === undefined && REFUSED.test(text.trim())) return { kind: "result", callId: id, failed: true, output: "", stopped: "rejected" };
  return resultEvent(id, undefined, exitCode !== undefined && exitCode !== 0, text, { exitCode });
}
