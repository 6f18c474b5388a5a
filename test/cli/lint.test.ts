import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DEFAULT_KB_TOML } from "../../cli/lesson/config.ts";
import { BIN, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

const GOOD = `---
schema: 1
id: 0a1b2c3d4e
type: fact
status: active
verified: 2026-01-15
verified_how: read
tags:
  - git
---

# git describe needs tags in the clone

## Statement
A shallow clone has no tags, so \`git describe\` fails.

## Evidence
\`git fetch --tags\` made it work.
`;
const LESSON = "general/git/describe-needs-tags.md";
const BROKEN = GOOD.replace("type: fact", "type: gotcha");

function kbWith(files: Record<string, string>): Sandbox {
  const box = sandbox("rkb-cli-lint");
  writeFile(join(box.kb, "kb.toml"), DEFAULT_KB_TOML);
  for (const [rel, text] of Object.entries(files)) writeFile(join(box.kb, rel), text);
  return box;
}

function git(box: Sandbox, ...args: string[]): { exit: number; output: string } {
  const r = Bun.spawnSync(["git", ...args], { cwd: box.kb, env: { ...box.env, PATH: `${dirname(BIN)}:${box.env.PATH}` } });
  return { exit: r.exitCode ?? 1, output: r.stdout.toString() + r.stderr.toString() };
}

describe("rkb lint", () => {
  test("a clean knowledge base: exit 0 and a zero summary", async () => {
    const box = kbWith({ [LESSON]: GOOD });
    const r = await rkb(["lint"], { env: box.env });
    expect(r.stdout).toBe("0 errors, 0 warnings\n");
    expect(r.exit).toBe(0);
  });

  test("human output: one line per finding with path:line, severity, rule and message, then the counts; exit 1", async () => {
    // A lesson the Rust rkb cannot read gets one format/parse and no other rule, so the warning comes from a folder note.
    const box = kbWith({ [LESSON]: BROKEN, "general/git/README.md": "---\naliases: [g]\n---\n# Git\n" });
    const r = await rkb(["lint"], { env: box.env });
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toStartWith("general/git/README.md:2  warning  format/flow-style  ");
    expect(lines[1]).toMatch(
      new RegExp(`^${LESSON}:4  error  format/parse  \`type: gotcha\` on line 4 is not allowed; \`type\` must be a lesson type: one of`),
    );
    expect(lines.at(-1)).toBe("1 error, 1 warning");
    expect(r.exit).toBe(1);
  });

  test("JSON output: counts, findings, help", async () => {
    const box = kbWith({ [LESSON]: BROKEN });
    const r = await rkb(["lint", "--format", "json"], { env: box.env });
    const data = r.json();
    expect(data.errors).toBe(1);
    expect(data.warnings).toBe(0);
    expect(data.findings).toEqual([{ path: LESSON, line: 4, severity: "error", rule: "format/parse", message: expect.stringContaining("pitfall") }]);
    expect(data.help.length).toBeGreaterThan(0);
    expect(data.fixed).toBeUndefined();
    expect(r.exit).toBe(1);
  });

  test("warnings alone exit 0", async () => {
    const box = sandbox("rkb-cli-lint");
    writeFile(join(box.kb, LESSON), GOOD);
    const r = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(r.json()).toMatchObject({ errors: 0, warnings: 1, findings: [{ rule: "config/missing" }] });
    expect(r.exit).toBe(0);
  });

  test("--fix rewrites flow-style frontmatter to block style and lists the fixed files", async () => {
    const box = kbWith({ [LESSON]: GOOD.replace("tags:\n  - git", "tags: [git, clone]") });
    const r = await rkb(["lint", "--fix", "--format", "json"], { env: box.env });
    expect(r.json()).toEqual({ errors: 0, warnings: 0, findings: [], fixed: [LESSON] });
    expect(readFileSync(join(box.kb, LESSON), "utf8")).toBe(GOOD.replace("  - git", "  - git\n  - clone"));
    expect(r.exit).toBe(0);
    const again = await rkb(["lint", "--fix"], { env: box.env });
    expect(again.stdout).toBe("0 errors, 0 warnings\n");
  });

  test("--fix with --staged is a usage error", async () => {
    const box = kbWith({ [LESSON]: GOOD });
    const r = await rkb(["lint", "--fix", "--staged"], { env: box.env });
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("--staged");
  });

  test("paths: only the findings in those files or folders, given from the knowledge base or as typed", async () => {
    const other = "general/cmake/other.md";
    const box = kbWith({ [LESSON]: BROKEN, [other]: BROKEN.replace("0a1b2c3d4e", "1a2b3c4d5e") });
    const paths = async (...args: string[]) => {
      const r = await rkb(["lint", ...args, "--format", "json"], { env: box.env, cwd: box.kb });
      return { exit: r.exit, paths: [...new Set(r.json().findings?.map((f: any) => f.path) ?? [])] };
    };
    expect(await paths()).toEqual({ exit: 1, paths: [other, LESSON] });
    expect(await paths("general/git")).toEqual({ exit: 1, paths: [LESSON] });
    expect(await paths(join(box.kb, other))).toEqual({ exit: 1, paths: [other] });
    expect(await paths("./general/cmake/", "general/git")).toEqual({ exit: 1, paths: [other, LESSON] });
    expect(await paths("kb.toml")).toEqual({ exit: 0, paths: [] });
    expect((await rkb(["lint", "general/nothing"], { env: box.env })).exit).toBe(1);
    const outside = await rkb(["lint", box.home, "--format", "json"], { env: box.env });
    expect(outside.exit).toBe(2);
    expect(outside.json().error.message).toContain("is not in the knowledge base");
  });

  test("a folder that is no knowledge base is an error naming it", async () => {
    const box = sandbox("rkb-cli-lint");
    const r = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(r.json().error.code).toBe("not_a_kb");
    expect(r.exit).toBe(1);
  });
});

describe("rkb lint --staged", () => {
  test("lints what is staged, not the working tree", async () => {
    const box = kbWith({ "general/git/README.md": "# Git\n" });
    git(box, "init", "-q");
    git(box, "add", ".");
    expect(git(box, "commit", "-q", "--no-verify", "-m", "init").exit).toBe(0);
    writeFile(join(box.kb, LESSON), BROKEN);
    git(box, "add", LESSON);
    writeFile(join(box.kb, LESSON), GOOD);
    const staged = await rkb(["lint", "--staged", "--format", "json"], { env: box.env });
    expect(staged.json().findings.map((f: any) => [f.path, f.rule])).toEqual([[LESSON, "format/parse"]]);
    expect(staged.exit).toBe(1);
    expect((await rkb(["lint"], { env: box.env })).exit).toBe(0);
    git(box, "add", LESSON);
    const fixed = await rkb(["lint", "--staged"], { env: box.env });
    expect(fixed.stdout).toBe("0 errors, 0 warnings\n");
    expect(fixed.exit).toBe(0);
  });

  test("the pre-commit hook from `rkb init` refuses a broken lesson and lets a good one through", async () => {
    const box = sandbox("rkb-cli-lint");
    const init = await rkb(["init"], { env: box.env });
    expect(init.exit).toBe(0);
    writeFile(join(box.kb, LESSON), BROKEN);
    git(box, "add", LESSON);
    const refused = git(box, "commit", "-q", "-m", "add a lesson");
    expect(refused.exit).not.toBe(0);
    expect(refused.output).toContain(`${LESSON}:4  error  format/parse`);
    writeFile(join(box.kb, LESSON), GOOD);
    git(box, "add", LESSON);
    expect(git(box, "commit", "-q", "-m", "add a lesson").exit).toBe(0);
  });
});
