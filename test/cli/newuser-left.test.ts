// What the new-user pass of issue 22 saw and left: each on the compiled binary, with a real git
// knowledge base. Near-duplicates in a knowledge base of two or three lessons; a place name that is
// no folder name, and RKB_PROJECT on every path; TOML errors without a line; install's words for a
// harness that is not set up.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BIN, kbFromFixture, rkb, sandbox, shallowTagsPitfall, writeFile, zlibPitfall, type Sandbox } from "../helpers.ts";

async function kb(): Promise<Sandbox> {
  const box = sandbox("rkb-left");
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

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
    const other = shallowTagsPitfall("git describe fails in a shallow CI checkout");
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

describe("a TOML error names its file and line", () => {
  /** kb.toml as rkb init writes it, and then these lines: the first of them is line `base + 1`. */
  async function withKbToml(lines: string): Promise<{ box: Sandbox; line: (n: number) => string }> {
    const box = await kb();
    const toml = join(box.kb, "kb.toml");
    const base = (await Bun.file(toml).text()).split("\n").length - 1;
    writeFile(toml, (await Bun.file(toml).text()) + lines);
    return { box, line: (n: number) => `${toml}:${base + n}:` };
  }

  test("kb.toml: errors Bun's parser gives without a line, each at its line, in dupes and lint", async () => {
    for (const [broken, at] of [
      ['[review]\nstale_days = "ninety\n', 2], // a string left open
      ["[review]\nstale_days = 1\n\nstale_days = 2\n", 4], // a key set twice
      ['[dupes]\nmin_similarity = 0.5\n[labels]\nteam = ["a"]\n', 3], // a table defined twice ([labels] is in the default)
      ["[review]\nx = [\n  1,\n  2\n\n[dupes]\nmin_similarity = 0.5\n", 2], // an array left open
      ['[review]\nnote = """a\n\n[not a table]\n"""\nstale_days = nope\n', 6], // after a string over lines
    ] as const) {
      const { box, line } = await withKbToml(broken);
      const dupes = await rkb(["dupes", "--format", "json"], { env: box.env });
      expect(dupes.exit, broken).toBe(1);
      expect(dupes.json().error.code).toBe("config");
      expect(dupes.json().error.message, broken).toStartWith(line(at));
      expect(dupes.json().error.message).not.toContain("TOML Parse error");
      const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
      expect(lint.findings.find((f: any) => f.rule === "config/invalid")?.line, broken).toBe(Number(line(at).split(":").at(-2)));
    }
  });

  test("a 64-bit integer is a value like any other: out of range at its line, and no lesson id", async () => {
    const { box, line } = await withKbToml("[review]\nstale_days = 9223372036854775807\n");
    // Parsed whole, it is checked like any number; JSON, which has no 64-bit integers, never sees it.
    const review = await rkb(["review", "--format", "json"], { env: box.env });
    expect(review.json().error).toMatchObject({ code: "config" });
    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    const finding = lint.findings.find((f: any) => f.rule === "config/invalid");
    expect(finding.line).toBe(Number(line(2).split(":").at(-2)));
    expect(finding.message).toContain("not 9223372036854775807");
    const queries = join(box.dir, "queries.toml");
    writeFile(queries, '[[query]]\ntext = "zlib"\nexpect = [9223372036854775807]\n');
    const ids = await rkb(["eval", "--queries", queries, "--format", "json"], { env: box.env });
    expect(ids.json().error).toMatchObject({ code: "config", message: `${queries}:3: [[query]] number 1 expects 9223372036854775807, which is no lesson id` });
  });

  test("kb.toml: an unknown section is named at its line, whatever its name holds", async () => {
    const { box, line } = await withKbToml('\n["we(ird"]\nx = 1\n');
    const dupes = await rkb(["dupes", "--format", "json"], { env: box.env });
    expect(dupes.json().error).toMatchObject({ code: "config", message: expect.stringContaining("unknown section `we(ird`") });
    expect(dupes.json().error.message).toStartWith(line(2));
  });

  test("checkouts.toml and an eval query file: a broken line, and a bad project name, at their lines", async () => {
    const box = fixtureKb();
    const checkout = join(box.dir, "app");
    Bun.spawnSync(["git", "init", "-q", checkout], { env: box.env });
    const checkouts = join(box.home, ".local/state/rkb/checkouts.toml");
    writeFile(checkouts, `imgtool = ["${checkout}"]\n\nother = ["/x",\n`);
    const broken = await rkb(["search", "zlib", "--format", "json"], { env: box.env, cwd: checkout });
    expect(broken.json().error).toMatchObject({ code: "config", message: expect.stringContaining(`${checkouts}:3 is not valid TOML`) });
    writeFile(checkouts, `imgtool = ["${checkout}"]\n"Img Tool" = ["/x"]\n`);
    const named = await rkb(["search", "zlib", "--format", "json"], { env: box.env, cwd: checkout });
    expect(named.json().error.message).toStartWith(`${checkouts}:2: \`Img Tool\` is not a project's folder name`);
    expect(named.json().error.fix).toContain("img-tool");

    const queries = join(box.dir, "queries.toml");
    writeFile(queries, '[[query]]\ntext = "zlib"\nexpect = ["3c0ffee003"]\n\n[[query]]\ntext = "vtable"\nmode = "fuzzy"\nexpect = []\n');
    const mode = await rkb(["eval", "--queries", queries, "--format", "json"], { env: box.env });
    expect(mode.json().error.message).toStartWith(`${queries}:7: [[query]] number 2 has mode \`fuzzy\``);
    writeFile(queries, '[[query]]\ntext = "zlib"\nexpect = ["3c0ffee003"\n');
    const syntax = await rkb(["eval", "--queries", queries, "--format", "json"], { env: box.env });
    expect(syntax.json().error.message).toStartWith(`${queries}:3 is not valid TOML`);
  });
});

describe("rkb install into a harness that is not set up", () => {
  test("says the harness loads rkb when it starts, not to restart or reload it", async () => {
    const box = sandbox("rkb-left-install");
    const pi = await rkb(["install", "pi", "--format", "json"], { env: box.env });
    expect(pi.exit).toBe(0);
    expect(pi.json().installs[0].note).toContain("pi is not set up on this machine");
    expect(pi.json().help).toEqual(["pi loads rkb when it first starts"]);
    const human = await rkb(["install", "claude"], { env: box.env });
    expect(human.stdout).toContain("Claude Code loads rkb when it first starts");
    expect(human.stdout).not.toMatch(/Restart|\/reload/);
    // Installing again (a new rkb binary) into the folders rkb made: pi is still not set up.
    const extension = join(box.home, ".pi", "agent", "extensions", "rkb.ts");
    rmSync(extension);
    const again = await rkb(["install", "pi", "--format", "json"], { env: box.env });
    expect(again.json().installs[0].files.map((f: any) => f.action)).toEqual(["written", "unchanged"]);
    expect(again.json().installs[0].note).toContain("holds only rkb's files");
    expect(again.json().help).toEqual(["pi loads rkb when it first starts"]);
    // A harness that is set up (its folder holds its own files) is running, or may be: it is told to restart, with its reload command.
    mkdirSync(join(box.home, ".pi", "agent", "sessions"), { recursive: true });
    rmSync(extension);
    const present = await rkb(["install", "pi", "--format", "json"], { env: box.env });
    expect(present.json().installs[0].note).toBeUndefined();
    expect(present.json().help).toEqual(["Restart pi (or run /reload) to load rkb"]);
  });
});

describe("a lesson built from fields is told by its fields", () => {
  const pitfall = {
    topic: "cmake",
    type: "pitfall",
    title: "CMake misses zlib without ZLIB_ROOT",
    symptom: "\nCMake stops:\n<<<<<<< HEAD\nCould NOT find ZLIB\n=======\nFound ZLIB\n>>>>>>> theirs",
    cause: "zlib lives under /opt/zlib.",
    fix: "Set `ZLIB_ROOT=/opt/zlib`, as in [the recipe](../nowhere/zlib.md).",
    evidence: "`cmake -S . -B build` printed `Found ZLIB`.",
    tags: ["Zlib Root"],
  };

  test("rkb_add's lint errors name the field and its line, not a file that does not exist", async () => {
    const box = await kb();
    const r = await rkb(["tool", "rkb_add", "--format", "json"], { env: box.env, stdin: JSON.stringify(pitfall) });
    expect(r.exit).toBe(1);
    const error = r.json().error;
    expect(error.code).toBe("invalid_lesson");
    const found = error.findings.map((f: any) => [f.path, f.line, f.rule]);
    // The symptom's marker is on its line 3 as given (the blank first line counts).
    expect(found).toContainEqual(["`symptom`", 3, "format/conflict"]);
    expect(found).toContainEqual(["`fix`", 1, "links/broken"]);
    expect(found).toContainEqual(["`tags`", undefined, "format/tags"]);
    expect(JSON.stringify(error)).not.toContain("general/cmake/");
    expect(error.message).toStartWith("`fix`:1: ");
    expect(Bun.spawnSync(["git", "-C", box.kb, "log", "--oneline"]).stdout.toString().trim().split("\n")).toHaveLength(1);
  });

  test("rkb add's flags are named as flags", async () => {
    const box = await kb();
    const r = await rkb(
      [
        "add",
        "--topic",
        "cmake",
        "--type",
        "fact",
        "--title",
        "zlib is found through ZLIB_ROOT",
        "--statement",
        "Set it.\nToken ghp_Zq8XwR2mTk5VbN7cLp3HsJ9dFg4YtE6uWa1K",
        "--evidence",
        "ran",
        "--tag",
        "Zlib Root",
      ],
      { env: box.env },
    );
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("error: --statement:2: this looks like a GitHub token");
    expect(r.stderr).toMatch(/--tag {2}error {2}format\/tags/);
    expect(r.stderr).not.toContain("general/cmake/");
  });

  test("a section's text that holds a title or section heading is refused naming the field and line; a heading in a code block is text", async () => {
    const box = await kb();
    const split = await rkb(["tool", "rkb_add", "--format", "json"], {
      env: box.env,
      stdin: JSON.stringify({ ...pitfall, symptom: "CMake stops.", tags: [], fix: "Set ZLIB_ROOT.\n\n## Evidence\nIt worked." }),
    });
    expect(split.exit).toBe(2);
    expect(split.json().error.message).toBe("`fix` holds the heading `## Evidence` on its line 3");
    const fenced = await rkb(["tool", "rkb_add", "--format", "json"], {
      env: box.env,
      stdin: JSON.stringify({ ...pitfall, symptom: "CMake stops.", tags: [], fix: "Run:\n\n```sh\n## set the root\nexport ZLIB_ROOT=/opt/zlib\n```" }),
    });
    expect(fenced.exit).toBe(0);
  });
});
