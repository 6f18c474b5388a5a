// What the new-user pass of issue 22 saw and left: each on the compiled binary, with a real git
// knowledge base. Near-duplicates in a knowledge base of two or three lessons; a place name that is
// no folder name, and RKB_PROJECT on every path.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BIN, kbFromFixture, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

async function kb(): Promise<Sandbox> {
  const box = sandbox("rkb-left");
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

/** One zlib pitfall under any title: what a new user adds again with the title changed. */
const zlibPitfall = (title: string) => `---
type: pitfall
verified_how: ran
tags:
  - cmake
---

# ${title}

## Symptom
CMake stops with \`Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\`.

## Cause
zlib lives under /opt/zlib, which CMake does not search.

## Fix
Set \`ZLIB_ROOT=/opt/zlib\`.

## Evidence
\`ZLIB_ROOT=/opt/zlib cmake -S . -B build\` printed \`Found ZLIB\`.
`;

const TITLES = ["CMake cannot find ZLIB unless ZLIB_ROOT is set", "CMake misses zlib without ZLIB_ROOT", "Set ZLIB_ROOT so CMake finds zlib"];

describe("near-duplicates in a small knowledge base", () => {
  test("the same lesson added again with another title is named by add, dupes and lint from the second lesson on", async () => {
    const box = await kb();
    const first = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: zlibPitfall(TITLES[0]!) });
    expect(first.exit).toBe(0);
    const second = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: zlibPitfall(TITLES[1]!) });
    expect(second.exit).toBe(0);
    expect(second.json().notes.join("\n")).toContain(`looks like ${first.json().id}`);
    const two = (await rkb(["dupes", "--format", "json"], { env: box.env })).json();
    expect(two.pairs.map((p: any) => [p.a.id, p.b.id].sort())).toEqual([[first.json().id, second.json().id].sort()]);

    const third = await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: zlibPitfall(TITLES[2]!) });
    expect(third.exit).toBe(0);
    expect(third.stdout).toContain(`looks like ${first.json().id}`);
    expect(third.stdout).toContain(`looks like ${second.json().id}`);
    const dupes = await rkb(["dupes"], { env: box.env });
    expect(dupes.stdout).toContain("3 pairs");
    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    expect(lint.findings.filter((f: any) => f.rule === "content/near-duplicate")).toHaveLength(3);
  });

  test("two lessons on different subjects in a small knowledge base are no pair", async () => {
    const box = await kb();
    expect((await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: zlibPitfall(TITLES[0]!) })).exit).toBe(0);
    const other = `---
type: pitfall
verified_how: ran
tags:
  - git
---

# git describe fails in a shallow CI checkout

## Symptom
\`fatal: No names found, cannot describe anything.\` from \`git describe --tags\` in CI.

## Cause
The CI checkout is shallow and fetches no tags.

## Fix
Fetch with \`fetch-depth: 0\`.

## Evidence
\`git fetch --tags --unshallow\` then \`git describe --tags\` printed \`v1.2.0\`.
`;
    const added = await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: other });
    expect(added.exit).toBe(0);
    expect(added.json().notes.join("\n")).not.toContain("looks like");
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json().pairs).toEqual([]);
  });
});

function fixtureKb(): Sandbox {
  const box = sandbox("rkb-left-place");
  kbFromFixture(box);
  return box;
}

describe("a place name is a folder name", () => {
  test("--project and --system that are no folder names are usage errors naming the fix, on every command", async () => {
    const box = fixtureKb();
    const status = await rkb(["--project", "Bad Name", "--format", "json"], { env: box.env });
    expect(status.exit).toBe(2);
    expect(status.json().error).toMatchObject({ code: "usage", message: expect.stringContaining("--project `Bad Name`") });
    expect(status.json().error.fix).toContain("--project bad-name");
    const human = await rkb(["--project", "Bad Name"], { env: box.env });
    expect(human.stdout).not.toContain("projects/Bad Name");
    const search = await rkb(["search", "zlib", "--system", "Orion HPC", "--format", "json"], { env: box.env });
    expect(search.exit).toBe(2);
    expect(search.json().error.fix).toContain("--system orion-hpc");
    const tool = await rkb(["tool", "rkb_search", "--project", "../imgtool", "--format", "json"], { env: box.env, stdin: '{"query": "zlib"}' });
    expect(tool.exit).toBe(2);
    expect(tool.json().error.code).toBe("usage");
    // A good name still places the call.
    const good = await rkb(["--project", "imgtool", "--format", "json"], { env: box.env });
    expect(good.json().project).toEqual({ name: "imgtool", rule: "flag" });
  });

  test("RKB_PROJECT and RKB_SYSTEM are held to the same rule, and the fix names the variable", async () => {
    const box = fixtureKb();
    const env = { ...box.env, RKB_PROJECT: "Bad Name" };
    const list = await rkb(["list", "--format", "json"], { env });
    expect(list.exit).toBe(2);
    expect(list.json().error.message).toContain("RKB_PROJECT `Bad Name`");
    expect(list.json().error.fix).toContain("RKB_PROJECT=bad-name");
    const system = await rkb(["show", "3c0ffee003", "--format", "json"], { env: { ...box.env, RKB_SYSTEM: "Orion/HPC" } });
    expect(system.exit).toBe(2);
    expect(system.json().error.fix).toContain("RKB_SYSTEM=orion-hpc");
    // doctor reports it as a failed check instead of stopping at it; a hook never fails on it.
    const doctor = await rkb(["doctor", "--format", "json"], { env });
    const place = doctor.json().checks.find((c: any) => c.check === "place");
    expect(place).toMatchObject({ status: "fail", fix: expect.stringContaining("RKB_PROJECT=bad-name") });
    const hook = await rkb(["hook", "session-start"], { env, stdin: JSON.stringify({ cwd: box.dir, harness: "pi" }) });
    expect(hook).toMatchObject({ exit: 0, stdout: "" });
  });

  test("RKB_PROJECT places the agent's hooks and MCP tools as it places the command line", async () => {
    const box = fixtureKb();
    const env = { ...box.env, RKB_PROJECT: "imgtool" };
    const context = await rkb(["hook", "session-start"], { env, stdin: JSON.stringify({ cwd: box.dir, harness: "pi" }) });
    expect(context.stdout).toContain("project imgtool (env)");
    // imgtool's zlib lesson belongs to that project: the MCP server finds it only when it is placed there.
    const proc = Bun.spawn([BIN, "mcp"], { env, cwd: box.dir, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const call = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    proc.stdin.write(call(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } }));
    proc.stdin.write(call(2, "tools/call", { name: "rkb_search", arguments: { query: "zlib ZLIB_ROOT" } }));
    proc.stdin.end();
    const replies = (await new Response(proc.stdout).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(await proc.exited).toBe(0);
    const found = replies
      .find((r) => r.id === 2)
      .result.content.map((c: any) => c.text)
      .join("");
    expect(found).toContain("3c0ffee003");
  });

  test("an eval query's project is held to the rule too, as a config error naming the query", async () => {
    const box = fixtureKb();
    const queries = join(box.dir, "queries.toml");
    writeFile(queries, '[[query]]\ntext = "zlib"\nexpect = ["3c0ffee003"]\n\n[[query]]\ntext = "zlib"\nproject = "Img Tool"\nexpect = ["3c0ffee003"]\n');
    const r = await rkb(["eval", "--queries", queries, "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error).toMatchObject({ code: "config", message: expect.stringContaining("[[query]] number 2 has project `Img Tool`") });
    expect(r.json().error.fix).toContain('project = "img-tool"');
  });
});
