// `rkb hook … --harness codex|gemini` with the payloads Codex CLI 0.171.0 and Gemini CLI 0.61.0 send
// (shapes recorded from real runs), and the replies they read.
import { beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeInRollout } from "../../cli/agent/hooks/codex.ts";
import { exitCodeOf } from "../../cli/sessions/gemini.ts";
import { runCli } from "../../cli/dispatch.ts";
import { hookCalls, hookErrorsSince, readRecords } from "../../cli/machine/state.ts";
import { sandbox, type Sandbox, ZLIB_PITFALL } from "../helpers.ts";

let box: Sandbox;
let lessonId: string;
const SESSION = "01a233b8-f0e0-7d73-b273-5c166e82d06d";
const CMAKE_OUTPUT =
  "-- The C compiler identification is GNU 12.2.0\nCMake Error at CMakeLists.txt:4 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\n";

async function hook(event: string, harness: string, payload: Record<string, unknown>): Promise<string> {
  const r = await runCli(["hook", event, "--harness", harness], { env: box.env, cwd: box.home, stdin: JSON.stringify(payload) });
  expect(r.exit).toBe(0);
  return r.stdout.trim();
}

beforeEach(async () => {
  box = sandbox("rkb-dialect-hooks");
  expect((await runCli(["init"], { env: box.env, cwd: box.home, stdin: "" })).exit).toBe(0);
  const added = await runCli(["add", "--topic", "cmake", "--format", "json"], { env: box.env, cwd: box.home, stdin: ZLIB_PITFALL });
  lessonId = JSON.parse(added.stdout).id;
});

/** A rollout whose last lines are the command events Codex writes before its PostToolUse hook runs. */
function rollout(commands: { id: string; exit: number }[]): string {
  const path = join(box.dir, "rollout.jsonl");
  const line = (c: { id: string; exit: number }) =>
    JSON.stringify({
      timestamp: "2026-12-01T22:28:08.307Z",
      ordinal: 12,
      type: "event_msg",
      payload: {
        type: "item_completed",
        item: {
          type: "CommandExecution",
          id: c.id,
          command: ["/bin/bash", "-c", "cmake -S . -B build"],
          status: c.exit ? "failed" : "completed",
          aggregated_output: "…",
          exit_code: c.exit,
        },
      },
    });
  writeFileSync(
    path,
    `${JSON.stringify({ timestamp: "2026-12-01T22:28:08.076Z", ordinal: 0, type: "session_meta", payload: { id: SESSION } })}\n${commands.map(line).join("\n")}\n`,
  );
  return path;
}

describe("Codex CLI", () => {
  const common = (transcript: string) => ({
    session_id: SESSION,
    turn_id: "01a233b8-f0f7-7a43-9784-1c79e2cce311",
    transcript_path: transcript,
    cwd: box.home,
    model: "fake-model",
    permission_mode: "bypassPermissions",
  });
  const postToolUse = (transcript: string, id: string, command: string, output: string) => ({
    ...common(transcript),
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_response: output,
    tool_use_id: id,
  });

  test("a failed command (its exit code from the rollout) gets the lesson as additionalContext, once; the fix is recorded", async () => {
    const transcript = rollout([
      { id: "call_14", exit: 1 },
      { id: "call_15", exit: 0 },
    ]);
    const out = JSON.parse(await hook("tool-done", "codex", postToolUse(transcript, "call_14", "cmake -S . -B build", CMAKE_OUTPUT)));
    expect(out.hookSpecificOutput.hookEventName).toBe("PostToolUse");
    expect(out.hookSpecificOutput.additionalContext).toContain(`<rkb-lesson id="${lessonId}"`);
    expect(await hook("tool-done", "codex", postToolUse(transcript, "call_14", "cmake -S . -B build", CMAKE_OUTPUT))).toBe("");
    expect(await hook("tool-done", "codex", postToolUse(transcript, "call_15", "ZLIB_ROOT=/opt/zlib cmake -S . -B build", "-- Found ZLIB"))).toBe("");
    expect(readRecords(box.env, SESSION).map((r) => r.kind)).toEqual(["failed", "injected", "failed", "fixed", "inferred"]);
    expect(hookCalls(box.env).map((c) => c.harness)).toEqual(["codex"]);
    expect(hookErrorsSince(box.env, 0)).toEqual([]);
  });

  test("a command the rollout does not show is neither failure nor fix: no lesson, nothing recorded", async () => {
    const transcript = rollout([{ id: "call_1", exit: 1 }]);
    expect(await hook("tool-done", "codex", postToolUse(transcript, "call_99", "cmake -S . -B build", CMAKE_OUTPUT))).toBe("");
    expect(readRecords(box.env, SESSION)).toEqual([]);
    expect(exitCodeInRollout(join(box.dir, "missing.jsonl"), "call_1")).toBeUndefined();
  });

  test("SessionStart and UserPromptSubmit take additionalContext; Stop with nothing to say prints nothing", async () => {
    const transcript = rollout([]);
    const start = JSON.parse(await hook("session-start", "codex", { ...common(transcript), hook_event_name: "SessionStart", source: "startup" }));
    expect(start.hookSpecificOutput.additionalContext).toContain("rkb holds lessons from earlier sessions");
    const recall = JSON.parse(
      await hook("prompt", "codex", { ...common(transcript), hook_event_name: "UserPromptSubmit", prompt: "how do I make cmake find zlib" }),
    );
    expect(recall.hookSpecificOutput).toMatchObject({ hookEventName: "UserPromptSubmit", additionalContext: expect.stringContaining(lessonId) });
    expect(await hook("stop", "codex", { ...common(transcript), hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" })).toBe("");
  });
});

describe("Gemini CLI", () => {
  const common = () => ({
    session_id: "0e42401c-30e8-4558-82ba-6ff70f7c42eb",
    transcript_path: join(box.dir, "session.jsonl"),
    cwd: box.home,
    timestamp: "2026-12-01T22:35:16.901Z",
  });
  const afterTool = (command: string, output: string, exit?: number) => ({
    ...common(),
    hook_event_name: "AfterTool",
    tool_name: "run_shell_command",
    tool_input: { command },
    tool_response: {
      llmContent: `<untrusted_context>\nOutput: ${output}${exit === undefined ? "" : `\nExit Code: ${exit}`}\nProcess Group PGID: 15138\n</untrusted_context>`,
      returnDisplay: output.trimEnd(),
    },
  });

  test("AfterTool: a failed command gets the lesson, a command that worked records the fix", async () => {
    const out = JSON.parse(await hook("tool-done", "gemini", afterTool("cmake -S . -B build", CMAKE_OUTPUT, 1)));
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: "AfterTool", additionalContext: expect.stringContaining(`<rkb-lesson id="${lessonId}"`) });
    expect(await hook("tool-done", "gemini", afterTool("ZLIB_ROOT=/opt/zlib cmake -S . -B build", "-- Found ZLIB"))).toBe("");
    expect(readRecords(box.env, common().session_id).map((r) => r.kind)).toEqual(["failed", "injected", "fixed", "inferred"]);
    expect(hookErrorsSince(box.env, 0)).toEqual([]);
  });

  test("BeforeAgent recalls; AfterAgent with nothing to say prints nothing", async () => {
    const recall = JSON.parse(await hook("prompt", "gemini", { ...common(), hook_event_name: "BeforeAgent", prompt: "how do I make cmake find zlib" }));
    expect(recall.hookSpecificOutput.additionalContext).toContain(lessonId);
    expect(await hook("stop", "gemini", { ...common(), hook_event_name: "AfterAgent", prompt: "x", prompt_response: "y", stop_hook_active: false })).toBe("");
  });

  test.each([
    ["Output: x\nExit Code: 2\nProcess Group PGID: 1", false, 2],
    ["Output: x\nProcess Group PGID: 1", false, 0],
    ["Output: x", true, 1],
    ["Output: Exit Code: 3 is in the output\nProcess Group PGID: 1", false, 0],
  ])("exit code of %j (tool error %p) is %p", (text, error, code) => {
    expect(exitCodeOf(text, error)).toBe(code);
  });
});
