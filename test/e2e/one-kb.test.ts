// One knowledge base across the agents: a lesson Codex CLI records through rkb's MCP server is found
// by Gemini CLI, which records one of its own; opencode and omp find both. (Claude Code → pi is in
// claude.test.ts, so each of the six reads what another wrote.)
import { afterEach, describe, expect, test } from "bun:test";
import { rkb } from "../helpers.ts";
import { AGENTS, configureAgent, RpcAgent } from "./agent.ts";
import { FakeGemini } from "./fake-gemini.ts";
import { FakeLlm } from "./fake-llm.ts";
import { FakeResponses } from "./fake-responses.ts";
import { codexExec, configureCodex, configureGemini, configureOpencode, geminiPrompt, opencodeRun } from "./programs.ts";
import { GIZMO_LESSON, lessonWorld } from "./world.ts";

const FROM_GEMINI = {
  type: "fact",
  title: "The widget test rig needs the calibration table from the sensor lab",
  topic: "widget",
  statement: "`widget build` reads `.widget-calibration`, which only `widget-calibrate` on the lab machine writes.",
  evidence: "`widget build` failed with `calibration table missing` until the table was copied in.",
};

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

const idIn = (text: string | undefined) => /^id: (\S+)$/m.exec(text ?? "")?.[1];

describe("one knowledge base", () => {
  test("Codex CLI records a lesson, Gemini CLI finds it and records another, opencode and omp find both", async () => {
    const w = await lessonWorld("rkb-e2e-one-kb");
    const codexLlm = new FakeResponses({ add: [{ tool: "mcp__rkb__rkb_add", args: GIZMO_LESSON }] });
    const geminiLlm = new FakeGemini({
      find: [
        { tool: "mcp_rkb_rkb_search", args: { query: "sprocket cache frobnicate" } },
        { tool: "mcp_rkb_rkb_add", args: FROM_GEMINI },
      ],
    });
    const openLlm = new FakeLlm({ find: [{ tool: "rkb_rkb_search", args: { query: "sprocket cache calibration table", all: true } }] });
    const ompLlm = new FakeLlm({ find: [{ tool: "rkb_search", args: { query: "sprocket cache calibration table", all: true } }] });
    cleanup.push(() => [codexLlm, geminiLlm, openLlm, ompLlm].forEach((s) => s.stop()));
    configureCodex(w.box.home, codexLlm.baseUrl);
    configureGemini(w.box.home);
    configureOpencode(w.env.XDG_CONFIG_HOME!, openLlm.baseUrl);
    const omp = AGENTS.find((a) => a.harness === "omp")!;
    configureAgent(omp, w.box.home, ompLlm.baseUrl);
    for (const h of ["codex", "gemini", "opencode", "omp"]) expect((await rkb(["install", h], { env: w.env })).exit).toBe(0);

    await codexExec("[scenario:add] remember the gizmo fix", { env: w.env, cwd: w.proj });
    const fromCodex = idIn(codexLlm.toolOutputs("mcp__rkb__rkb_add")[0]);
    expect(fromCodex).toBeString();
    expect(JSON.stringify((await rkb(["show", fromCodex!, "--format", "json"], { env: w.env })).json())).toContain("codex");

    await geminiPrompt("[scenario:find] why does gizmo overheat", geminiLlm.baseUrl, { env: w.env, cwd: w.proj });
    expect(geminiLlm.toolResponses("mcp_rkb_rkb_search")[0]).toContain(fromCodex!);
    const fromGemini = idIn(JSON.parse(geminiLlm.toolResponses("mcp_rkb_rkb_add")[0]!).output);
    expect(fromGemini).toBeString();

    await opencodeRun("[scenario:find] what do we know about gizmo and widget", { env: w.env, cwd: w.proj });
    const found = openLlm.toolResultFor("rkb_rkb_search");
    expect(found).toContain(fromCodex!);
    expect(found).toContain(fromGemini!);

    const agent = new RpcAgent(omp, { env: w.env, cwd: w.proj });
    try {
      await agent.prompt("[scenario:find] what do we know about gizmo and widget");
      expect(ompLlm.toolResultFor("rkb_search")).toContain(fromCodex!);
      expect(ompLlm.toolResultFor("rkb_search")).toContain(fromGemini!);
    } finally {
      await agent.close();
    }
  }, 240_000);
});
