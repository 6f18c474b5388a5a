// `rkb hook` with the payloads Claude Code 2.1.332 sends (shapes recorded from a real run), and the
// replies it reads: hookSpecificOutput.additionalContext for context, nothing for the rest.
import { beforeEach, expect, test } from "bun:test";
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../cli/dispatch.ts";
import { hookErrorsSince, readRecords } from "../../cli/machine/state.ts";
import { ROOT, sandbox, type Sandbox, ZLIB_PITFALL } from "../helpers.ts";

let box: Sandbox;
let lessonId: string;
const SESSION = "c865e440-8bfa-4bc9-9e32-38d321dea6c7";
const common = () => ({
  session_id: SESSION,
  transcript_path: join(box.dir, "transcript.jsonl"),
  cwd: box.home,
  permission_mode: "default",
  effort: { level: "medium" },
});
const state = () => join(box.home, ".local", "state", "rkb");

async function hook(event: string, payload: Record<string, unknown>): Promise<string> {
  const r = await runCli(["hook", event], { env: box.env, cwd: box.home, stdin: JSON.stringify(payload) });
  expect(r.exit).toBe(0);
  return r.stdout.trim();
}

beforeEach(async () => {
  box = sandbox("rkb-claude-hooks");
  expect((await runCli(["init"], { env: box.env, cwd: box.home, stdin: "" })).exit).toBe(0);
  const added = await runCli(["add", "--topic", "cmake", "--format", "json"], { env: box.env, cwd: box.home, stdin: ZLIB_PITFALL });
  lessonId = JSON.parse(added.stdout).id;
});

test("SessionStart: the context comes back as additionalContext", async () => {
  const out = JSON.parse(await hook("session-start", { ...common(), hook_event_name: "SessionStart", source: "startup" }));
  expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
  expect(out.hookSpecificOutput.additionalContext).toContain("rkb holds lessons from earlier sessions");
});

test("PostToolUseFailure: the matching lesson once per session; PostToolUse after it records the fix and prints nothing", async () => {
  const failure = {
    ...common(),
    hook_event_name: "PostToolUseFailure",
    tool_name: "Bash",
    tool_input: { command: "cmake -S . -B build" },
    tool_use_id: "toolu_0002",
    error: "Exit code 1\nCMake Error at CMakeLists.txt:4 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)",
    is_interrupt: false,
    duration_ms: 50,
  };
  const out = JSON.parse(await hook("tool-failed", failure));
  expect(out.hookSpecificOutput.hookEventName).toBe("PostToolUseFailure");
  expect(out.hookSpecificOutput.additionalContext).toContain(`<rkb-lesson id="${lessonId}"`);
  expect(await hook("tool-failed", failure)).toBe("");
  const ok = {
    ...common(),
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "ZLIB_ROOT=/opt/zlib cmake -S . -B build" },
    tool_response: { stdout: "-- Found ZLIB", stderr: "", interrupted: false, isImage: false, noOutputExpected: false },
    tool_use_id: "toolu_0003",
  };
  expect(await hook("tool-ok", ok)).toBe("");
  const kinds = readRecords(box.env, SESSION).map((r) => r.kind);
  expect(kinds).toEqual(["failed", "injected", "failed", "fixed", "inferred"]);
  expect(hookErrorsSince(box.env, 0)).toEqual([]);
});

test("UserPromptSubmit: a prompt that clearly asks about a lesson gets it; Stop with nothing to say prints nothing", async () => {
  const out = JSON.parse(await hook("prompt", { ...common(), hook_event_name: "UserPromptSubmit", prompt: "how do I make cmake find zlib" }));
  expect(out.hookSpecificOutput).toMatchObject({
    hookEventName: "UserPromptSubmit",
    additionalContext: expect.stringContaining(`<rkb-lesson id="${lessonId}"`),
  });
  expect(await hook("stop", { ...common(), hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" })).toBe("");
});

test("SessionEnd: the transcript at transcript_path is captured into the inbox", async () => {
  const payload = { ...common(), hook_event_name: "SessionEnd", reason: "other" };
  copyFileSync(join(ROOT, "test", "fixtures", "claude-code", "bookkeeping.jsonl"), payload.transcript_path);
  expect(await hook("session-end", payload)).toBe("");
  const inbox = join(state(), "inbox");
  const items = readdirSync(inbox).map((n) => readFileSync(join(inbox, n), "utf8"));
  expect(items).toHaveLength(1);
  expect(items[0]).toContain("npm install && npm test");
  expect(items[0]).toContain("claude-code");
  expect(hookErrorsSince(box.env, 0)).toEqual([]);
});
