import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failedBashCommands, readSession } from "../../cli/sessions/reader.ts";
import { SessionWriter } from "./session-writer.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/sessions");
const tmp = mkdtempSync(join(tmpdir(), "rkb-reader-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const file = (text: string | Buffer) => {
  const path = join(tmp, `s${++n}.jsonl`);
  writeFileSync(path, text);
  return path;
};

describe("fixture sessions", () => {
  test.each([
    // file, harness, messages, tool calls, bash, failed bash, compactions
    ["pi-cmake-zlib.jsonl", "pi", 21, 7, 6, 3, 1],
    ["omp-pytest.jsonl", "omp", 12, 4, 3, 1, 0],
    ["pi-branched.jsonl", "pi", 6, 2, 2, 1, 0],
    ["pi-quiet.jsonl", "pi", 5, 1, 1, 0, 0],
    // Recorded with the real Codex CLI 0.171.0 (issue 25): the exit codes are in the output text.
    ["codex-0.171.0-mcp-cmake.jsonl", "codex", 12, 4, 3, 2, 0],
    ["codex-0.171.0-compaction.jsonl", "codex", 13, 4, 3, 2, 1],
  ])("%s", async (name, harness, messages, toolCalls, bash, failed, compactions) => {
    const r = await readSession(join(FIXTURES, name));
    expect(r.kind).toBe("session");
    expect(r.harness).toBe(harness as any);
    expect(r.skipped).toEqual([]);
    expect(r.counts).toMatchObject({ messages, toolCalls, bashCommands: bash, failedBash: failed, compactions });
  });

  test("Codex CLI 0.171.0: only what the user typed is theirs (not the environment, not the summary after a compaction)", async () => {
    for (const name of ["codex-0.171.0-mcp-cmake.jsonl", "codex-0.171.0-compaction.jsonl"]) {
      const r = await readSession(join(FIXTURES, name));
      expect(r.events.filter((e) => e.kind === "user").map((e) => (e as { text: string }).text)).toEqual([
        "[scenario:main] configure the project; the cmake build fails",
      ]);
      expect(r.events.filter((e) => e.kind === "command").map((e) => [(e as any).command, (e as any).exitCode ?? 0])).toEqual([
        ["cmake -S . -B build", 1],
        ["gizmo --frobnicate", 4],
        ["ZLIB_ROOT=/opt/zlib cmake -S . -B build", 0],
      ]);
    }
  });

  test("Codex CLI 0.39: a patch applied through the shell tool is a file change, not a command", async () => {
    const line = (type: string, payload: object) => JSON.stringify({ timestamp: "2025-09-20T10:00:00.000Z", type, payload });
    const patch = "*** Begin Patch\n*** Update File: src/sum.js\n@@\n-return a - b\n+return a + b\n*** End Patch\n";
    const path = file(
      [
        line("session_meta", { id: "s-039", timestamp: "2025-09-20T10:00:00.000Z", cwd: "/home/dev/calc", cli_version: "0.39.0" }),
        line("response_item", { type: "function_call", name: "shell", arguments: JSON.stringify({ command: ["apply_patch", patch] }), call_id: "c1" }),
        line("response_item", { type: "function_call_output", call_id: "c1", output: JSON.stringify({ output: "Done!", metadata: { exit_code: 0 } }) }),
      ].join("\n"),
    );
    const r = await readSession(path);
    expect(r.events.filter((e) => e.kind === "command")).toEqual([]);
    expect(r.events.filter((e) => e.kind === "tool").map((e) => (e as any).change?.path)).toEqual(["src/sum.js"]);
  });

  test("Codex CLI 0.171: a command left running past its wait ends in the poll that reads its exit, even in a later read", async () => {
    const line = (type: string, payload: object) => JSON.stringify({ timestamp: "2026-11-20T10:00:00.000Z", type, payload });
    const call = (id: string, name: string, args: object) =>
      line("response_item", { type: "function_call", name, arguments: JSON.stringify(args), call_id: id });
    const out = (id: string, header: string, text: string) =>
      line("response_item", {
        type: "function_call_output",
        call_id: id,
        output: `Chunk ID: 9f1c2a\nWall time: 10.0 seconds\n${header}\nOriginal token count: 12\nOutput:\n${text}`,
      });
    const head = [
      line("session_meta", { id: "s-run", timestamp: "2026-11-20T10:00:00.000Z", cwd: "/home/dev/app", cli_version: "0.171.0" }),
      call("c1", "exec_command", { cmd: "cargo build --release", yield_time_ms: 10000 }),
      out("c1", "Process running with session ID 51234", "   Compiling libc v0.2.155\n"),
    ];
    const tail = [
      // A poll of a session no command left running is a tool call as any other.
      call("c2", "write_stdin", { session_id: 777, chars: "" }),
      line("response_item", { type: "function_call_output", call_id: "c2", output: "write_stdin failed: Unknown process id 777" }),
      call("c3", "write_stdin", { session_id: 51234, chars: "", yield_time_ms: 30000 }),
      out("c3", "Process running with session ID 51234", "   Compiling openssl-sys v0.9.103\n"),
      call("c4", "write_stdin", { session_id: 51234, chars: "", yield_time_ms: 30000 }),
      out(
        "c4",
        "Process exited with code 101",
        "error: failed to run custom build command for `openssl-sys v0.9.103`\n  Could not find directory of OpenSSL installation\n",
      ),
    ];
    const whole = await readSession(file([...head, ...tail].join("\n") + "\n"));
    const path = file(head.join("\n") + "\n");
    const first = await readSession(path);
    appendFileSync(path, tail.join("\n") + "\n");
    const next = await readSession(path, { fromOffset: first.endOffset, fromLine: first.endLine, harness: first.harness, pendingCalls: first.pendingCalls });
    expect(first.events).toEqual([]);
    for (const r of [whole, next]) {
      expect(r.events.map((e) => [e.kind, (e as any).command ?? (e as any).name, e.line, (e as any).exitCode])).toEqual([
        ["tool", "write_stdin", 5, undefined],
        ["command", "cargo build --release", 9, 101],
      ]);
      expect((r.events[1] as any).output).toContain("Could not find directory of OpenSSL installation");
      expect(r.counts).toMatchObject({ bashCommands: 1, failedBash: 1 });
    }
  });

  test("thinking, harness reminders, file contents and rkb's own lessons never reach an event", async () => {
    const r = await readSession(join(FIXTURES, "pi-cmake-zlib.jsonl"));
    const all = JSON.stringify(r.events);
    for (const hidden of [
      "PRIVATE REASONING",
      "HARNESS REMINDER",
      "FILE CONTENT",
      "INJECTED LESSON",
      "rkb-lesson",
      "reference data from the user's knowledge base",
      "SUCCESS OUTPUT",
    ]) {
      expect(all).not.toContain(hidden);
    }
    const failed = r.events.filter((e) => e.kind === "command" && !e.ok);
    expect(failed.map((e) => (e as any).exitCode)).toEqual([1, 1, 1]);
    expect((failed[0] as any).output).toEndWith("-- Configuring incomplete, errors occurred!");
  });

  test("the branch that leads to the last entry is read, the abandoned one is not", async () => {
    const r = await readSession(join(FIXTURES, "pi-branched.jsonl"));
    const commands = r.events.filter((e) => e.kind === "command").map((e) => (e as any).command);
    expect(commands).toEqual(["make", "make -f Makefile.linux"]);
    expect(JSON.stringify(r.events)).not.toContain("ABANDONED");
  });

  test("failedBashCommands lists each failure with its line", async () => {
    const got = failedBashCommands(await readSession(join(FIXTURES, "omp-pytest.jsonl")));
    expect(got).toEqual([
      {
        command: "python -m pytest tests/",
        error: "ImportError while loading conftest '/home/dev/pyproj/tests/conftest.py'.\nModuleNotFoundError: No module named 'requests'",
        exitCode: 4,
        entryId: expect.any(String),
        line: 8,
      },
    ]);
  });
});

describe("bad input is skipped, counted and reported by line", () => {
  const good = new SessionWriter("pi");
  good.user("hello");
  good.bash("make", "make: *** No targets.  Stop.", 2);
  good.bash("make all", "ok");
  const lines = good.text().trimEnd().split("\n");

  test("not JSON, not an object, unknown type, unknown role, invalid UTF-8, truncated last line", async () => {
    const bad = [
      lines[0],
      "this is not json",
      lines[1],
      "[1,2,3]",
      '{"type":"frobnicate","id":"ffff0001","parentId":null}',
      lines[2],
      '{"type":"message","id":"ffff0002","parentId":null,"message":{"role":"wizard","content":"x"}}',
      lines[3],
      lines[4],
      lines[5],
      lines[6],
    ];
    const bytes = Buffer.concat([
      Buffer.from(bad.join("\n") + "\n"),
      Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), // {"t<invalid>"}
      Buffer.from('{"type":"message","id":"ab'),
    ]);
    const r = await readSession(file(bytes));
    expect(r.skipped).toEqual([
      { line: 2, reason: "not valid JSON" },
      { line: 4, reason: "not a JSON object" },
      { line: 5, reason: 'unknown entry type "frobnicate"' },
      { line: 7, reason: 'unknown message role "wizard"' },
      { line: 12, reason: "invalid UTF-8" },
      { line: 13, reason: "truncated last line (no newline, not valid JSON)" },
    ]);
    // The rest of the file is still read: the failure and its fix are there.
    expect(r.counts.failedBash).toBe(1);
    expect(r.events.filter((e) => e.kind === "command").length).toBe(2);
    // The cursor stops before the truncated line so it is read again once complete.
    expect(r.endLine).toBe(12);
  });

  test("a 50 MB line is skipped without holding it, and reading goes on", async () => {
    const path = file(lines.slice(0, 3).join("\n") + "\n");
    const chunk = "x".repeat(1024 * 1024);
    appendFileSync(path, '{"type":"message","id":"big","parentId":null,"message":{"role":"user","content":"');
    for (let i = 0; i < 50; i++) appendFileSync(path, chunk);
    appendFileSync(path, '"}}\n' + lines.slice(3).join("\n") + "\n");
    const r = await readSession(path);
    expect(r.skipped).toEqual([{ line: 4, reason: "line longer than 16 MB" }]);
    expect(r.counts.bashCommands).toBe(2);
  });

  test("reading from an offset numbers lines from there and sees only new entries", async () => {
    const path = file(lines.slice(0, 4).join("\n") + "\n");
    const first = await readSession(path);
    appendFileSync(path, lines.slice(4).join("\n") + "\n");
    const next = await readSession(path, { fromOffset: first.endOffset, fromLine: first.endLine, harness: first.harness, pendingCalls: first.pendingCalls });
    expect(first.events.map((e) => e.kind)).toEqual(["model_change", "user"]);
    // The call was read the first time, its result now: the pair is still matched.
    expect(next.events.map((e) => [e.kind, e.line])).toEqual([
      ["command", 5],
      ["command", 7],
    ]);
  });

  test("event logs and RPC frames are no session: every line is reported, nothing is found", async () => {
    const r = await readSession(
      file('{"t":"2026-11-29T19:09:11.146Z","pid":1,"kind":"factory"}\n{"type":"ready","protocolVersion":1}\n{"type":"agent_start"}\n'),
    );
    expect(r.kind).toBe("not-session");
    expect(r.skipped.map((s) => s.line)).toEqual([1, 2, 3]);
    expect(r.events).toEqual([]);
  });

  test("an empty file is empty, not an error", async () => {
    const r = await readSession(file(""));
    expect(r.kind).toBe("empty");
    expect(r.skipped).toEqual([]);
  });
});

describe("Claude Code transcripts", () => {
  test("prompts, Bash calls matched to results by id, meta and sidechain entries left out", async () => {
    const entries = [
      { type: "summary", summary: "old" },
      {
        type: "user",
        uuid: "u1",
        parentUuid: null,
        sessionId: "c1",
        cwd: "/w",
        message: { role: "user", content: "Fix the build" },
        timestamp: "2026-01-01T00:00:00Z",
      },
      { type: "user", uuid: "u2", parentUuid: "u1", isMeta: true, message: { role: "user", content: "META must not appear" } },
      {
        type: "assistant",
        uuid: "a1",
        parentUuid: "u2",
        message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "make" } }] },
      },
      {
        type: "assistant",
        uuid: "s1",
        parentUuid: "a1",
        isSidechain: true,
        message: { role: "assistant", content: [{ type: "text", text: "SIDECHAIN must not appear" }] },
      },
      {
        type: "user",
        uuid: "r1",
        parentUuid: "a1",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: "Exit code 2\nmake: *** No rule to make target 'x'" }],
        },
      },
      { type: "system", uuid: "c0", parentUuid: "r1", subtype: "compact_boundary" },
      {
        type: "assistant",
        uuid: "a2",
        parentUuid: "c0",
        message: { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "Bash", input: { command: "make x" } }] },
      },
      { type: "user", uuid: "r2", parentUuid: "a2", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "done" }] } },
    ];
    const r = await readSession(file(entries.map((e) => JSON.stringify(e)).join("\n") + "\n"));
    expect(r.harness).toBe("claude-code");
    expect(r.sessionId).toBe("c1");
    expect(r.counts).toMatchObject({ toolCalls: 2, bashCommands: 2, failedBash: 1, compactions: 1 });
    expect(r.events.map((e) => e.kind)).toEqual(["user", "command", "compaction", "command"]);
    expect(r.events[1]).toMatchObject({ command: "make", ok: false, exitCode: 2, output: "make: *** No rule to make target 'x'" });
    expect(JSON.stringify(r.events)).not.toMatch(/META|SIDECHAIN/);
  });
});

describe("Claude Code background commands", () => {
  const chain = (entries: object[]) =>
    entries.map((e, i) => JSON.stringify({ sessionId: "bg", uuid: `e${i}`, parentUuid: i ? `e${i - 1}` : null, ...e })).join("\n") + "\n";
  const bash = (id: string, command: string) => ({
    type: "assistant",
    message: { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command } }] },
  });
  const result = (id: string, content: string) => ({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] } });
  const notified = (id: string, status: string, summary: string) => ({
    type: "user",
    message: {
      role: "user",
      content: `<task-notification>\n<task-id>b${id}</task-id>\n<tool-use-id>${id}</tool-use-id>\n<output-file>/tmp/claude-0/t/b${id}.output</output-file>\n<status>${status}</status>\n<summary>${summary}</summary>\n</task-notification>`,
    },
  });

  test.each([
    // how it went to the background, its notification's status and summary → the command as read
    [
      "started so",
      "Command running in background with ID: bt1. Output is being written to: /tmp/x.output.",
      "failed",
      'Background command "build" failed with exit code 2',
      { ok: false, exitCode: 2 },
    ],
    [
      "moved at its timeout",
      "Command exceeded its 120s timeout and was moved to the background (ID: bt1). Output is being written to: /tmp/x.output.",
      "completed",
      'Background command "build" completed (exit code 0)',
      { ok: true, exitCode: 0 },
    ],
    [
      "by the user",
      "Command was manually backgrounded by user with ID: bt1. Output is being written to: /tmp/x.output.",
      "killed",
      'Background command "build" was stopped',
      { ok: false, stopped: "aborted" },
    ],
  ])("%s: it ends where its notification says how, which is no words of the user", async (_how, started, status, summary, read) => {
    const r = await readSession(
      file(
        chain([
          { type: "user", message: { role: "user", content: "build it" } },
          bash("t1", "make all"),
          result("t1", started),
          notified("t1", status, summary),
        ]),
      ),
    );
    expect(r.events.map((e) => [e.kind, e.line])).toEqual([
      ["user", 1],
      ["command", 4],
    ]);
    expect(r.events[1]).toMatchObject({ command: "make all", output: "", ...read });
    expect(r.pendingCalls).toEqual({});
  });

  test("a background command with no notification yet is still pending, not a success", async () => {
    const r = await readSession(
      file(chain([bash("t1", "npm run dev"), result("t1", "Command running in background with ID: bq7. Output is being written to: /tmp/q.output.")])),
    );
    expect(r.events).toEqual([]);
    expect(r.pendingCalls).toMatchObject({ t1: { command: "npm run dev", runsAs: "bq7" } });
  });
});

describe("omp background jobs", () => {
  test("one delivery of several jobs: each bash job's result ends its own call, a task job's is nothing", async () => {
    const omp = (id: string, parentId: string | null, rest: object) => JSON.stringify({ id, parentId, timestamp: "2026-11-20T10:00:00.000Z", ...rest });
    const call = (id: string, command: string) => ({
      type: "message",
      message: { role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command, async: true } }] },
    });
    const started = (id: string, job: string) => ({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: id,
        toolName: "bash",
        content: [{ type: "text", text: `Backgrounded as job ${job}; result will be delivered automatically.` }],
        isError: false,
      },
    });
    const notice = [
      "<system-notice>",
      "3 background jobs have completed. Resume your work using the results below.",
      "",
      "── Job bg_1 (pnpm build) ──",
      "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "",
      "Command exited with code 2",
      "── Job bg_2 (pnpm lint) ──",
      "Checked 12 files.",
      "── Job task_3 ──",
      "the subagent's report",
      "</system-notice>",
    ].join("\n");
    const lines = [
      JSON.stringify({ type: "title", v: 1, title: "" }),
      JSON.stringify({ type: "session", version: 3, id: "s-omp", timestamp: "2026-11-20T10:00:00.000Z", cwd: "/home/dev/app" }),
      omp("a1", null, call("c1", "pnpm build")),
      omp("r1", "a1", started("c1", "bg_1")),
      omp("a2", "r1", call("c2", "pnpm lint")),
      omp("r2", "a2", started("c2", "bg_2")),
      omp("d1", "r2", {
        type: "custom_message",
        customType: "async-result",
        content: notice,
        details: {
          jobs: [
            { jobId: "bg_1", type: "bash", label: "pnpm build" },
            { jobId: "bg_2", type: "bash", label: "pnpm lint" },
            { jobId: "task_3", type: "task" },
          ],
        },
      }),
    ];
    const r = await readSession(file(lines.join("\n") + "\n"));
    expect(r.harness).toBe("omp");
    expect(r.events.filter((e) => e.kind === "command").map((e) => [(e as any).command, (e as any).ok, (e as any).exitCode, e.line])).toEqual([
      ["pnpm build", false, 2, 7],
      ["pnpm lint", true, undefined, 7],
    ]);
    expect((r.events.find((e) => e.kind === "command") as any).output).toBe("src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(r.counts).toMatchObject({ toolCalls: 2, bashCommands: 2, failedBash: 1 });
    expect(r.pendingCalls).toEqual({});
  });
});

describe("Claude Code bookkeeping entries", () => {
  test("entries without conversation are ignored, not reported; one in the parent chain keeps the chain whole", async () => {
    // queue-operation, atis-latch, api-request, tools-used, last-prompt and cost-state as Claude Code
    // 2.1 writes them, and an entry of a type no release wrote yet that sits in the uuid chain.
    const r = await readSession(join(FIXTURES, "../claude-code/bookkeeping.jsonl"));
    expect(r).toMatchObject({
      kind: "session",
      harness: "claude-code",
      sessionId: "5b0c2f7e-1d4a-4c39-9e61-0a7f3c2d8b14",
      cwd: "/home/dev/webapp",
      skipped: [],
    });
    expect(r.lines).toBe(14);
    expect(r.events.map((e) => e.kind)).toEqual(["user", "command", "agent", "command"]);
    expect(r.events[0]).toMatchObject({ kind: "user", text: "run the unit tests" });
    expect(r.events[1]).toMatchObject({ command: "npm test", ok: false, exitCode: 1, line: 10 });
    expect(r.events[3]).toMatchObject({ command: "npm install && npm test", ok: true });
    expect(r.counts).toMatchObject({ userMessages: 1, assistantMessages: 2, toolResults: 2, bashCommands: 2, failedBash: 1 });
  });

  test("a file that starts with a bookkeeping entry is still read as Claude Code", async () => {
    const lines = [
      { type: "atis-latch", atis: "", sessionId: "c9" },
      { type: "user", uuid: "u1", parentUuid: null, sessionId: "c9", message: { role: "user", content: "hello there" } },
    ];
    const r = await readSession(file(lines.map((l) => JSON.stringify(l)).join("\n") + "\n"));
    expect(r).toMatchObject({ kind: "session", harness: "claude-code", skipped: [] });
    expect(r.events).toMatchObject([{ kind: "user", text: "hello there" }]);
  });

  test("a broken line in a Claude Code file is still reported", async () => {
    const lines = [
      JSON.stringify({ type: "user", uuid: "u1", parentUuid: null, sessionId: "c9", message: { role: "user", content: "hi" } }),
      "{oops",
      JSON.stringify({ sessionId: "c9" }),
    ];
    const r = await readSession(file(lines.join("\n") + "\n"));
    expect(r.skipped).toEqual([
      { line: 2, reason: "not valid JSON" },
      { line: 3, reason: "entry has no `type`" },
    ]);
  });
});
