import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type HookDialect, obj, str } from "./dialect.ts";

// Codex CLI's side of `rkb hook`, as Codex 0.171.0 sends it (~/.codex/hooks.json, Claude Code's
// shape). Codex has no failure event: PostToolUse fires for every shell command, with the output
// (`tool_response`, a string) but no exit code. By then the rollout (`transcript_path`) already holds
// the command's `item_completed` event with its `exit_code` (it is written before the hook runs,
// observed every time); rkb reads it from the rollout's tail. A command it cannot find there is
// treated as unknown, so it gets no lesson.

export const codexDialect: HookDialect = {
  harness: "codex",
  bindings: [
    { event: "SessionStart", rkb: "session-start" },
    { event: "UserPromptSubmit", rkb: "prompt" },
    { event: "PostToolUse", matcher: "Bash", rkb: "tool-done" },
    { event: "Stop", rkb: "stop" },
    { event: "PreCompact", rkb: "pre-compact" },
    { event: "SessionEnd", rkb: "session-end" },
  ],
  contextEvents: new Set(["SessionStart", "UserPromptSubmit", "PostToolUse"]),
  stopEvents: new Set(["Stop"]),
  payload(raw) {
    const rollout = str(raw.transcript_path);
    const callId = str(raw.tool_use_id);
    const response = raw.tool_response;
    return {
      session_id: str(raw.session_id),
      session_file: rollout,
      cwd: str(raw.cwd),
      harness: "codex",
      reason: str(raw.reason) ?? str(raw.source),
      command: str(obj(raw.tool_input).command),
      error: typeof response === "string" ? response : str(obj(response).output),
      exit_code: rollout && callId ? exitCodeInRollout(rollout, callId) : undefined,
      prompt: str(raw.prompt),
      stop_hook_active: raw.stop_hook_active === true,
    };
  },
};

/** How much of the rollout's end is searched: a command's event is among the last lines when its hook runs. */
const TAIL_BYTES = 1 << 20;

/** The exit code the rollout records for the command with this call id, from its last MiB; undefined when not there. */
export function exitCodeInRollout(path: string, callId: string): number | undefined {
  let text: string;
  try {
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, TAIL_BYTES);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      text = buf.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const id = JSON.stringify(callId);
  for (const line of text.split("\n").reverse()) {
    if (!line.includes(id) || !line.includes('"CommandExecution"')) continue;
    try {
      const item = obj(obj(obj(JSON.parse(line)).payload).item);
      if (item.type === "CommandExecution" && item.id === callId && typeof item.exit_code === "number") return item.exit_code;
    } catch {
      // The first line of the tail may be cut; it is not the one.
    }
  }
  return undefined;
}
