// Gemini CLI sessions, as Gemini CLI wrote them against the scripted model: JSON lines (0.61.0) and
// one JSON document (0.25.0).
import { describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSession, type SessionRead } from "../../cli/sessions/reader.ts";
import { ROOT, sandbox } from "../helpers.ts";

const LINES = join(ROOT, "test", "fixtures", "sessions", "gemini-0.61.0-mcp-cmake.jsonl");
const DOCUMENT = join(ROOT, "test", "fixtures", "gemini-json", "gemini-0.25.0-cmake.json");

const shown = (r: SessionRead) =>
  r.events.map((e) =>
    e.kind === "command" ? `command:${e.command}:${e.exitCode}` : e.kind === "tool" ? `tool:${e.name}` : `${e.kind}:${"text" in e ? e.text : ""}`,
  );

describe("Gemini CLI sessions", () => {
  test("0.61.0 JSON lines: the prompt (Gemini's own context left out), MCP search, the commands with exit codes, each record once", async () => {
    const r = await readSession(LINES);
    expect(r).toMatchObject({ kind: "session", harness: "gemini", sessionId: "80f288a7-d5c6-4601-8a1d-d83c0df60204", skipped: [] });
    expect(shown(r)).toEqual([
      "user:[scenario:main] configure the project; the cmake build fails",
      "tool:mcp_rkb_rkb_search",
      "command:cmake -S . -B build:1",
      "command:gizmo --frobnicate:4",
      "command:ZLIB_ROOT=/opt/zlib cmake -S . -B build:0",
      "agent:All done.",
    ]);
    const failed = r.events.find((e) => e.kind === "command" && !e.ok)!;
    expect(failed.kind === "command" && failed.output).toContain("Could NOT find ZLIB");
    expect(failed.kind === "command" && failed.output).not.toContain("Process Group PGID");
    expect(r.counts).toMatchObject({ toolCalls: 4, bashCommands: 3, failedBash: 2, userMessages: 1 });
  });

  test("0.25.0, one JSON document: read whole, the same records", async () => {
    const r = await readSession(DOCUMENT);
    expect(r).toMatchObject({ kind: "session", harness: "gemini", sessionId: "014703c8-9367-4123-bde5-9333730e7036" });
    expect(shown(r).slice(0, 2)).toEqual(["user:[scenario:main] configure the project", "command:cmake -S . -B build:1"]);
    expect(r.counts.failedBash).toBe(1);
  });

  test("what rkb's hooks added and an unknown record kind: left out, the unknown one skipped and named", async () => {
    const file = join(sandbox("rkb-gemini").dir, "session.jsonl");
    copyFileSync(LINES, file);
    const extra = [
      {
        id: "u2",
        timestamp: "2026-12-01T22:45:00.000Z",
        type: "user",
        content: [{ text: "<hook_context>rkb: &lt;rkb-lesson id=x&gt;</hook_context>\n\nno, use the system zlib" }],
      },
      { id: "v1", timestamp: "2026-12-01T22:45:01.000Z", type: "vision", content: "?" },
    ];
    writeFileSync(file, readFileSync(file, "utf8") + extra.map((e) => JSON.stringify(e)).join("\n") + "\n");
    const r = await readSession(file);
    expect(shown(r).at(-1)).toBe("user:no, use the system zlib");
    expect(r.skipped).toEqual([{ line: 28, reason: 'unknown record type "vision"' }]);
  });

  test("read from the cursor on, a record written again with its tool calls is read then", async () => {
    const all = readFileSync(LINES, "utf8").split("\n");
    const file = join(sandbox("rkb-gemini").dir, "session.jsonl");
    // Up to the first model record, written before its tool call ran.
    writeFileSync(file, all.slice(0, 5).join("\n") + "\n");
    const first = await readSession(file);
    expect(first.counts.toolCalls).toBe(0);
    writeFileSync(file, all.join("\n"));
    const next = await readSession(file, { fromOffset: first.endOffset, fromLine: first.endLine, harness: "gemini" });
    expect(next.counts.toolCalls).toBe(4);
    expect(next.events.filter((e) => e.kind === "user")).toEqual([]);
  });
});
