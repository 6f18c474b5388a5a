// Issue 22, words: counts in the right number, nothing said twice, help that names the command line's
// words, the README and the exit codes in agreement, and a nonsense query that finds nothing.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { factLesson, gitIn, ROOT, rkb, sandbox, shallowTagsPitfall, type Sandbox } from "../helpers.ts";

async function kb(): Promise<Sandbox> {
  const box = sandbox();
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const COMMANDS = [
  "add",
  "archive",
  "changes",
  "confirm",
  "context",
  "doctor",
  "dupes",
  "edit",
  "eval",
  "extract",
  "flag",
  "hook",
  "import",
  "inbox",
  "init",
  "install",
  "label",
  "lint",
  "list",
  "log",
  "mcp",
  "move",
  "note",
  "rename",
  "review",
  "search",
  "show",
  "status",
  "supersede",
  "sync",
  "tool",
  "tools",
  "unarchive",
  "used",
];

describe("counts in the right number", () => {
  test("one pair, one commit, one warning, one lesson", async () => {
    const box = await kb();
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: shallowTagsPitfall("git describe fails in a shallow CI checkout") })).exit).toBe(0);
    const status = await rkb([], { env: box.env });
    expect(status.stdout).not.toMatch(/\b1 lessons\b/);
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: shallowTagsPitfall("git describe fails in a shallow CI checkout job") })).exit).toBe(0);
    // A third lesson: with two, every word they share is in all of them, and no pair is reported.
    expect((await rkb(["add", "--topic", "ci"], { env: box.env, stdin: factLesson("Runners keep no cache between jobs") })).exit).toBe(0);
    const dupes = await rkb(["dupes"], { env: box.env });
    expect(dupes.stdout).toContain("1 pair ");
    const bare = join(box.dir, "team.git");
    gitIn(box.dir, box.env, "init", "-q", "--bare", bare);
    gitIn(box.kb, box.env, "remote", "add", "origin", bare);
    expect((await rkb(["sync"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["add", "--topic", "ci"], { env: box.env, stdin: factLesson("Runners start from a clean checkout") })).exit).toBe(0);
    const sync = await rkb(["sync"], { env: box.env });
    expect(sync.stdout).toContain("pushed 1 commit ");
    const doctor = await rkb(["doctor"], { env: box.env });
    expect(doctor.stdout).not.toMatch(/\b1 warnings\b/);
    expect(doctor.stdout).not.toMatch(/\b1 commits\b|\b1 pairs\b/);
  });
});

describe("nothing said twice", () => {
  test("review's reason for a flagged lesson", async () => {
    const box = await kb();
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: factLesson("Shallow clones have no tags") })).json();
    await rkb(["flag", added.id, "--reason", "git 2.40 fetches them"], { env: box.env });
    const review = await rkb(["review"], { env: box.env });
    expect(review.stdout).not.toContain("flagged: flagged");
    expect(review.stdout).toContain("git 2.40 fetches them");
  });

  test("an empty inbox", async () => {
    const box = sandbox();
    const r = await rkb(["inbox"], { env: box.env });
    expect(r.stdout.match(/empty/g)?.length).toBe(1);
  });

  test("the secret refusal of rkb note", async () => {
    const box = sandbox();
    const r = await rkb(["note", "the bot logs in with ghp_Zq7RmV2xKc9LbT4nWs8YdF3hJp6GaE1uQo5N"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.stderr.match(/looks like a GitHub token/g)?.length).toBe(1);
  });
});

describe("help", () => {
  test("rkb help and rkb help <command> are --help", async () => {
    const box = sandbox();
    const overview = await rkb(["help"], { env: box.env });
    expect(overview.exit).toBe(0);
    expect(overview.stdout).toBe((await rkb(["--help"], { env: box.env })).stdout);
    const search = await rkb(["help", "search"], { env: box.env });
    expect(search.exit).toBe(0);
    expect(search.stdout).toBe((await rkb(["search", "--help"], { env: box.env })).stdout);
    expect((await rkb(["help", "serch"], { env: box.env })).stderr).toContain("rkb search");
  });

  test("names the command line's words, not the agent tools', and ids are 10 hex characters", async () => {
    const box = sandbox();
    for (const name of COMMANDS) {
      const help = (await rkb([name, "--help"], { env: box.env })).stdout;
      if (!["tool", "tools", "mcp"].includes(name)) expect({ name, tool: /\brkb_[a-z]+\b/.test(help) }).toEqual({ name, tool: false });
      for (const id of help.matchAll(
        /"id": "([^"]*)"|rkb (?:show|edit|flag|archive|unarchive|used|log|move|rename) ([^\s]+)|--outcome \w+:(\S+)|--by (\S+)/g,
      )) {
        const value = id[1] ?? id[2] ?? id[3] ?? id[4]!;
        // Placeholders, flags, the help's own title (`rkb archive — …`) and folders (archive takes one too) are not ids.
        if (!/^[0-9a-z]/.test(value) || value.includes("/")) continue;
        expect({ name, value, ok: /^[0-9a-f]{10}$/.test(value) }).toEqual({ name, value, ok: true });
      }
    }
  });

  test("the --when example is a version range", async () => {
    const box = sandbox();
    const help = (await rkb(["tools", "--format", "json"], { env: box.env })).stdout;
    expect(help).not.toContain('{\\"hdf5\\": \\"1.14\\"}');
    expect(help).toContain("1.12:1.14");
  });
});

describe("the default kb.toml", () => {
  test("says what [sinks.jev] and [rerank] are", async () => {
    const box = await kb();
    const toml = readFileSync(join(box.kb, "kb.toml"), "utf8").split("\n");
    for (const section of ["[sinks.jev]", "[rerank]"]) {
      const at = toml.indexOf(section);
      expect(at).toBeGreaterThan(0);
      expect(toml[at - 1]).toStartWith("#");
    }
    expect((await rkb(["lint"], { env: box.env })).exit).toBe(0);
  });
});

describe("the README and the exit codes agree", () => {
  test("the README says which commands exit 1 on findings", () => {
    expect(README).toContain("`rkb lint` exits 1 when it finds errors");
    const searchLine = README.split("\n").find((l) => l.startsWith("rkb search "))!;
    expect(searchLine).toContain("--literal <text>");
    expect(searchLine).not.toMatch(/;\s*--literal,/);
  });

  test("lint: warnings alone exit 0, errors 1; dupes and review report and exit 0", async () => {
    const box = await kb();
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: shallowTagsPitfall("git describe fails in a shallow CI checkout") })).exit).toBe(0);
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: shallowTagsPitfall("git describe fails in a shallow CI checkout job") })).exit).toBe(0);
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: factLesson("Shallow clones have no tags") })).exit).toBe(0);
    const warned = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(warned.json().findings.length).toBeGreaterThan(0);
    expect(warned.exit).toBe(0);
    const dupes = await rkb(["dupes", "--format", "json"], { env: box.env });
    expect(dupes.json().pairs.length).toBe(1);
    expect(dupes.exit).toBe(0);
    const id = dupes.json().pairs[0].a.id;
    await rkb(["flag", id, "--reason", "old"], { env: box.env });
    const review = await rkb(["review", "--format", "json"], { env: box.env });
    expect(review.json().candidates.length).toBeGreaterThan(0);
    expect(review.exit).toBe(0);
    Bun.write(join(box.kb, "general", "git", "broken.md"), "no frontmatter\n");
    expect((await rkb(["lint"], { env: box.env })).exit).toBe(1);
  });
});

describe("a nonsense query", () => {
  test("finds nothing, not a lesson through a typo of a short word", async () => {
    const box = await kb();
    const lesson = factLesson("CMake could not find zlib in a shallow clone").replace("Something that holds.", "The find module does not look under /opt.");
    expect((await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: lesson })).exit).toBe(0);
    expect((await rkb(["add", "--topic", "git"], { env: box.env, stdin: factLesson("Tags are fetched with --tags") })).exit).toBe(0);
    const r = (await rkb(["search", "nothing matches here at all quux", "--format", "json"], { env: box.env })).json();
    expect(r.results).toEqual([]);
    // A real typo of a longer word is still forgiven.
    expect((await rkb(["search", "shalow clone", "--format", "json"], { env: box.env })).json().results.length).toBeGreaterThan(0);
  });
});
