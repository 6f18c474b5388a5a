// Real Gemini CLI 0.61.0, headless (`gemini -p`), with the extension `rkb install gemini` writes,
// against a scripted Gemini API on 127.0.0.1; the user's settings.json (with a comment) is never touched.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SKILL_DESCRIPTION } from "../../cli/install/skill.ts";
import { rkb } from "../helpers.ts";
import { FakeGemini } from "./fake-gemini.ts";
import { configureGemini, GEMINI, GEMINI_SETTINGS, geminiPrompt, programsInstalled } from "./programs.ts";
import { extracted, FAILING_CMAKE, FIXED_CMAKE, filesBelow, hookErrors, inboxItems, lessonWorld, UNRELATED_FAILURE } from "./world.ts";

if (!programsInstalled()) throw new Error(`Gemini CLI is not installed (${GEMINI}): run \`npm test\` (its pretest installs it)`);

const SCENARIOS = {
  main: [
    { tool: "mcp_rkb_rkb_search", args: { query: "cmake could not find zlib" } },
    { tool: "run_shell_command", args: { command: FAILING_CMAKE } },
    { tool: "run_shell_command", args: { command: UNRELATED_FAILURE } },
    { tool: "run_shell_command", args: { command: FIXED_CMAKE } },
  ],
};

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

describe("Gemini CLI 0.61.0 with the rkb extension", () => {
  test("MCP search, the lesson after a failed command, the skill and context, capture at the end, the session read; uninstall removes the extension only", async () => {
    const w = await lessonWorld("rkb-e2e-gemini");
    const llm = new FakeGemini(SCENARIOS);
    cleanup.push(() => llm.stop());
    const settings = configureGemini(w.box.home);
    expect((await rkb(["install", "gemini"], { env: w.env })).exit).toBe(0);
    const doctor = async () => (await rkb(["doctor", "--format", "json"], { env: w.env })).json().checks.find((c: any) => c.check === "install: gemini");
    expect(await doctor()).toMatchObject({ status: "ok" });

    await geminiPrompt("[scenario:main] configure the project", llm.baseUrl, { env: w.env, cwd: w.proj });
    const first = llm.served[0]!;
    expect(first.tools).toEqual(expect.arrayContaining(["run_shell_command", "mcp_rkb_rkb_search", "mcp_rkb_rkb_add", "mcp_rkb_rkb_note"]));
    const text = (s = first) => JSON.stringify(s.contents) + s.system;
    expect(text()).toContain(SKILL_DESCRIPTION);
    // The session-start context came with the prompt (SessionStart's additionalContext).
    expect(text()).toContain("rkb holds lessons from earlier sessions");

    // rkb_search reached rkb through the extension's MCP server.
    expect(llm.toolResponses("mcp_rkb_rkb_search")[0]).toContain(w.lessonId);

    // The failed cmake's result carries the lesson (Gemini CLI escapes the frame's < and >); the others none.
    const [cmake, gizmo, fixed] = llm.toolResponses("run_shell_command");
    expect(cmake).toContain("Exit Code: 1");
    expect(cmake).toContain(`&lt;rkb-lesson id=\\"${w.lessonId}\\"`);
    expect(gizmo).toContain("flux capacitor overheated");
    expect(gizmo).not.toContain("rkb-lesson");
    expect(fixed).toContain("Found ZLIB");
    expect(fixed).not.toContain("rkb-lesson");

    // The session end handed the session file to rkb; extract reads it too.
    const [session] = filesBelow(join(w.box.home, ".gemini", "tmp"), "*/chats/session-*.jsonl");
    expect(inboxItems(w.box).find((t) => t.includes("gemini"))).toContain("ZLIB_ROOT=/opt/zlib");
    const read = await extracted(w.env, session!);
    expect(read.files).toMatchObject([{ status: "session", harness: "gemini", skipped_lines: 0 }]);
    expect(read).toMatchObject({ failed: 2, fixed: 1 });
    expect(hookErrors(w.box)).toBe("");

    expect((await rkb(["install", "gemini", "--uninstall"], { env: w.env })).exit).toBe(0);
    expect(existsSync(join(w.box.home, ".gemini", "extensions", "rkb"))).toBe(false);
    expect(readFileSync(settings, "utf8")).toBe(GEMINI_SETTINGS);
    expect(await doctor()).toMatchObject({ status: "warn", detail: expect.stringContaining("rkb is not installed") });
  }, 90_000);
});
