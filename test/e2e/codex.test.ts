// Real Codex CLI 0.171.0, headless (`codex exec`), with what `rkb install codex` writes, against a
// scripted Responses API on 127.0.0.1; the user's config.toml and hooks.json have entries of their own.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SKILL_DESCRIPTION } from "../../cli/install/skill.ts";
import { rkb, type Sandbox } from "../helpers.ts";
import { FakeResponses, SESSION, textOfItem } from "./fake-responses.ts";
import { CODEX, codexConfig, codexExec, configureCodex, programsInstalled } from "./programs.ts";
import { extracted, FAILING_CMAKE, FIXED_CMAKE, filesBelow, hookErrors, inboxItems, lessonWorld, UNRELATED_FAILURE } from "./world.ts";

if (!programsInstalled()) throw new Error(`Codex CLI is not installed (${CODEX}): run \`npm test\` (its pretest installs it)`);

const SCENARIOS = {
  main: [
    { tool: "mcp__rkb__rkb_search", args: { query: "cmake could not find zlib" } },
    { tool: "exec_command", args: { cmd: FAILING_CMAKE } },
    { tool: "exec_command", args: { cmd: UNRELATED_FAILURE } },
    { tool: "exec_command", args: { cmd: FIXED_CMAKE } },
  ],
  // Both cmake runs outlast their wait: Codex leaves them running, and polls give their ends.
  slow: [
    { tool: "exec_command", args: { cmd: `sleep 1 && ${FAILING_CMAKE}`, yield_time_ms: 250 } },
    { tool: "write_stdin", args: { session_id: SESSION, chars: "", yield_time_ms: 10_000 } },
    { tool: "exec_command", args: { cmd: `sleep 1 && ${FIXED_CMAKE}`, yield_time_ms: 250 } },
    { tool: "write_stdin", args: { session_id: SESSION, chars: "", yield_time_ms: 10_000 } },
  ],
};

/** A hook of the user's own, which rkb must keep. */
const USER_HOOKS = `{
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "true" }] }]
  }
}
`;

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

async function codexWorld() {
  const w = await lessonWorld("rkb-e2e-codex");
  const llm = new FakeResponses(SCENARIOS);
  cleanup.push(() => llm.stop());
  const config = configureCodex(w.box.home, llm.baseUrl);
  const hooks = join(w.box.home, ".codex", "hooks.json");
  writeFileSync(hooks, USER_HOOKS);
  return { ...w, llm, config, hooks };
}

const doctorCheck = async (box: Sandbox, name: string) =>
  (await rkb(["doctor", "--format", "json"], { env: box.env })).json().checks.find((c: any) => c.check === name);

describe("Codex CLI 0.171.0 with rkb installed", () => {
  test("MCP search, the lesson after a failed command, the skill, capture at the end, the rollout read; install, doctor and uninstall keep the user's settings", async () => {
    const w = await codexWorld();
    const installed = await rkb(["install", "codex", "--format", "json"], { env: w.env });
    expect(installed.exit).toBe(0);
    // Codex runs hooks only once trusted; doctor says so (this run bypasses the review, as automation may).
    expect(await doctorCheck(w.box, "install: codex")).toMatchObject({ status: "warn", detail: expect.stringContaining("not trusted") });

    await codexExec("[scenario:main] configure the project", { env: w.env, cwd: w.proj });
    const first = w.llm.served[0]!;
    expect(first.tools).toEqual(expect.arrayContaining(["exec_command", "mcp__rkb__rkb_search", "mcp__rkb__rkb_add", "mcp__rkb__rkb_note"]));
    const texts = (s = first) => s.input.map((i) => textOfItem(i.content ?? i.output)).join("\n");
    // The skill is listed, and the session-start context came from the SessionStart hook.
    expect(texts()).toContain(SKILL_DESCRIPTION);
    expect(texts()).toContain("rkb holds lessons from earlier sessions");

    // rkb_search reached rkb through MCP (with the user's RKB_HOME, which Codex passes on because the entry names it).
    expect(w.llm.toolOutputs("mcp__rkb__rkb_search")[0]).toContain(w.lessonId);

    // The failed cmake got the lesson, once; the unrelated failure and the fix got none.
    const last = w.llm.served.at(-1)!;
    const blocks = texts(last).split(`<rkb-lesson id="${w.lessonId}"`).length - 1;
    expect(blocks).toBe(1);
    const [cmake, gizmo, fixed] = w.llm.toolOutputs("exec_command");
    expect(cmake).toContain("Process exited with code 1");
    expect(gizmo).toContain("flux capacitor overheated");
    expect(fixed).toContain("Found ZLIB");
    const afterCmake = last.input.findIndex((i) => i.type === "function_call" && i.arguments?.includes(FAILING_CMAKE));
    const afterGizmo = last.input.findIndex((i) => i.type === "function_call" && i.arguments?.includes(UNRELATED_FAILURE));
    const lessonAt = last.input.findIndex((i) => textOfItem(i.content).includes(`<rkb-lesson id="${w.lessonId}"`));
    expect(lessonAt).toBeGreaterThan(afterCmake);
    expect(lessonAt).toBeLessThan(afterGizmo);
    // The session end handed the rollout to rkb: the failure and its fix are in the inbox.
    const [rollout] = filesBelow(join(w.box.home, ".codex", "sessions"), "**/rollout-*.jsonl");
    const item = inboxItems(w.box).find((t) => t.includes("codex"));
    expect(item).toContain("ZLIB_ROOT=/opt/zlib");
    // And extract reads the rollout Codex wrote: two commands failed (cmake, gizmo), one fixed.
    const read = await extracted(w.env, rollout!);
    expect(read.files).toMatchObject([{ status: "session", harness: "codex", skipped_lines: 0 }]);
    expect(read).toMatchObject({ failed: 2, fixed: 1 });
    expect(hookErrors(w.box)).toBe("");

    // Uninstall: config.toml and hooks.json are the user's again, byte for byte.
    const removed = await rkb(["install", "codex", "--uninstall"], { env: w.env });
    expect(removed.exit).toBe(0);
    expect(readFileSync(w.config, "utf8")).toBe(codexConfig(w.llm.baseUrl));
    expect(readFileSync(w.hooks, "utf8")).toBe(USER_HOOKS);
    expect(existsSync(join(w.box.home, ".codex", "skills", "rkb"))).toBe(false);
    expect(await doctorCheck(w.box, "install: codex")).toMatchObject({ status: "warn", detail: expect.stringContaining("rkb is not installed") });
  }, 90_000);

  test("a command left running past its wait: the polls' results are its end, so its failure and fix are read", async () => {
    const w = await codexWorld();
    await codexExec("[scenario:slow] configure the project", { env: w.env, cwd: w.proj });
    const polls = w.llm.toolOutputs("write_stdin");
    expect(w.llm.toolOutputs("exec_command").every((o) => /Process running with session ID \d+/.test(o))).toBe(true);
    expect(polls[0]).toContain("Process exited with code 1");
    expect(polls[1]).toContain("Process exited with code 0");
    const [rollout] = filesBelow(join(w.box.home, ".codex", "sessions"), "**/rollout-*.jsonl");
    const read = await extracted(w.env, rollout!);
    expect(read).toMatchObject({ failed: 1, fixed: 1 });
    expect(JSON.stringify((read as any).drafts)).toContain("ZLIB_ROOT=/opt/zlib");
  }, 90_000);
});
