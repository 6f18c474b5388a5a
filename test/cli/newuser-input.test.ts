// Issue 22, input: one rule for what a write takes (size, UTF-8, no NUL), on every path; placeholders
// and warnings at add; stdin read only when it is the input; lint lines of the text the user gave.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, factLesson, gitIn, rkb, sandbox, type Sandbox } from "../helpers.ts";
import { SessionWriter } from "../sessions/session-writer.ts";

async function kb(): Promise<Sandbox> {
  const box = sandbox();
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

/** Runs the binary with these bytes on stdin. */
async function withBytes(args: string[], env: Record<string, string>, bytes: Uint8Array) {
  const proc = Bun.spawn([BIN, ...args], { env, cwd: env.HOME, stdin: new Blob([bytes]), stdout: "pipe", stderr: "pipe" });
  const [stdout, exit] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { exit, json: () => JSON.parse(stdout) };
}

const inboxFiles = (box: Sandbox) => {
  const dir = join(box.home, ".local/state/rkb/inbox");
  return existsSync(dir) ? readdirSync(dir) : [];
};

const BIG = factLesson("A lesson far too long to be one").replace("Something that holds.", "word ".repeat(420_000));
const LATIN1 = new Uint8Array([...new TextEncoder().encode(factLesson("Order a coffee").replace("Something that holds.", "caf")), 0xe9, 0x0a]);

describe("one input rule for every write", () => {
  test("add refuses a lesson over 1 MiB, and writes neither the lesson nor a cache for it", async () => {
    const box = await kb();
    const r = await rkb(["add", "--topic", "misc", "--format", "json"], { env: box.env, stdin: BIG });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("refused");
    expect(r.json().error.message).toContain("1 MiB");
    expect(readdirSync(join(box.kb, "general"))).toEqual([".gitkeep"]);
    const cache = join(box.home, ".cache", "rkb");
    const cached = existsSync(cache) ? readdirSync(cache).reduce((n, f) => n + statSync(join(cache, f)).size, 0) : 0;
    expect(cached).toBeLessThan(1_000_000);
  });

  test("add refuses text that is not UTF-8 instead of storing U+FFFD", async () => {
    const box = await kb();
    const r = await withBytes(["add", "--topic", "misc", "--format", "json"], box.env, LATIN1);
    expect(r.exit).toBe(1);
    expect(r.json().error.message).toContain("UTF-8");
    expect(readdirSync(join(box.kb, "general"))).toEqual([".gitkeep"]);
  });

  test("note refuses 5 MB, binary noise and a NUL, and the inbox stays empty", async () => {
    const box = sandbox();
    const five = await rkb(["note", "--format", "json"], { env: box.env, stdin: "x".repeat(5_000_000) });
    expect(five.exit).toBe(1);
    expect(five.json().error.message).toContain("1 MiB");
    const noise = await withBytes(
      ["note", "--format", "json"],
      box.env,
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x01]),
    );
    expect(noise.exit).toBe(1);
    const nul = await rkb(["note", "--format", "json"], { env: box.env, stdin: "before\0after" });
    expect(nul.exit).toBe(1);
    expect(nul.json().error.message).toContain("NUL");
    expect(inboxFiles(box)).toEqual([]);
  });

  test("the same rule holds for a word on the command line and for a tool call", async () => {
    const box = await kb();
    const latin1Word = await rkb(["note", "caf\uFFFD au lait", "--format", "json"], { env: box.env });
    expect(latin1Word.exit).toBe(2);
    expect(latin1Word.json().error.message).toContain("UTF-8");
    const tool = await rkb(["tool", "rkb_note", "--format", "json"], { env: box.env, stdin: JSON.stringify({ text: "before\0after" }) });
    expect(tool.exit).toBe(2);
    expect(tool.stdout).toContain("NUL");
    expect(inboxFiles(box)).toEqual([]);
  });
});

describe("rkb add and what it stores silently", () => {
  test("refuses its own help example with … for the sections", async () => {
    const box = await kb();
    const r = await rkb(
      ["add", "--topic", "git", "--type", "fact", "--title", "git describe needs tags", "--statement", "…", "--evidence", "…", "--format", "json"],
      { env: box.env },
    );
    expect(r.exit).toBe(1);
    expect(r.json().error.findings.map((f: any) => f.rule)).toContain("format/placeholder");
    expect(readdirSync(join(box.kb, "general"))).toEqual([".gitkeep"]);
  });

  test("refuses a filled template that kept the placeholder title", async () => {
    const box = await kb();
    const template = (await rkb(["add", "--template", "pitfall"], { env: box.env })).stdout;
    const filled = template
      .replace("## Symptom\n", "## Symptom\nCMake stops with `Could NOT find ZLIB`.\n")
      .replace("## Cause\n", "## Cause\nzlib is under /opt/zlib.\n")
      .replace("## Fix\n", "## Fix\nSet `ZLIB_ROOT=/opt/zlib`.\n")
      .replace("## Evidence\n", "## Evidence\n`ZLIB_ROOT=/opt/zlib cmake -B build` printed `Found ZLIB`.\n");
    expect(filled).toContain("# <Title>");
    const r = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: filled });
    expect(r.exit).toBe(1);
    const finding = r.json().error.findings.find((f: any) => f.rule === "format/placeholder");
    expect(finding.message).toContain("<Title>");
    expect(existsSync(join(box.kb, "general", "cmake"))).toBe(false);
  });

  test("prints the lint warnings of what it wrote", async () => {
    const box = await kb();
    const r = await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: factLesson("Shallow clones have no tags") });
    expect(r.exit).toBe(0);
    expect(r.json().warnings.map((f: any) => f.rule)).toContain("quality/evidence");
    const human = await rkb(["add", "--topic", "git"], { env: box.env, stdin: factLesson("Tags are fetched with --tags") });
    expect(human.stdout).toContain("quality/evidence");
  });
});

/** Runs the binary with a stdin pipe that stays open (after `text`, if given); killed after 20 s, which shows as exit 143. */
async function withOpenPipe(args: string[], env: Record<string, string>, text?: string): Promise<{ stdout: string; exit: number }> {
  const proc = Bun.spawn([BIN, ...args], { env, cwd: env.HOME, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  if (text !== undefined) {
    proc.stdin.write(text);
    proc.stdin.flush();
  }
  const timer = setTimeout(() => proc.kill(), 20_000);
  const [stdout, exit] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearTimeout(timer);
  proc.stdin.end();
  return { stdout, exit };
}

describe("rkb add reads stdin only when it is the input", () => {
  const fields = { title: "Tags need --tags in shallow clones", statement: "A shallow clone has no tags.", evidence: "`git tag` printed nothing." };
  const flags = ["add", "--topic", "git", "--type", "fact", ...Object.entries(fields).flatMap(([name, text]) => [`--${name}`, text])];

  test("with the lesson in flags, a pipe that never closes is not waited for, and its text does not replace the flags", async () => {
    const box = await kb();
    const { stdout, exit } = await withOpenPipe([...flags, "--format", "json"], box.env, factLesson("A different lesson from the pipe"));
    expect(exit).toBe(0);
    expect(JSON.parse(stdout).title).toBe("Tags need --tags in shallow clones");
  });

  test("--from an inbox item with a section flag does not wait on a pipe that never closes", async () => {
    const box = await kb();
    const session = new SessionWriter("pi");
    session.bash("widget build --target fw", "widget: error: calibration table missing for sensor array", 3);
    session.bash("widget-calibrate --all", "calibrated 12 sensors");
    session.bash("widget build --target fw", "built fw.bin");
    writeFileSync(join(box.dir, "s.jsonl"), session.text());
    expect((await rkb(["extract", join(box.dir, "s.jsonl")], { env: box.env })).exit).toBe(0);
    const item = (await rkb(["inbox", "--format", "json"], { env: box.env })).json().items.find((i: any) => i.add);
    const args = ["add", "--from", item.id, "--topic", "widget", "--cause", "The calibration table is generated, not checked in.", "--format", "json"];
    const { stdout, exit } = await withOpenPipe(args, box.env, "text a pipe sent that is not the lesson\n");
    expect(exit).toBe(0);
    expect(readFileSync(join(box.kb, JSON.parse(stdout).path), "utf8")).toContain("calibration table is generated");
  });

  test("with the lesson on stdin, --when and --tag go into its frontmatter instead of being dropped", async () => {
    const box = await kb();
    const r = await rkb(["add", "--topic", "cmake", "--when", "project=other", "--tag", "zlib", "--format", "json"], {
      env: box.env,
      stdin: factLesson("Zlib is found only with ZLIB_ROOT"),
    });
    expect(r.exit).toBe(0);
    expect(r.json().path).toStartWith("projects/other/cmake/");
    const shown = (await rkb(["show", r.json().id, "--format", "json", "--project", "other"], { env: box.env })).json();
    expect(shown.frontmatter.tags).toEqual(["zlib"]);
    const clash = await rkb(["add", "--topic", "cmake", "--when", "project=else", "--format", "json"], {
      env: box.env,
      stdin: factLesson("Zlib is found only with ZLIB_ROOT set").replace("verified_how: read", "verified_how: read\nwhen:\n  project: other"),
    });
    expect(clash.exit).toBe(2);
    expect(clash.json().error.message).toContain("project");
  });

  test("with nothing in flags, a silent pipe times out with a clear error", async () => {
    const box = await kb();
    const { stdout, exit } = await withOpenPipe(["add", "--topic", "git", "--format", "json"], { ...box.env, RKB_STDIN_TIMEOUT: "1" });
    expect(exit).toBe(2);
    const error = JSON.parse(stdout).error;
    expect(error.message).toContain("stdin");
    expect(error.fix).toContain("RKB_STDIN_TIMEOUT");
  });
});

describe("lint of a piped lesson", () => {
  const piped = `---
type: pitfall
verified_how: maybe
verified: 2026-13-45
---

# CMake cannot find HDF5 without HDF5_ROOT set

## Symptom
Could NOT find HDF5.

## Cause
HDF5 sits under /opt/hdf5.

## Fix
Set HDF5_ROOT=/opt/hdf5, see [the notes](missing.md).

## Evidence
\`cmake -DHDF5_ROOT=/opt/hdf5\` printed \`Found HDF5\`.
`;

  test("reports every frontmatter error at once, at the lines of the text given, not of a file that does not exist", async () => {
    const box = await kb();
    const r = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: piped });
    expect(r.exit).toBe(1);
    const findings = r.json().error.findings as any[];
    expect(findings.map((f) => [f.path, f.line])).toEqual([
      ["<stdin>", 3],
      ["<stdin>", 4],
    ]);
    expect(findings[0].message).toContain("verified_how");
    expect(findings[1].message).toContain("verified");
  });

  test("a body error is at its line in the text given", async () => {
    const box = await kb();
    const r = await rkb(["add", "--topic", "cmake", "--format", "json"], {
      env: box.env,
      stdin: piped.replace("verified_how: maybe", "verified_how: ran").replace("2026-13-45", "2026-01-15"),
    });
    expect(r.exit).toBe(1);
    const finding = r.json().error.findings.find((f: any) => f.rule === "links/broken");
    expect(finding).toMatchObject({ path: "<stdin>", line: 16 });
    const human = await rkb(["add", "--topic", "cmake"], {
      env: box.env,
      stdin: piped.replace("verified_how: maybe", "verified_how: ran").replace("2026-13-45", "2026-01-15"),
    });
    expect(human.stderr).toContain("<stdin>:16");
    expect(human.stderr).not.toContain("general/cmake/cmake-cannot");
  });
});

describe("rkb inbox done --outcome", () => {
  test("refuses a lesson that does not exist, and keeps the item", async () => {
    const box = await kb();
    const id = (await rkb(["note", "the staging db resets on sundays", "--format", "json"], { env: box.env })).json().id;
    const r = await rkb(["inbox", "done", id, "--outcome", "add:0123456789", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("not_found");
    expect(r.json().error.message).toContain("0123456789");
    expect((await rkb(["inbox", "--format", "json"], { env: box.env })).json().items.map((i: any) => i.id)).toEqual([id]);
    const lesson = (await rkb(["add", "--topic", "ops", "--format", "json"], { env: box.env, stdin: factLesson("The staging db resets on sundays") })).json();
    const ok = await rkb(["inbox", "done", id, "--outcome", `add:${lesson.id}`], { env: box.env });
    expect(ok.exit).toBe(0);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });
});

// Found in the new-user pass of issue 22.
describe("a lesson written on Windows", () => {
  test("is stored with LF line ends only, by add and by edit", async () => {
    const box = await kb();
    const crlf = factLesson("Line ends differ on Windows").replaceAll("\n", "\r\n");
    const added = (await rkb(["add", "--topic", "windows", "--format", "json"], { env: box.env, stdin: crlf })).json();
    expect(readFileSync(join(box.kb, added.path), "utf8")).not.toContain("\r");
    const file = readFileSync(join(box.kb, added.path), "utf8");
    const hash = (await rkb(["show", added.id, "--format", "json"], { env: box.env })).json().hash;
    const edited = await rkb(["edit", added.id, "--base", hash], { env: box.env, stdin: file.replace("Something", "Much").replaceAll("\n", "\r\n") });
    expect(edited.exit).toBe(0);
    expect(readFileSync(join(box.kb, added.path), "utf8")).not.toContain("\r");
  });
});

describe("a key=value flag given twice with two values", () => {
  test("is a usage error, not the last one winning silently", async () => {
    const box = await kb();
    const args = [
      "add",
      "--topic",
      "hdf5",
      "--type",
      "fact",
      "--title",
      "HDF5 needs its 1.10 API",
      "--statement",
      "Off by default.",
      "--evidence",
      "`h5cc -showconfig`.",
    ];
    const r = await rkb([...args, "--when", "hdf5=1.12:1.14", "--when", "hdf5=1.10", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(2);
    expect(r.json().error.message).toContain("hdf5 is given twice");
    expect(readdirSync(join(box.kb, "general"))).toEqual([".gitkeep"]);
  });
});
