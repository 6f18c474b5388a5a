import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { contentHash, LessonParseError, newId, parseLesson, serializeLesson, summary } from "../../cli/lesson/lesson.ts";
import { isPlainSafe } from "../../cli/lesson/yaml.ts";
import { ROOT } from "../helpers.ts";

const lesson = `---
schema: 1
id: 0a1b2c3d4e
type: pitfall
status: active
when:
  project: imgtool
  zlib: "1.2:1.3"
verified: 2026-10-01
verified_how: ran
tags:
  - cmake
queries:
  - cmake cannot find zlib
meta:
  source:
    harness: pi
    session: abc
---

# CMake cannot find zlib

## Symptom
\`Could NOT find ZLIB\`. More text here.

## Cause
Cached NOTFOUND.

## Fix
Clear the cache.

## Evidence
It worked.
`;

describe("lesson parse and serialize", () => {
  test("reads the frontmatter fields, title and sections", () => {
    const l = parseLesson(lesson, "projects/imgtool/cmake/x.md");
    expect(l.id).toBe("0a1b2c3d4e");
    expect(l.type).toBe("pitfall");
    expect(l.title).toBe("CMake cannot find zlib");
    expect(l.when).toEqual({ project: "imgtool", zlib: "1.2:1.3" });
    expect(l.tags).toEqual(["cmake"]);
    expect(l.queries).toEqual(["cmake cannot find zlib"]);
    expect([...l.sections.keys()]).toEqual(["Symptom", "Cause", "Fix", "Evidence"]);
    expect(summary(l)).toBe("`Could NOT find ZLIB`.");
  });

  test("writes a canonical lesson back byte for byte", () => {
    const l = parseLesson(lesson, "x.md");
    expect(serializeLesson(l.frontmatter, l.body)).toBe(lesson);
  });

  test("reorders frontmatter keys canonically and turns flow style into block style, keeping the body", () => {
    const messy = `---\ntags: [b, a]\nverified_how: ran\nid: 0a1b2c3d4e\nschema: 1\ntype: fact\nstatus: active\nverified: 2026-10-01\n---\n\n# T\n\n## Statement\nx  \n\n## Evidence\ny\n`;
    const l = parseLesson(messy, "x.md");
    const out = serializeLesson(l.frontmatter, l.body);
    expect(out).toBe(
      `---\nschema: 1\nid: 0a1b2c3d4e\ntype: fact\nstatus: active\nverified: 2026-10-01\nverified_how: ran\ntags:\n  - b\n  - a\n---\n\n# T\n\n## Statement\nx  \n\n## Evidence\ny\n`,
    );
    expect(out.endsWith(l.body)).toBe(true);
  });

  test("keeps CRLF bodies untouched", () => {
    const crlf = lesson.replace(/\n/g, "\r\n");
    const l = parseLesson(crlf, "x.md");
    expect(l.title).toBe("CMake cannot find zlib");
    expect(serializeLesson(l.frontmatter, l.body).endsWith(l.body)).toBe(true);
    expect(l.body).toBe(crlf.slice(crlf.indexOf("\r\n---\r\n") + 7));
  });

  test("names the line of an unknown key", () => {
    const bad = lesson.replace("verified_how: ran", "verified_how: ran\nlinks: x");
    try {
      parseLesson(bad, "general/x/y.md");
      throw new Error("no error");
    } catch (e) {
      expect(e).toBeInstanceOf(LessonParseError);
      expect((e as LessonParseError).line).toBe(11);
      expect((e as Error).message).toContain("`links`");
    }
  });

  test("rejects a file without frontmatter and an unclosed frontmatter", () => {
    expect(() => parseLesson("# Title\n", "a.md")).toThrow(/start with a `---`/);
    expect(() => parseLesson("---\ntype: fact\n# Title\n", "a.md")).toThrow(/never closed/);
  });

  test("quotes values YAML would misread and leaves plain words alone", () => {
    for (const s of ["1.14", "1.12:1.14", "yes", "no", "a: b", "#x", "tuo[0-9]*", "", " x", "null", "*"]) expect(isPlainSafe(s)).toBe(false);
    for (const s of ["tuolumne", "2026-09-01", "1a00000012", "gcc@12", "cmake"]) expect(isPlainSafe(s)).toBe(true);
  });

  test("content hash is 12 hex chars and changes with the text", () => {
    expect(contentHash(lesson)).toMatch(/^[0-9a-f]{12}$/);
    expect(contentHash(lesson + " ")).not.toBe(contentHash(lesson));
  });

  test("new ids are 10 hex chars, never all digits, never taken", () => {
    const taken = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const id = newId((c) => taken.has(c));
      expect(id).toMatch(/^[0-9a-f]{10}$/);
      expect(/^\d+$/.test(id)).toBe(false);
      expect(taken.has(id)).toBe(false);
      taken.add(id);
    }
  });

  test("every lesson the project ships round-trips byte for byte", async () => {
    let n = 0;
    for (const dir of ["test/fixtures", "demo"]) {
      for (const rel of new Glob("**/*.md").scanSync(join(ROOT, dir))) {
        const text = await Bun.file(join(ROOT, dir, rel)).text();
        if (!/^---\n[\s\S]*?\nid: /.test(text)) continue; // only complete lessons (demo/ holds `rkb add` input)
        const l = parseLesson(text, rel);
        expect(serializeLesson(l.frontmatter, l.body)).toBe(text);
        n++;
      }
    }
    expect(n).toBeGreaterThan(0);
  });
});

test("a YAML syntax error names the line it is on", () => {
  const bad = "---\nschema: 1\nid: 0a1b2c3d4e\ntype: fact\ntags:\n  - a\n  b: [\n---\n\n# T\n";
  try {
    parseLesson(bad, "general/x/y.md");
    throw new Error("no error");
  } catch (e) {
    expect(e).toBeInstanceOf(LessonParseError);
    expect((e as LessonParseError).line).toBe(7);
  }
});

test("the summary does not end inside inline code", () => {
  const text = lesson.replace("`Could NOT find ZLIB`. More text here.", "Running `cmake -S . -B build` fails. More text here.");
  expect(summary(parseLesson(text, "x.md"))).toBe("Running `cmake -S . -B build` fails.");
});
