// `rkb hook <event>` in-process, against a real knowledge base in a sandbox.
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../cli/dispatch.ts";
import { hookCalls, hookErrorsSince, readRecords } from "../../cli/machine/state.ts";
import { addItem } from "../../cli/inbox/inbox.ts";
import { sandbox, type Sandbox, ZLIB_PITFALL } from "../helpers.ts";

const CMAKE_ERROR =
  "CMake Error at CMakeLists.txt:4 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\n\n\nCommand exited with code 1";

let box: Sandbox;
const state = () => join(box.home, ".local", "state", "rkb");
/** The hook errors in the state, oldest first, one JSON line each ("" for none). */
const errors = () =>
  hookErrorsSince(box.env, 0)
    .reverse()
    .map((e) => JSON.stringify(e) + "\n")
    .join("");

async function hook(event: string, payload: Record<string, unknown> | string, flags: string[] = []) {
  const r = await runCli(["hook", event, ...flags], { env: box.env, cwd: box.home, stdin: typeof payload === "string" ? payload : JSON.stringify(payload) });
  expect(r.exit).toBe(0);
  return r.stdout;
}

async function withKb(): Promise<string> {
  expect((await runCli(["init"], { env: box.env, cwd: box.home, stdin: "" })).exit).toBe(0);
  const added = await runCli(["add", "--topic", "cmake", "--format", "json"], { env: box.env, cwd: box.home, stdin: ZLIB_PITFALL });
  expect(added.exit).toBe(0);
  return JSON.parse(added.stdout).id;
}

beforeEach(() => {
  box = sandbox("rkb-hooks");
});

describe("rkb hook never fails", () => {
  test("an unknown event or a bad payload: exit 0, nothing printed, one log line", async () => {
    expect(await hook("bogus", {})).toBe("");
    expect(await hook("tool-failed", "{not json")).toBe("");
    const lines = errors()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event)).toEqual(["bogus", "tool-failed"]);
    expect(lines[0].error).toContain("unknown hook event");
    expect(typeof lines[0].time).toBe("number");
  });

  test("a payload is checked against its schema: a wrong value is named in the log, null counts as absent", async () => {
    expect(await hook("tool-ok", { session_id: "s", command: ["make"] })).toBe("");
    expect(errors()).toContain("the hook payload's `command` must be a string");
    expect(await hook("stop", { session_id: "s", session_file: null, extra: { newer: "field" } })).toBe("");
    expect(errors().trim().split("\n")).toHaveLength(1);
  });

  test("without a knowledge base every event is silent and logs nothing", async () => {
    const base = { session_id: "s", cwd: box.home, harness: "pi" };
    expect(await hook("session-start", base)).toBe("");
    expect(await hook("tool-failed", { ...base, command: "cmake .", error: CMAKE_ERROR })).toBe("");
    expect(await hook("tool-ok", { ...base, command: "cmake ." })).toBe("");
    expect(await hook("prompt", { ...base, prompt: "remember that cmake needs ZLIB_ROOT here" })).toBe("");
    expect(await hook("stop", base)).toBe("");
    expect(errors()).toBe("");
    // The session record still learns what happened.
    expect(readRecords(box.env, "s").map((r) => r.kind)).toEqual(["failed", "fixed", "remember"]);
  });

  test("each call is noted as the harness's last hook call", async () => {
    const before = Math.floor(Date.now() / 1000);
    await hook("tool-ok", { session_id: "s", command: "ls", harness: "omp" });
    await hook("session-start", { session_id: "s", cwd: box.home, harness: "omp" });
    await hook("tool-ok", { session_id: "s", command: "ls", harness: "pi" });
    const calls = hookCalls(box.env);
    expect(calls.map((c) => [c.harness, c.event])).toEqual([
      ["omp", "session-start"],
      ["pi", "tool-ok"],
    ]);
    for (const c of calls) expect(c.time).toBeGreaterThanOrEqual(before);
  });
});

describe("session-start", () => {
  test("prints the context lines when there is a knowledge base", async () => {
    await withKb();
    const out = await hook("session-start", { session_id: "s", cwd: box.home });
    expect(out).toContain("lessons here:");
    expect(out.split("\n").length).toBeLessThanOrEqual(5);
  });

  test("adds one line about a full inbox", async () => {
    await withKb();
    const note = () => addItem(box.env, { kind: "note", time: Math.floor(Date.now() / 1000) }, "a note");
    for (let i = 0; i < 4; i++) note();
    expect(await hook("session-start", { session_id: "s", cwd: box.home })).not.toContain("rkb inbox:");
    note();
    const out = await hook("session-start", { session_id: "s", cwd: box.home });
    expect(out.trim().split("\n").at(-1)).toMatch(/^rkb inbox: 5 items wait .*the oldest 0 days old.*\/rkb-distill/);
  });
});

describe("tool-failed and tool-ok", () => {
  test("a matching failure injects the lesson once per session; another session gets it again", async () => {
    const id = await withKb();
    const failed = { session_id: "s1", cwd: box.home, command: "cmake -S . -B build", error: CMAKE_ERROR };
    const out = await hook("tool-failed", failed);
    expect(out).toContain(`<rkb-lesson id="${id}"`);
    expect(out).toMatch(/\nChosen because it quotes \d+% of the error line "[^\n]+"/);
    expect(await hook("tool-failed", failed)).toBe("");
    expect(await hook("tool-failed", { ...failed, session_id: "s2" })).toContain(`<rkb-lesson id="${id}"`);
    const usage = readdirSync(join(box.kb, ".rkb", "usage"))
      .map((f) => readFileSync(join(box.kb, ".rkb", "usage", f), "utf8"))
      .join("");
    const injected = usage
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((r) => r.event === "injected");
    expect(injected.map((r) => r.session)).toEqual(["s1", "s2"]);
    expect(injected[0].reason).toStartWith("tool-failed, ");
  });

  test("a failure no lesson covers prints nothing and is noted once per program", async () => {
    await withKb();
    const failed = { session_id: "s", cwd: box.home, command: "gizmo --frob", error: "gizmo: the flux capacitor overheated\n\n\nCommand exited with code 4" };
    expect(await hook("tool-failed", failed)).toBe("");
    expect(await hook("tool-failed", failed)).toBe("");
    expect(readRecords(box.env, "s").map((r) => r.kind)).toEqual(["failed", "nohit", "failed"]);
  });

  test("success after failure is a fix, and the lesson injected in between is credited", async () => {
    const id = await withKb();
    await hook("tool-failed", { session_id: "s", cwd: box.home, command: "cmake -S . -B build", error: CMAKE_ERROR });
    await hook("tool-ok", { session_id: "s", cwd: box.home, command: "ZLIB_ROOT=/opt/zlib cmake -S . -B build" });
    await hook("tool-ok", { session_id: "s", cwd: box.home, command: "cmake --build build" });
    const kinds = readRecords(box.env, "s").map((r) => (r.kind === "fixed" ? `fixed ${r.program}` : r.kind));
    expect(kinds).toEqual(["failed", "injected", "fixed cmake", "inferred"]);
    const usage = readdirSync(join(box.kb, ".rkb", "usage"))
      .map((f) => readFileSync(join(box.kb, ".rkb", "usage", f), "utf8"))
      .join("");
    expect(usage).toContain(`"id":"${id}","event":"inferred"`);
    expect(usage).toContain("cmake worked after it was injected");
  });
});

describe("prompt", () => {
  test("a clearly matching prompt recalls the lesson, once; corrections and reminders are recorded", async () => {
    const id = await withKb();
    const ask = { session_id: "s", cwd: box.home, prompt: "how do I make cmake find zlib" };
    expect(await hook("prompt", ask)).toContain(`<rkb-lesson id="${id}"`);
    expect(await hook("prompt", ask)).toBe("");
    expect(await hook("prompt", { ...ask, prompt: "Actually, use ninja. Remember that the build dir is out/." })).toBe("");
    expect(readRecords(box.env, "s").map((r) => r.kind)).toEqual(["injected", "correction", "remember"]);
  });

  test("slash commands and very short prompts recall nothing", async () => {
    await withKb();
    expect(await hook("prompt", { session_id: "s", cwd: box.home, prompt: "/rkb-retro cmake zlib" })).toBe("");
    expect(await hook("prompt", { session_id: "s", cwd: box.home, prompt: "cmake zlib" })).toBe("");
  });
});

describe("pre-compact and session-end", () => {
  function piSession(dir: string): string {
    const file = join(dir, "2026-11-29T10-00-00-000Z_0195-aaaa.jsonl");
    const t = "2026-11-29T10:00:00.000Z";
    const lines = [
      { type: "session", version: 3, id: "0195-aaaa", timestamp: t, cwd: dir },
      { type: "message", id: "a1", parentId: null, timestamp: t, message: { role: "user", content: [{ type: "text", text: "build it" }] } },
      {
        type: "message",
        id: "a2",
        parentId: "a1",
        timestamp: t,
        message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "cmake -S . -B build" } }] },
      },
      {
        type: "message",
        id: "a3",
        parentId: "a2",
        timestamp: t,
        message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: CMAKE_ERROR }], isError: true },
      },
      {
        type: "message",
        id: "a4",
        parentId: "a3",
        timestamp: t,
        message: {
          role: "assistant",
          content: [{ type: "toolCall", id: "c2", name: "bash", arguments: { command: "ZLIB_ROOT=/opt/zlib cmake -S . -B build" } }],
        },
      },
      {
        type: "message",
        id: "a5",
        parentId: "a4",
        timestamp: t,
        message: { role: "toolResult", toolCallId: "c2", toolName: "bash", content: [{ type: "text", text: "-- Found ZLIB" }], isError: false },
      },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return file;
  }
  const inbox = () =>
    existsSync(join(state(), "inbox")) ? readdirSync(join(state(), "inbox")).map((n) => readFileSync(join(state(), "inbox", n), "utf8")) : [];

  test("the payload as flags (no stdin): the failed→fixed pair becomes one inbox item, once", async () => {
    const dir = join(box.dir, "proj");
    mkdirSync(dir);
    const file = piSession(dir);
    expect(await hook("pre-compact", "", ["--session-file", file, "--session-id", "0195-aaaa", "--cwd", dir, "--harness", "pi"])).toBe("");
    expect(await hook("session-end", "", ["--session-file", file, "--session-id", "0195-aaaa", "--cwd", dir, "--harness", "pi", "--reason", "quit"])).toBe("");
    const items = inbox();
    expect(items).toHaveLength(1);
    expect(items[0]).toContain("session: 0195-aaaa");
    expect(items[0]).toContain("ZLIB_ROOT=/opt/zlib cmake -S . -B build");
    expect(items[0]).toContain("pre-compact");
    expect(errors()).toBe("");
  });

  test("no session file (--no-session) or one never written: nothing, and no error", async () => {
    expect(await hook("session-end", { session_id: "x", harness: "omp" })).toBe("");
    expect(await hook("session-end", "", ["--session-file", join(box.dir, "missing.jsonl"), "--harness", "pi"])).toBe("");
    expect(inbox()).toEqual([]);
    expect(errors()).toBe("");
  });
});

describe("stop nudge", () => {
  const turnOn = () => {
    mkdirSync(join(box.home, ".config", "rkb"), { recursive: true });
    writeFileSync(join(box.home, ".config", "rkb", "config.toml"), "[hooks]\nstop_nudge = true\n");
  };

  test("off by default, even after a request to remember", async () => {
    await hook("prompt", { session_id: "s", prompt: "remember that builds go to out/" });
    expect(await hook("stop", { session_id: "s" })).toBe("");
  });

  test("when on: asks once after a reminder, not again for the same records, never while continuing", async () => {
    turnOn();
    expect(await hook("stop", { session_id: "s" })).toBe("");
    await hook("prompt", { session_id: "s", prompt: "remember that builds go to out/" });
    expect(await hook("stop", { session_id: "s", stop_hook_active: true })).toBe("");
    const note = await hook("stop", { session_id: "s" });
    expect(note).toContain("1 request(s) to remember something");
    expect(note).toContain("rkb_add");
    expect(await hook("stop", { session_id: "s" })).toBe("");
  });

  test("fixes alone do not nudge", async () => {
    turnOn();
    await hook("tool-failed", { session_id: "s", command: "make", error: "make: *** No rule to make target" });
    await hook("tool-ok", { session_id: "s", command: "make all" });
    expect(await hook("stop", { session_id: "s" })).toBe("");
  });
});
