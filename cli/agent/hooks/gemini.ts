import { exitCodeOf } from "../../sessions/gemini.ts";
import { type HookDialect, obj, str } from "./dialect.ts";

// Gemini CLI's side of `rkb hook`, as Gemini CLI 0.61.0 sends it (the rkb extension's
// hooks/hooks.json). AfterTool fires for every shell command; the exit code is only a line of the
// text the model gets (`Exit Code: 1`, absent when the command worked), `returnDisplay` is the plain
// output. PreCompress is left unbound: 0.61.0 fires it before every model turn, compressing or not.
// Gemini escapes `<` and `>` of the context it is given, so the lesson's frame reaches the model as
// `&lt;rkb-lesson …&gt;` (still one block, still marked as reference data).

export const geminiDialect: HookDialect = {
  harness: "gemini",
  bindings: [
    { event: "SessionStart", rkb: "session-start" },
    { event: "BeforeAgent", rkb: "prompt" },
    { event: "AfterTool", matcher: "^run_shell_command$", rkb: "tool-done" },
    { event: "AfterAgent", rkb: "stop" },
    { event: "SessionEnd", rkb: "session-end" },
  ],
  contextEvents: new Set(["SessionStart", "BeforeAgent", "AfterTool"]),
  stopEvents: new Set(["AfterAgent"]),
  payload(raw) {
    const response = obj(raw.tool_response);
    const shown = str(response.returnDisplay);
    const sent = textOf(response.llmContent);
    return {
      session_id: str(raw.session_id),
      session_file: str(raw.transcript_path) || undefined,
      cwd: str(raw.cwd),
      harness: "gemini",
      reason: str(raw.reason) ?? str(raw.source),
      command: str(obj(raw.tool_input).command),
      error: shown ?? sent,
      exit_code: "tool_response" in raw ? exitCodeOf(sent, response.error !== undefined) : undefined,
      prompt: str(raw.prompt),
      stop_hook_active: raw.stop_hook_active === true,
    };
  },
};

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => str(obj(p).text) ?? "").join("\n");
  return str(obj(content).text) ?? "";
}
