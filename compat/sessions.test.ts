import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { capture } from "../cli/sessions/capture.ts";
import { readSession } from "../cli/sessions/reader.ts";
import { sandbox } from "../test/helpers.ts";

// The reader against real files written by pi 0.87.1, pi 1.6.0 and omp 18.2.3, and the reference
// transcripts. Only in a checkout next to ../shared; a user's clone skips this.
const shared = join(import.meta.dir, "../../shared");
const sessions = join(shared, "fixtures/sessions");
const transcripts = join(shared, "fixtures/rkb/transcripts");

describe.skipIf(!existsSync(shared))("session files from real harnesses", () => {
  // Two prompts × [failing bash, ok bash, throwing tool, ok tool], then one compaction.
  const scripted = {
    messages: 21,
    userMessages: 2,
    assistantMessages: 10,
    toolResults: 8,
    toolCalls: 8,
    bashCommands: 4,
    failedBash: 2,
    compactions: 1,
    modelChanges: 1,
  };
  const omp = { ...scripted, messages: 20 }; // omp writes no system message entry
  test.each([
    ["pi-0.87.1-rpc-toolcalls-compact-shutdown.jsonl", "pi", { ...scripted, customEntries: 2, entries: 26 }],
    ["pi-1.6.0-rpc-toolcalls-compact-shutdown.jsonl", "pi", { ...scripted, customEntries: 2, entries: 26 }],
    ["pi-0.87.1-extension-compaction.jsonl", "pi", { ...scripted, customEntries: 0, entries: 24 }],
    ["pi-1.6.0-extension-compaction.jsonl", "pi", { ...scripted, customEntries: 0, entries: 24 }],
    ["omp-18.2.3-rpc-toolcalls-compact-shutdown.jsonl", "omp", { ...omp, customEntries: 11, entries: 34 }],
    ["omp-18.2.3-extension-compaction.jsonl", "omp", { ...omp, customEntries: 9, entries: 32 }],
  ])("%s", async (name, harness, counts) => {
    const r = await readSession(join(sessions, name));
    expect(r).toMatchObject({ kind: "session", harness, skipped: [] });
    expect(r.counts).toEqual(counts);
    const failed = r.events.filter((e) => e.kind === "command" && !e.ok);
    expect(failed).toHaveLength(2);
    for (const f of failed) expect(f).toMatchObject({ command: "echo about-to-fail; exit 3", exitCode: 3, output: "about-to-fail" });
  });

  test.each([
    ["pi-0.87.1-probe-events.jsonl", 66],
    ["pi-1.6.0-probe-events.jsonl", 66],
    ["omp-18.2.3-probe-events.jsonl", 62],
    ["pi-0.87.1-new-session-probe-events.jsonl", 37],
    ["pi-1.6.0-new-session-probe-events.jsonl", 36],
    ["omp-18.2.3-new-session-probe-events.jsonl", 32],
    ["pi-1.6.0-rpc-stdout.jsonl", 131],
    ["omp-18.2.3-rpc-stdout.jsonl", 130],
  ])("%s is an event log: not a session, every line reported", async (name, lines) => {
    const r = await readSession(join(sessions, name));
    expect(r.kind).toBe("not-session");
    expect(r.skipped.map((s) => s.line)).toEqual(Array.from({ length: lines }, (_, i) => i + 1));
    expect(r.events).toEqual([]);
  });

  test("claude-code-2.1.332-bash-fail-ok.jsonl: every line read, bookkeeping entries ignored", async () => {
    const r = await readSession(join(sessions, "claude-code-2.1.332-bash-fail-ok.jsonl"));
    expect(r).toMatchObject({ kind: "session", harness: "claude-code", skipped: [], lines: 32 });
    expect(r.counts).toMatchObject({ userMessages: 1, assistantMessages: 3, toolResults: 2, toolCalls: 2, bashCommands: 2, failedBash: 1 });
    const commands = r.events.filter((e) => e.kind === "command");
    expect(commands).toMatchObject([
      { command: "python3 -c 'import nosuchmodule_xyz'", ok: false, exitCode: 1 },
      { command: "python3 -c 'import json; print(1)'", ok: true },
    ]);
    expect((commands[0] as { output: string }).output).toContain("ModuleNotFoundError: No module named 'nosuchmodule_xyz'");
  });

  test("every file in the folder is covered above", () => {
    expect(readdirSync(sessions).sort()).toHaveLength(15);
  });
});

describe.skipIf(!existsSync(shared))("reference transcripts (pi and Claude Code tell the same story)", () => {
  const boxes: string[] = [];
  afterAll(() => boxes.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test.each([
    ["pi.jsonl", "pi", { messages: 10, userMessages: 2, assistantMessages: 5, toolResults: 3, toolCalls: 3, bashCommands: 2, failedBash: 1, compactions: 0 }],
    [
      "claude.jsonl",
      "claude-code",
      { messages: 11, userMessages: 2, assistantMessages: 6, toolResults: 3, toolCalls: 3, bashCommands: 2, failedBash: 1, compactions: 0 },
    ],
  ])("%s: counts, the cmake fix as a draft, nothing private in the item", async (name, harness, counts) => {
    const r = await readSession(join(transcripts, name));
    expect(r.harness).toBe(harness as any);
    expect(r.skipped).toEqual([]);
    expect(r.counts).toMatchObject(counts);

    const box = sandbox("rkb-compat");
    boxes.push(box.dir);
    const c = await capture({ sessionFile: join(transcripts, name), env: box.env });
    expect(c.counts).toEqual({ failed: 1, fixed: 1, correction: 0, remember: 0, repeat: 0 });
    expect(c.drafts).toMatchObject([
      { program: "cmake", failed: { command: "cmake -B build", exitCode: 1 }, worked: { command: "cmake -B build -DZLIB_ROOT=/opt/zlib" } },
    ]);
    const item = readFileSync(join(box.env.XDG_STATE_HOME!, "rkb/inbox", `${c.itemsWritten[0]}.md`), "utf8");
    expect(item).toContain("[user] The configure step fails, can you fix it?");
    expect(item).toContain("Could NOT find ZLIB");
    for (const hidden of ["PRIVATE REASONING", "HARNESS REMINDER", "FILE CONTENT", "SUCCESS OUTPUT"]) expect(item).not.toContain(hidden);
  });
});
