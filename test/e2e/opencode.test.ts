// Real opencode 1.18.33, headless (`opencode run`), with what `rkb install opencode` writes (the MCP
// entry in the user's opencode.jsonc, the plugin, the skill), against the scripted chat-completions
// model on 127.0.0.1.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SKILL_DESCRIPTION } from "../../cli/install/skill.ts";
import { rkb } from "../helpers.ts";
import { FakeLlm, textOf } from "./fake-llm.ts";
import { configureOpencode, OPENCODE, opencodeConfig, opencodeRun, programsInstalled } from "./programs.ts";
import { extracted, FAILING_CMAKE, FIXED_CMAKE, hookErrors, inboxItems, lessonWorld, UNRELATED_FAILURE, until } from "./world.ts";

if (!programsInstalled()) throw new Error(`opencode is not installed (${OPENCODE}): run \`npm test\` (its pretest installs it)`);

const SCENARIOS = {
  main: [
    { tool: "rkb_rkb_search", args: { query: "cmake could not find zlib" } },
    { tool: "bash", args: { command: FAILING_CMAKE, description: "Configure" } },
    { tool: "bash", args: { command: UNRELATED_FAILURE, description: "Frobnicate" } },
    { tool: "bash", args: { command: FIXED_CMAKE, description: "Configure with zlib" } },
  ],
};

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

describe("opencode 1.18.33 with rkb installed", () => {
  test("MCP search, context and the lesson after a failed command from the plugin, the skill, capture at the end of a run, the store read; uninstall gives the user's config back", async () => {
    const w = await lessonWorld("rkb-e2e-opencode");
    const llm = new FakeLlm(SCENARIOS);
    cleanup.push(() => llm.stop());
    const config = configureOpencode(w.env.XDG_CONFIG_HOME!, llm.baseUrl);
    expect((await rkb(["install", "opencode"], { env: w.env })).exit).toBe(0);

    await opencodeRun("[scenario:main] configure the project", { env: w.env, cwd: w.proj });
    const turn = llm.served.find((s) => s.tools.includes("rkb_rkb_search"))!;
    expect(turn.tools).toEqual(expect.arrayContaining(["bash", "skill", "rkb_rkb_search", "rkb_rkb_add", "rkb_rkb_note"]));
    const said = (role: string) =>
      turn.messages
        .filter((m) => m.role === role)
        .map((m) => textOf(m.content))
        .join("\n");
    // The session-start context came as a part of the user's message, not in the system prompt.
    expect(said("user")).toContain("rkb holds lessons from earlier sessions");
    expect(said("system")).not.toContain("rkb holds lessons from earlier sessions");
    // The skill is listed to the model.
    expect(JSON.stringify(turn.messages)).toContain(SKILL_DESCRIPTION);

    expect(llm.toolResultFor("rkb_rkb_search")).toContain(w.lessonId);
    const cmake = llm.toolResultFor("bash", 0)!;
    expect(cmake).toContain("Could NOT find ZLIB");
    expect(cmake).toContain(`<rkb-lesson id="${w.lessonId}"`);
    expect(llm.toolResultFor("bash", 1)).not.toContain("<rkb-lesson");
    expect(llm.toolResultFor("bash", 2)).not.toContain("<rkb-lesson");

    // The end of the run handed the session to a capture that outlives opencode; extract reads the store.
    const store = join(w.box.home, ".local", "share", "opencode", "opencode.db");
    const item = await until("the inbox item from the end of the run", () => inboxItems(w.box).find((t) => t.includes("opencode")));
    expect(item).toContain("ZLIB_ROOT=/opt/zlib");
    const read = await extracted(w.env, store);
    expect(read.files).toMatchObject([{ status: "session", harness: "opencode", skipped_lines: 0 }]);
    expect(read).toMatchObject({ failed: 2, fixed: 1 });
    expect(hookErrors(w.box)).toBe("");

    expect((await rkb(["install", "opencode", "--uninstall"], { env: w.env })).exit).toBe(0);
    expect(readFileSync(config, "utf8")).toBe(opencodeConfig(llm.baseUrl));
    expect(existsSync(join(w.env.XDG_CONFIG_HOME!, "opencode", "plugins", "rkb.ts"))).toBe(false);
  }, 90_000);
});
