// opencode's sessions from its SQLite store: the store is made here from the rows opencode 1.18.33
// wrote in a recorded run (test/fixtures/opencode/opencode-1.18.33-mcp-cmake.json, with the tables'
// own schema), then read as rkb reads the real one.
import { Database } from "bun:sqlite";
import { beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isSqlite, opencodeSessions, splitSource } from "../../cli/sessions/opencode.ts";
import { readSession } from "../../cli/sessions/reader.ts";
import { insertRow, opencodeStore, recordedOpencode, ROOT, sandbox } from "../helpers.ts";

const RECORDED = recordedOpencode();
const SESSION = RECORDED.session[0]!.id as string;

let db: string;

beforeEach(() => {
  db = join(sandbox("rkb-opencode").dir, "opencode.db");
  opencodeStore(db);
});

/** A message of the session and its parts, as opencode adds them while it runs. */
function add(message: { role: string; time: { created: number; completed?: number } }, parts: Record<string, unknown>[]): void {
  const store = new Database(db);
  const id = `msg_zz${Math.random().toString(36).slice(2, 10)}`;
  const at = message.time.created;
  insertRow(store, "message", { id, session_id: SESSION, time_created: at, time_updated: at, data: JSON.stringify(message) });
  parts.forEach((p, i) => {
    insertRow(store, "part", {
      id: `prt_${id.slice(4)}${i}`,
      message_id: id,
      session_id: SESSION,
      time_created: 1796165130000,
      time_updated: 1796165130000,
      data: JSON.stringify(p),
    });
  });
  store.close();
}

describe("opencode sessions through readSession", () => {
  test("the recorded session: the prompt, MCP search, the failed and fixed commands with exit codes, counts", async () => {
    const read = await readSession(`${db}#${SESSION}`);
    expect(read).toMatchObject({ kind: "session", harness: "opencode", sessionId: SESSION, cwd: "/home/dev/zlibapp" });
    const kinds = read.events.map((e) => (e.kind === "command" ? `${e.kind}:${e.command}:${e.exitCode}` : e.kind === "tool" ? `tool:${e.name}` : e.kind));
    expect(kinds).toEqual([
      "user",
      "tool:rkb_rkb_search",
      "command:cmake -S . -B build:1",
      "command:gizmo --frobnicate:4",
      "command:ZLIB_ROOT=/opt/zlib cmake -S . -B build:0",
      "agent",
    ]);
    const failed = read.events.find((e) => e.kind === "command" && !e.ok)!;
    expect(failed.kind === "command" && failed.output).toContain("Could NOT find ZLIB");
    // Counted by part: the prompt, four tool calls with their results, the closing text.
    expect(read.counts).toMatchObject({
      entries: 16,
      messages: 6,
      userMessages: 1,
      assistantMessages: 1,
      toolResults: 4,
      toolCalls: 4,
      bashCommands: 3,
      failedBash: 2,
    });
    expect(read.skipped).toEqual([]);
    expect(read.endOffset).toBe(16);
  });

  test("from the cursor on: only what came since; a message still being written waits", async () => {
    const first = await readSession(`${db}#${SESSION}`);
    expect((await readSession(`${db}#${SESSION}`, { fromOffset: first.endOffset })).events).toEqual([]);
    add({ role: "user", time: { created: 1796165130000 } }, [
      { type: "text", text: "no, use the system zlib" },
      { type: "text", text: "rkb holds lessons from earlier sessions", synthetic: true },
    ]);
    add({ role: "assistant", time: { created: 1796165131000 } }, [{ type: "text", text: "half a thought" }]);
    const next = await readSession(`${db}#${SESSION}`, { fromOffset: first.endOffset });
    expect(next.events.map((e) => e.kind === "user" && e.text)).toEqual(["no, use the system zlib"]);
    expect(next.endOffset).toBe(first.endOffset + 2);
  });

  test("a part of a kind rkb does not know is skipped and named, the rest read", async () => {
    const first = await readSession(`${db}#${SESSION}`);
    add({ role: "assistant", time: { created: 1796165132000, completed: 1796165133000 } }, [{ type: "hologram" }, { type: "text", text: "done" }]);
    const next = await readSession(`${db}#${SESSION}`, { fromOffset: first.endOffset });
    expect(next.skipped).toEqual([{ line: 17, reason: 'unknown part type "hologram"' }]);
    expect(next.events.map((e) => e.kind)).toEqual(["agent"]);
  });

  test("a bare store is no session; its sessions are listed as sources", async () => {
    expect(isSqlite(db)).toBe(true);
    expect(isSqlite(join(ROOT, "package.json"))).toBe(false);
    expect((await readSession(db)).kind).toBe("not-session");
    expect(opencodeSessions(db)).toEqual([`${db}#${SESSION}`]);
    expect(splitSource(`${db}#${SESSION}`)).toEqual({ db, session: SESSION });
    expect((await readSession(`${db}#ses_nosuchsession`)).kind).toBe("empty");
  });
});
