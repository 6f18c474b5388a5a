import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, sandbox, type Sandbox } from "../helpers.ts";

// Every path rkb writes stays inside RKB_HOME: tried as an attacker would, with `..` in a topic or a
// `when.project`, symlinked folders and use-record files, and names too long or holding NUL bytes.

const fact = (title: string, extra = "") => `---
type: fact
verified_how: read
${extra}---

# ${title}

## Statement
Something that holds.

## Evidence
Read in the manual.
`;

async function kbBox(): Promise<Sandbox & { outside: string }> {
  const box = sandbox();
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  const outside = join(box.dir, "outside");
  return { ...box, outside };
}

/** Every file and folder below dir (relative), to show nothing appeared. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const visit = (d: string, prefix: string) => {
    for (const name of readdirSync(d)) {
      const rel = prefix + name;
      out.push(rel);
      if (lstatSync(join(d, name)).isDirectory()) visit(join(d, name), rel + "/");
    }
  };
  visit(dir, "");
  return out.sort();
}

function kbFiles(box: Sandbox): string[] {
  return tree(box.kb).filter((p) => !p.startsWith(".git/") && p !== ".git");
}

describe("paths: nothing is written outside the knowledge base", () => {
  test("a topic with .. is a usage error that names the fix; no file and no folder appear anywhere", async () => {
    const box = await kbBox();
    const before = kbFiles(box);
    for (const topic of ["general/../../outside/x", "../outside", "general/a/../../../outside", "general/./x", "/tmp/x", "general//x"]) {
      const r = await rkb(["add", "--topic", topic, "--format", "json"], { env: box.env, stdin: fact("Escaping through the topic") });
      expect(r.exit).toBe(2);
      expect(r.json().error.code).toBe("usage");
      expect(r.json().error.fix).toContain("lowercase letters, digits and single dashes");
    }
    expect(existsSync(box.outside)).toBe(false);
    expect(kbFiles(box)).toEqual(before);
    expect(tree(box.dir).filter((p) => !p.startsWith("kb") && !p.startsWith("home"))).toEqual([]);
  });

  test("when.project with .. is refused, and an existing 0600 file out there is neither overwritten nor changed in mode", async () => {
    const box = await kbBox();
    const target = join(box.dir, "outside", "x", "escaping-through-when.md");
    mkdirSync(join(box.dir, "outside", "x"), { recursive: true });
    writeFileSync(target, "precious\n");
    chmodSync(target, 0o600);
    for (const project of ["../../outside", "../outside/..", "a/b", "UPPER"]) {
      const r = await rkb(["add", "--topic", "x", "--format", "json"], {
        env: box.env,
        stdin: fact("Escaping through when", `when:\n  project: "${project}"\n`),
      });
      expect(r.exit).toBe(2);
      expect(r.json().error.message).toContain("when.project");
    }
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(existsSync(join(box.kb, "projects", ".."))).toBe(true); // (the folder itself, nothing new in it)
    expect(kbFiles(box).filter((p) => p.startsWith("projects/"))).toEqual(["projects/.gitkeep"]);
  });

  test("a topic folder that is a symlink out of the knowledge base is not written through", async () => {
    const box = await kbBox();
    mkdirSync(box.outside);
    symlinkSync(box.outside, join(box.kb, "general", "linked"));
    const r = await rkb(["add", "--topic", "linked", "--format", "json"], { env: box.env, stdin: fact("Written through a link") });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("refused");
    expect(r.json().error.message).toContain("general/linked is a symbolic link");
    expect(r.json().error.fix).toContain("replace the link");
    expect(readdirSync(box.outside)).toEqual([]);
    // A scope folder that is a link is refused the same way.
    const projects = join(box.kb, "projects");
    Bun.spawnSync(["rm", "-rf", projects]);
    symlinkSync(box.outside, projects);
    const p = await rkb(["add", "--topic", "x", "--format", "json"], { env: box.env, stdin: fact("Through a linked scope", "when:\n  project: demo\n") });
    expect(p.exit).toBe(1);
    expect(readdirSync(box.outside)).toEqual([]);
  });

  test("a .rkb/usage or .rkb that is a symlink is not appended through", async () => {
    const box = await kbBox();
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: fact("A lesson to use") })).json();
    mkdirSync(box.outside);
    const victim = join(box.outside, "victim.jsonl");
    writeFileSync(victim, "");
    mkdirSync(join(box.kb, ".rkb"));
    symlinkSync(box.outside, join(box.kb, ".rkb", "usage"));
    const r = await rkb(["used", added.id, "--worked", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error.message).toContain(".rkb/usage is a symbolic link");
    expect(readdirSync(box.outside)).toEqual(["victim.jsonl"]);
    // The usage file itself a link to a file outside.
    Bun.spawnSync(["rm", join(box.kb, ".rkb", "usage")]);
    mkdirSync(join(box.kb, ".rkb", "usage"));
    const machine = readFileSync(join(box.home, ".config", "rkb", "machine"), "utf8").trim();
    symlinkSync(victim, join(box.kb, ".rkb", "usage", `${machine}.jsonl`));
    const f = await rkb(["used", added.id, "--worked", "--format", "json"], { env: box.env });
    expect(f.exit).toBe(1);
    expect(readFileSync(victim, "utf8")).toBe("");
    // And .rkb itself a link.
    Bun.spawnSync(["rm", "-rf", join(box.kb, ".rkb")]);
    symlinkSync(box.outside, join(box.kb, ".rkb"));
    expect((await rkb(["used", added.id, "--worked"], { env: box.env })).exit).toBe(1);
    expect(readdirSync(box.outside)).toEqual(["victim.jsonl"]);
  });

  test("a 300-character topic and NUL bytes are clear usage errors, not crashes", async () => {
    const box = await kbBox();
    const long = await rkb(["add", "--topic", "a".repeat(300), "--format", "json"], { env: box.env, stdin: fact("Long topic") });
    expect(long.exit).toBe(2);
    expect(long.json().error.message).toContain("is not a folder name");
    const longFull = await rkb(["add", "--topic", "general/" + "b".repeat(300), "--format", "json"], { env: box.env, stdin: fact("Long topic") });
    expect(longFull.exit).toBe(2);
    // NUL bytes cannot pass through argv, but they can through an agent tool's JSON arguments.
    const tool = await rkb(["tool", "rkb_add", "--format", "json"], {
      env: box.env,
      stdin: JSON.stringify({ type: "fact", title: "NUL in the topic", topic: "a\u0000b", statement: "x holds", evidence: "read it" }),
    });
    expect(tool.exit).toBe(2);
    expect(tool.stdout).toContain("\\u0000");
    expect(tool.stdout).not.toContain("bug in rkb");
    // NUL bytes in the lesson text, in a reason, and broken YAML: an invalid lesson or a usage error naming the line.
    const nulText = await rkb(["add", "--topic", "nul", "--format", "json"], { env: box.env, stdin: fact("A title with a \u0000 NUL") });
    expect(nulText.exit).toBe(1);
    expect(nulText.json().error).toMatchObject({ code: "invalid_lesson", message: "<stdin>:6: the lesson holds a NUL byte" });
    const yaml = await rkb(["add", "--topic", "nul", "--format", "json"], { env: box.env, stdin: fact("Broken YAML", "tags: [a, {\n") });
    expect(yaml.exit).toBe(1);
    expect(yaml.json().error.code).toBe("invalid_lesson");
    expect(yaml.json().error.message).toMatch(/^<stdin>:\d+: /);
    const added = (await rkb(["add", "--topic", "nul", "--format", "json"], { env: box.env, stdin: fact("A clean lesson") })).json();
    const reason = await rkb(["tool", "rkb_flag", "--format", "json"], { env: box.env, stdin: JSON.stringify({ id: added.id, reason: "bad\u0000reason" }) });
    expect(reason.exit).toBe(2);
    expect(reason.stdout).not.toContain("bug in rkb");
    expect(kbFiles(box).filter((p) => p.startsWith("general/"))).toEqual(["general/.gitkeep", "general/nul", `general/nul/a-clean-lesson.md`]);
  });

  test("a file keeps its mode when rkb rewrites it, and a refused write leaves a clean tree", async () => {
    const box = await kbBox();
    const added = (await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: fact("A private lesson") })).json();
    const file = join(box.kb, added.path);
    chmodSync(file, 0o600);
    gitIn(box.kb, box.env, "config", "core.fileMode", "false");
    expect((await rkb(["flag", added.id, "--reason", "doubt"], { env: box.env })).exit).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain("status: stale");
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });
});
