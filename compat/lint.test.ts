import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { classify } from "../cli/lesson/layout.ts";
import { parseLesson, serializeLesson } from "../cli/lesson/lesson.ts";
import type { Finding } from "../cli/lesson/finding.ts";
import { lintKb } from "../cli/lint/lint.ts";

// The shared fixtures are lessons written by the Rust rkb: this implementation must read every one
// of them, write each back unchanged, and find nothing wrong with them.

const shared = join(import.meta.dir, "../../shared");
const fixtures = join(shared, "fixtures/rkb");
// No user name, and a home folder no fixture mentions, so only the lessons themselves are judged.
const env = { HOME: "/nonexistent-home" };
const errors = (findings: Finding[]) => findings.filter((f) => f.severity === "error");

describe.skipIf(!existsSync(shared))("shared fixtures", () => {
  test.each(["kb", "search/kb", "eval/kb"])("rkb lint finds no error in %s", (kb) => {
    expect(errors(lintKb(join(fixtures, kb), { env }))).toEqual([]);
  });

  test.each(["kb", "search/kb", "eval/kb", "graph/kb"])("no lesson in %s is taken for a leak", (kb) => {
    expect(lintKb(join(fixtures, kb), { env }).filter((f) => f.rule.startsWith("leak/"))).toEqual([]);
  });

  test("kb, which has a kb.toml, lints clean; a fixture without one gets only the config/missing warning", () => {
    expect(lintKb(join(fixtures, "kb"), { env })).toEqual([]);
    expect(lintKb(join(fixtures, "search/kb"), { env }).map((f) => [f.rule, f.severity])).toEqual([["config/missing", "warning"]]);
  });

  test("graph/kb: the only errors are the two links to lessons the fixture does not include", () => {
    const found = errors(lintKb(join(fixtures, "graph/kb"), { env })).map((f) => [f.path, f.rule, f.message.split("`")[1]]);
    expect(found).toEqual([
      ["general/cpp/work-through-link-errors-in-order.md", "links/broken", "undefined-vtable-means-missing-virtual.md"],
      ["general/cpp/work-through-link-errors-in-order.md", "links/broken", "static-library-order-matters.md"],
    ]);
  });

  test("every lesson parses and serializes back byte for byte", () => {
    const lessons = [...new Glob("**/*.md").scanSync(fixtures)].filter((rel) => /(^|\/)kb\//.test(rel) && classify(rel.replace(/^.*?kb\//, "")) === "lesson");
    expect(lessons.length).toBeGreaterThan(80);
    for (const rel of lessons) {
      const text = readFileSync(join(fixtures, rel), "utf8");
      const lesson = parseLesson(text, rel);
      expect({ rel, text: serializeLesson(lesson.frontmatter, lesson.body) }).toEqual({ rel, text });
    }
  });
});
