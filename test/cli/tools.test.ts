// `rkb tools` and `rkb tool <name>` as the extension runs them: the compiled binary, JSON on stdin.
import { beforeAll, describe, expect, test } from "bun:test";
import { rkb, sandbox, type Sandbox } from "../helpers.ts";

const LESSON = `---
type: pitfall
verified_how: ran
tags:
  - git
---

# git push is rejected after a force push upstream

## Symptom
\`git push\` fails with \`Updates were rejected because the tip of your current branch is behind\`.

## Cause
Someone rewrote the remote branch.

## Fix
Run \`git pull --rebase\`, then push again.

## Evidence
After \`git pull --rebase\` the push went through.
`;

let box: Sandbox;
let lessonId: string;
const tool = (name: string, args: unknown, flags: string[] = []) =>
  rkb(["tool", name, ...flags], { env: box.env, stdin: typeof args === "string" ? args : JSON.stringify(args) });

beforeAll(async () => {
  box = sandbox("rkb-tools");
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  const added = await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: LESSON });
  expect(added.exit).toBe(0);
  lessonId = added.json().id;
});

describe("rkb tools", () => {
  test("prints the seven tool definitions and the slash commands", async () => {
    const r = await rkb(["tools", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    const data = r.json();
    expect(data.tools.map((t: any) => t.name)).toEqual(["rkb_search", "rkb_show", "rkb_add", "rkb_note", "rkb_used", "rkb_flag", "rkb_edit"]);
    for (const t of data.tools) {
      expect(Object.keys(t).sort()).toEqual(["description", "inputSchema", "label", "name", "snippet"]);
      expect(t.inputSchema.additionalProperties).toBe(false);
    }
    expect(data.commands.map((c: any) => c.name)).toEqual(["rkb-retro", "rkb-distill", "rkb-curate"]);
    for (const c of data.commands) expect(c.prompt).toContain(c.arguments_token);
  });

  test("human output lists tools and commands", async () => {
    const r = await rkb(["tools"], { env: box.env });
    expect(r.stdout).toContain("rkb_search");
    expect(r.stdout).toContain("/rkb-retro");
  });
});

describe("rkb tool <name>", () => {
  test("rkb_search prints what `rkb search --toon` prints, inside the lesson frame", async () => {
    const viaTool = await tool("rkb_search", { query: "git push rejected", limit: 5 });
    const direct = await rkb(["search", "git push rejected", "--limit", "5", "--toon"], { env: box.env });
    expect(viaTool.exit).toBe(0);
    const lines = viaTool.stdout.trimEnd().split("\n");
    expect(lines[1]).toBe('<rkb-lesson tool="rkb_search">');
    expect(lines.at(-1)).toBe("</rkb-lesson>");
    expect(lines.slice(2, -1).join("\n") + "\n").toBe(direct.stdout);
    expect(viaTool.stdout).toContain(lessonId);
  });

  test("--format json gives the command's JSON", async () => {
    const r = await tool("rkb_show", { id: lessonId }, ["--format", "json"]);
    expect(r.exit).toBe(0);
    expect(r.json().id).toBe(lessonId);
  });

  test("rkb_add records the session and harness it came from", async () => {
    const r = await tool(
      "rkb_add",
      {
        type: "fact",
        title: "Release builds go to out/release",
        topic: "build",
        statement: "Release builds land in out/release.",
        evidence: "`ls out/release` showed the binary.",
      },
      ["--session-id", "sess-42", "--harness", "omp", "--format", "json"],
    );
    expect(r.exit).toBe(0);
    const shown = await rkb(["show", r.json().id, "--format", "json"], { env: box.env });
    expect(shown.json().frontmatter.meta.source).toMatchObject({ harness: "omp", session: "sess-42" });
  });

  test("without --session-id the id comes from the session file's name", async () => {
    const r = await tool(
      "rkb_add",
      { type: "fact", title: "Docs live in site/", topic: "docs", statement: "Docs are in site/.", evidence: "`ls site` listed them." },
      ["--session-file", "/home/u/.pi/agent/sessions/--x--/2026-11-29T10-00-00-000Z_0195f3aa-1111.jsonl", "--format", "json"],
    );
    expect(r.exit).toBe(0);
    const shown = await rkb(["show", r.json().id, "--format", "json"], { env: box.env });
    expect(shown.json().frontmatter.meta.source.session).toBe("0195f3aa-1111");
  });

  test("--cwd decides where the command runs", async () => {
    const r = await tool("rkb_search", { query: "git push" }, ["--cwd", box.dir]);
    expect(r.exit).toBe(0);
  });

  test("the command's errors keep its exit code and come as TOON on stdout", async () => {
    const r = await tool("rkb_show", { id: "nope-nope" });
    expect(r.exit).toBe(1);
    expect(r.stdout).toContain("code: not_found");
  });

  test("bad arguments are usage errors (exit 2) naming the problem", async () => {
    const cases: [string, unknown, string][] = [
      ["rkb_search", { query: "x", limt: 3 }, "`limt` is not an argument of rkb_search"],
      ["rkb_show", {}, "rkb_show needs `id`"],
      ["rkb_search", "{oops", "not valid JSON"],
      ["rkb_used", { id: lessonId, result: "failed" }, "needs a `reason`"],
      ["rkb_add", { type: "recipe", title: "T", topic: "t", when_to_use: "w", evidence: "e" }, "a recipe needs `steps`"],
      ["rkb_serch", {}, "`rkb_serch` is not an rkb tool"],
    ];
    for (const [name, args, message] of cases) {
      const r = await tool(name, args, ["--toon"]);
      expect({ name, exit: r.exit }).toEqual({ name, exit: 2 });
      expect(r.stdout).toContain(message);
    }
  });

  test("rkb_used and rkb_note write through the real commands", async () => {
    expect((await tool("rkb_used", { id: lessonId, result: "worked" }, ["--session-id", "s-used"])).exit).toBe(0);
    const shown = await rkb(["show", lessonId, "--format", "json"], { env: box.env });
    expect(shown.json().usage.worked).toBe(1);
    const note = await tool("rkb_note", { text: "-x flag confuses the parser", priority: 2 }, ["--format", "json"]);
    expect(note.exit).toBe(0);
    const inbox = await rkb(["inbox", "--format", "json"], { env: box.env });
    expect(JSON.stringify(inbox.json())).toContain("-x flag confuses the parser");
  });
});
