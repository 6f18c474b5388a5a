// The learning loop in real pi and omp: a session fails on an error no lesson covers and fixes it;
// compaction files the failure → fix → success in the inbox; the scripted model distills the item
// with rkb_add and `from_item`; the next session's same failure gets the new lesson injected.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox, BIN, type Sandbox, withPrograms } from "../helpers.ts";
import { AGENTS, agentsInstalled, configureAgent, RpcAgent } from "./agent.ts";
import { FakeLlm, type Step } from "./fake-llm.ts";

const WIDGET_ERROR = "widget: error: calibration table missing for sensor array (run widget-calibrate first)";

// A stand-in tool: `widget build` fails until `widget-calibrate` wrote the table in the project.
const FAKE_WIDGET = `#!/bin/sh
if [ ! -f .widget-calibration ]; then
  echo "Loading config from $PWD/widget.toml"
  echo "${WIDGET_ERROR}" >&2
  exit 3
fi
echo "built fw.bin"
`;
const FAKE_CALIBRATE = `#!/bin/sh
echo "table" > .widget-calibration
echo "calibrated 12 sensors"
`;

const AGENT_TEST_MS = 90_000;

if (!agentsInstalled())
  throw new Error("the e2e agents are not installed: run `npm test` (its pretest installs them) or `npm install --omit=optional` in test/e2e/agents");

let boxes: { box: Sandbox; llm: FakeLlm }[] = [];
afterEach(() => {
  for (const b of boxes) {
    b.llm.stop();
    rmSync(b.box.dir, { recursive: true, force: true });
  }
  boxes = [];
});

describe("the learning loop in real agents", () => {
  for (const kind of AGENTS) {
    test(
      `${kind.name}: distilled with rkb_add from_item, the same failure next session gets the lesson`,
      async () => {
        const box = sandbox("rkb-e2e-learn");
        const env = withPrograms(box, { widget: FAKE_WIDGET, "widget-calibrate": FAKE_CALIBRATE });
        expect((await rkb(["init"], { env })).exit).toBe(0);

        // The distill step's arguments are known only once the item exists: filled in below.
        const distill: Step = { tool: "rkb_add", args: {} };
        const llm = new FakeLlm({
          learn: [
            { tool: "bash", args: { command: "widget build --target fw" } },
            { tool: "bash", args: { command: "widget-calibrate --all" } },
            { tool: "bash", args: { command: "widget build --target fw" } },
          ],
          distill: [distill],
          again: [{ tool: "bash", args: { command: "widget build" } }],
        });
        boxes.push({ box, llm });
        configureAgent(kind, box.home, llm.baseUrl);
        expect(Bun.spawnSync([BIN, "install", kind.harness], { env, cwd: box.home }).exitCode).toBe(0);

        const first = join(box.dir, "fw");
        mkdirSync(first);
        const agent = new RpcAgent(kind, { env, cwd: first });
        try {
          await agent.prompt("[scenario:learn] build the firmware");
          // Nothing in the knowledge base knows this error yet.
          expect(llm.toolResultFor("bash", 0)).toContain(WIDGET_ERROR);
          expect(llm.toolResultFor("bash", 0)).not.toContain("<rkb-lesson");
          expect(llm.toolResultFor("bash", 2)).toContain("built fw.bin");
          await agent.request({ type: "compact" });
          const item = await until("the inbox item", async () =>
            (await rkb(["inbox", "--format", "json"], { env })).json().items.find((i: any) => i.add?.length),
          );
          expect(item.add[0]).toStartWith(`rkb add --from ${item.id} --topic widget`);

          distill.args = {
            from_item: item.id,
            type: "pitfall",
            title: "widget build needs widget-calibrate in a fresh checkout",
            topic: "widget",
            cause: "The calibration table is generated per checkout by widget-calibrate; a fresh checkout has none.",
          };
          await agent.prompt("[scenario:distill] /rkb-distill");
          expect((await rkb(["inbox", "--format", "json"], { env })).json().items).toEqual([]);
        } finally {
          await agent.close();
        }
        const lessons = (await rkb(["search", "calibration table missing", "--format", "json"], { env })).json().results;
        expect(lessons).toHaveLength(1);
        const lessonId = lessons[0].id as string;
        expect(llm.toolResultFor("rkb_add")).toContain(lessonId);
        // Filled from the draft: the fix step, the error line as a query, the session it came from.
        const shown = JSON.stringify((await rkb(["show", lessonId, "--format", "json"], { env })).json());
        expect(shown).toContain("widget-calibrate --all");
        expect(shown).toContain(WIDGET_ERROR);
        expect(shown).toContain(`"harness":"${kind.harness}"`);

        // A new session in a fresh checkout: the same failure, now with the lesson.
        const second = join(box.dir, "fw2");
        mkdirSync(second);
        const next = new RpcAgent(kind, { env, cwd: second });
        try {
          await next.prompt("[scenario:again] build it here too");
          const result = llm.toolResultFor("bash", 3)!;
          expect(result).toContain(WIDGET_ERROR);
          expect(result).toContain(`<rkb-lesson id="${lessonId}"`);
        } finally {
          await next.close();
        }
        const errors = join(box.home, ".local", "state", "rkb", "hook-errors.log");
        expect(existsSync(errors) ? readFileSync(errors, "utf8") : "").toBe("");
      },
      AGENT_TEST_MS,
    );
  }
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(200);
  }
}
