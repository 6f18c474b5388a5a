// `rkb extract` and `rkb eval --replay` over the session files Codex CLI, Gemini CLI (both formats)
// and opencode (its store) wrote against the scripted models, laid out as each program keeps them
// below its own folder (~/.codex/sessions, ~/.gemini/tmp, ~/.local/share/opencode), copied to an archive.
import { expect, test } from "bun:test";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { opencodeStore, rkb, ROOT, sandbox, ZLIB_PITFALL } from "../helpers.ts";

const FIXTURES = join(ROOT, "test", "fixtures");

function archive(dir: string): string {
  const root = join(dir, "archive");
  const codex = join(root, "codex", "sessions", "2026", "12", "01");
  const gemini = join(root, "gemini", "tmp", "zlibapp", "chats");
  const opencode = join(root, "opencode");
  for (const d of [codex, gemini, opencode]) mkdirSync(d, { recursive: true });
  cpSync(join(FIXTURES, "sessions", "codex-0.171.0-mcp-cmake.jsonl"), join(codex, "rollout-2026-12-01T22-43-15-01a233c6-cb22-7af2-bfa7-94c8aaecedcc.jsonl"));
  cpSync(join(FIXTURES, "sessions", "gemini-0.61.0-mcp-cmake.jsonl"), join(gemini, "session-2026-12-01T22-44-80f288a7.jsonl"));
  cpSync(join(FIXTURES, "gemini-json", "gemini-0.25.0-cmake.json"), join(gemini, "session-2026-12-02T00-12-014703c8.json"));
  opencodeStore(join(opencode, "opencode.db"));
  return root;
}

test("extract reads each program's sessions with their counts; eval --replay finds their failed commands", async () => {
  const box = sandbox("rkb-extract-programs");
  const root = archive(box.dir);
  const run = await rkb(["extract", root, "--dry-run", "--format", "json"], { env: box.env });
  expect(run.exit).toBe(0);
  const summary = run.json();
  const files = Object.fromEntries(summary.files.map((f: any) => [f.path.slice(root.length + 1).replace(/#.*/, "#…"), f]));
  expect(Object.keys(files).sort()).toEqual([
    "codex/sessions/2026/12/01/rollout-2026-12-01T22-43-15-01a233c6-cb22-7af2-bfa7-94c8aaecedcc.jsonl",
    "gemini/tmp/zlibapp/chats/session-2026-12-01T22-44-80f288a7.jsonl",
    "gemini/tmp/zlibapp/chats/session-2026-12-02T00-12-014703c8.json",
    "opencode/opencode.db#…",
  ]);
  for (const f of Object.values(files) as any[]) expect(f).toMatchObject({ status: "session", skipped_lines: 0 });
  expect(
    Object.values(files)
      .map((f: any) => f.harness)
      .sort(),
  ).toEqual(["codex", "gemini", "gemini", "opencode"]);
  // Each of the three recordings failed on cmake and on gizmo and fixed cmake; the older Gemini one failed on cmake.
  expect(summary).toMatchObject({ sessions: 4, not_sessions: 0, skipped_lines: 0, failed: 7 });

  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  expect((await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: ZLIB_PITFALL })).exit).toBe(0);
  const replay = await rkb(["eval", "--replay", root, "--format", "json"], { env: box.env });
  expect(replay.exit).toBe(0);
  expect(replay.json()).toMatchObject({ files: 4, failures: 7 });
});
