// Every agent tool gives the same data as the command line it stands for: both adapters feed one
// handler. The compiled binary over a real git knowledge base; a write runs once per twin sandbox.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { comparable, kbFromFixture, rkb, sandbox, twin, type Sandbox } from "../helpers.ts";

setDefaultTimeout(30_000);

const SESSION = "sess-parity";

function fixtureBox(): Sandbox {
  const box = sandbox("rkb-parity");
  kbFromFixture(box);
  return box;
}

const cli = (box: Sandbox, args: string[], stdin?: string) => rkb(["--format", "json", ...args], { env: { ...box.env, RKB_HARNESS: "pi" }, stdin });
const tool = (box: Sandbox, name: string, args: unknown) =>
  rkb(["tool", name, "--format", "json", "--session-id", SESSION, "--harness", "pi"], { env: box.env, stdin: JSON.stringify(args) });

/** Runs the command line in one sandbox and the tool in its twin; both must succeed alike. */
async function samePair(cliArgs: string[], name: string, args: unknown, stdin?: string, prepare?: (box: Sandbox) => Promise<void>) {
  const a = fixtureBox();
  if (prepare) await prepare(a);
  const b = twin(a);
  const viaCli = await cli(a, cliArgs, stdin);
  const viaTool = await tool(b, name, args);
  expect({ exit: viaTool.exit, stderr: viaTool.stderr }).toEqual({ exit: viaCli.exit, stderr: viaCli.stderr });
  expect(comparable(viaTool.json(), b)).toEqual(comparable(viaCli.json(), a));
  return { a, b, cli: viaCli.json(), tool: viaTool.json() };
}

describe("a tool call and the same command line give identical data", () => {
  test("rkb_search, with a query that starts with a dash", async () => {
    const box = fixtureBox();
    for (const [args, line] of [
      [{ query: "git rebase", limit: 3, all: true }, ["search", "git rebase", "--limit", "3", "--all"]],
      [{ query: "-Wall vtable" }, ["search", "--", "-Wall vtable"]],
    ] as const) {
      const viaTool = await tool(box, "rkb_search", args);
      const viaCli = await cli(box, [...line]);
      expect(viaTool.exit).toBe(0);
      expect(viaTool.json()).toEqual(viaCli.json());
    }
  });

  test("rkb_show, found and not found", async () => {
    const box = fixtureBox();
    for (const id of ["3c0ffee002", "ffffffffff"]) {
      const viaTool = await tool(box, "rkb_show", { id });
      const viaCli = await cli(box, ["show", id]);
      expect(viaTool.exit).toBe(viaCli.exit);
      expect(viaTool.json()).toEqual(viaCli.json());
    }
  });

  test("rkb_add", async () => {
    const fields = {
      type: "fact",
      title: "Release builds go to out/release",
      topic: "build",
      tags: ["build"],
      when: { project: "imgtool" },
      statement: "Release builds land in out/release.",
      evidence: "`ls out/release` showed the binary.",
    };
    const line = [
      "add",
      "--type",
      "fact",
      "--title",
      fields.title,
      "--topic",
      "build",
      "--tag",
      "build",
      "--when",
      "project=imgtool",
      "--statement",
      fields.statement,
      "--evidence",
      fields.evidence,
      "--session",
      SESSION,
    ];
    const { a, b, cli: added } = await samePair(line, "rkb_add", fields);
    expect(added.status).toBe("written");
    const shownA = (await cli(a, ["show", added.id])).json();
    const toolId = (await rkb(["list", "projects/imgtool/build", "--format", "json"], { env: b.env })).json().lessons[0].id;
    const shownB = (await cli(b, ["show", toolId])).json();
    expect(shownA.frontmatter.meta.source).toMatchObject({ harness: "pi", session: SESSION });
    expect(comparable(shownB, b)).toEqual(comparable(shownA, a));
  });

  test("rkb_note", async () => {
    const { a, b } = await samePair(["note", "--priority", "2", "--session", SESSION, "--", "-x confuses the parser"], "rkb_note", {
      text: "-x confuses the parser",
      priority: 2,
    });
    const inbox = async (box: Sandbox) => comparable((await cli(box, ["inbox"])).json(), box);
    expect(await inbox(b)).toEqual(await inbox(a));
    expect(JSON.stringify(await inbox(a))).toContain(SESSION);
  });

  test("rkb_used: worked, and failed (which flags the lesson)", async () => {
    await samePair(["used", "3c0ffee002", "--worked", "--session", SESSION], "rkb_used", { id: "3c0ffee002", result: "worked" });
    const { cli: failed } = await samePair(["used", "3c0ffee002", "--failed", "--reason", "gone in gcc 14", "--session", SESSION], "rkb_used", {
      id: "3c0ffee002",
      result: "failed",
      reason: "gone in gcc 14",
    });
    expect(failed.flag).toBeDefined();
  });

  test("rkb_flag", async () => {
    const { cli: flagged } = await samePair(["flag", "3c0ffee002", "--reason", "out of date"], "rkb_flag", { id: "3c0ffee002", reason: "out of date" });
    expect(flagged.status).toBe("written");
  });

  test("rkb_edit", async () => {
    const box = fixtureBox();
    const shown = (await cli(box, ["show", "3c0ffee002"])).json();
    const file = await Bun.file(`${box.kb}/${shown.path}`).text();
    const text = file.replace("# ", "# Still: ");
    const { cli: edited } = await samePair(
      ["edit", "3c0ffee002", "--base", shown.hash, "--session", SESSION],
      "rkb_edit",
      { id: "3c0ffee002", base: shown.hash, text },
      text,
    );
    expect(edited.status).toBe("written");
  });
});
