import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lintKb } from "../../cli/lint/lint.ts";
import { LessonParseError, parseLesson } from "../../cli/lesson/lesson.ts";
import { kbFromFixture, rkb, ROOT, sandbox, seededRandom, writeFile } from "../helpers.ts";

// Damaged lessons never crash rkb: parsing fails with a LessonParseError naming a line, lint turns
// every damaged file into findings, and the binary reports them as a record, not a stack trace.

const SOURCES = [...new Glob("**/*.md").scanSync(join(ROOT, "test/fixtures/kb"))].filter((f) => !f.endsWith("README.md"));

const GARBAGE = ["---", "- [", "key: {", "\t", "```", "# ", "## Symptom", "id: 12", ": :", "\u0000", "\uFFFD", "]]", "&anchor", "*alias", '"unterminated'];

function damage(text: string, rnd: () => number): string {
  const lines = text.split("\n");
  const ops = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < ops; i++) {
    const at = Math.floor(rnd() * lines.length);
    switch (Math.floor(rnd() * 5)) {
      case 0:
        lines.splice(at, 1);
        break;
      case 1:
        lines.splice(at, 0, GARBAGE[Math.floor(rnd() * GARBAGE.length)]!);
        break;
      case 2:
        lines[at] = (lines[at] ?? "").slice(0, Math.floor(rnd() * (lines[at]?.length ?? 0)));
        break;
      case 3:
        lines[at] = "  " + (lines[at] ?? "");
        break;
      default:
        return lines.join("\n").slice(0, Math.floor(rnd() * text.length));
    }
  }
  return lines.join("\n");
}

describe("damaged lessons", () => {
  test("2,000 damaged variants: parse either succeeds or names a line; lint never throws", () => {
    const box = sandbox("rkb-fuzz");
    kbFromFixture(box);
    let parseErrors = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const rnd = seededRandom(seed);
      const rel = SOURCES[seed % SOURCES.length]!;
      const text = damage(readFileSync(join(ROOT, "test/fixtures/kb", rel), "utf8"), rnd);
      try {
        parseLesson(text, rel);
      } catch (e) {
        if (!(e instanceof LessonParseError)) throw new Error(`seed ${seed}: ${(e as Error).stack}`);
        expect(e.line).toBeGreaterThanOrEqual(1);
        parseErrors++;
      }
      const findings = lintKb(box.kb, { overrides: new Map([[rel, text]]), only: [rel] });
      for (const f of findings) expect(f.message.length).toBeGreaterThan(0);
    }
    expect(parseErrors).toBeGreaterThan(100); // the damage is real
  });

  test("the binary reports a knowledge base full of damaged lessons as findings, not as a crash", async () => {
    const box = sandbox("rkb-fuzz");
    kbFromFixture(box);
    for (let seed = 1; seed <= 40; seed++) {
      const rel = SOURCES[seed % SOURCES.length]!;
      const text = damage(readFileSync(join(ROOT, "test/fixtures/kb", rel), "utf8"), seededRandom(seed));
      writeFile(join(box.kb, "general", "damaged", `lesson-${seed}.md`), text);
    }
    writeFileSync(join(box.kb, "general", "damaged", "binary.md"), Buffer.from([0xff, 0xfe, 0x00, 0x2d, 0x2d, 0x2d, 0x0a]));
    const lint = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(lint.exit).toBe(1);
    const report = lint.json();
    expect(report.errors).toBeGreaterThan(0);
    expect(report.findings.filter((f: any) => f.path.startsWith("general/damaged/")).length).toBeGreaterThan(0);
    for (const args of [["search", "cmake zlib"], ["list"], ["show", "3c0ffee001"], ["--format", "json"]]) {
      const r = await rkb([...args, "--format", "json"], { env: box.env });
      expect(r.exit).toBe(0);
      expect(r.stderr).toBe("");
    }
  });
});
