import { describe, expect, test } from "bun:test";
import { REQUIRED_SECTIONS, sectionField } from "../../cli/kb/schema.ts";
import { lessonMarkdown, toInvocation } from "../../cli/tools/argv.ts";

const from = { sessionId: "sess-1", harness: "pi" };

function frontmatter(md: string): any {
  const end = md.indexOf("\n---\n", 4);
  return Bun.YAML.parse(md.slice(4, end));
}

describe("tool call → rkb command", () => {
  test("search: flags before `--`, so a query starting with a dash stays a query", () => {
    expect(toInvocation("rkb_search", { query: "-Wall error", limit: 3, all: true }, from).argv).toEqual(["search", "--limit", "3", "--all", "--", "-Wall error"]);
    expect(toInvocation("rkb_search", { query: "x" }, from).argv).toEqual(["search", "--", "x"]);
  });

  test("show, flag, edit", () => {
    expect(toInvocation("rkb_show", { id: "a1" }, from).argv).toEqual(["show", "--", "a1"]);
    expect(toInvocation("rkb_flag", { id: "a1", reason: "gone" }, from).argv).toEqual(["flag", "--reason", "gone", "--", "a1"]);
    expect(toInvocation("rkb_edit", { id: "a1", base: "h", text: "---\n" }, from)).toEqual({ argv: ["edit", "--base", "h", "--", "a1"], stdin: "---\n" });
  });

  test("note and used carry the session", () => {
    expect(toInvocation("rkb_note", { text: "remember x", priority: 2 }, from).argv).toEqual(["note", "--priority", "2", "--session", "sess-1", "--", "remember x"]);
    expect(toInvocation("rkb_used", { id: "a1", result: "irrelevant" }, {}).argv).toEqual(["used", "--irrelevant", "--", "a1"]);
    expect(toInvocation("rkb_used", { id: "a1", result: "failed", reason: "old" }, from).argv).toEqual(["used", "--failed", "--reason", "old", "--session", "sess-1", "--", "a1"]);
  });

  test("used: a failure needs its reason", () => {
    expect(() => toInvocation("rkb_used", { id: "a1", result: "failed" }, from)).toThrow("needs a `reason`");
    expect(() => toInvocation("rkb_used", { id: "a1", result: "failed", reason: "  " }, from)).toThrow("needs a `reason`");
  });

  test("add: provenance flags and the lesson on stdin", () => {
    const inv = toInvocation("rkb_add", { type: "fact", title: "T", topic: "git", statement: "S", evidence: "E" }, from);
    expect(inv.argv).toEqual(["add", "--topic", "git", "--session", "sess-1", "--harness", "pi"]);
    expect(inv.stdin).toContain("# T\n");
  });
});

describe("rkb_add's lesson file", () => {
  const pitfall = {
    type: "pitfall",
    title: "  CMake\nmisses ZLIB ",
    topic: "cmake",
    tags: ["cmake", " ", "zlib: 1.3"],
    queries: ["Could NOT find ZLIB"],
    when: { project: "app", "hdf5": "1.14" },
    symptom: "S",
    cause: "C",
    fix: "F",
    evidence: "`cmake` said: yes",
  };

  test("frontmatter keeps every value as written (quoting included)", () => {
    const fm = frontmatter(lessonMarkdown(pitfall));
    expect(fm).toEqual({ type: "pitfall", verified_how: "ran", tags: ["cmake", "zlib: 1.3"], queries: ["Could NOT find ZLIB"], when: { project: "app", hdf5: "1.14" } });
  });

  test("one-line title, then the type's sections in their order", () => {
    const md = lessonMarkdown({ ...pitfall, verified_how: "read" });
    expect(md).toContain("verified_how: read\n");
    const body = md.slice(md.indexOf("\n---\n") + 5);
    expect(body).toBe("\n# CMake misses ZLIB\n\n## Symptom\nS\n\n## Cause\nC\n\n## Fix\nF\n\n## Evidence\n`cmake` said: yes\n");
  });

  test("empty lists and facts are left out", () => {
    const fm = frontmatter(lessonMarkdown({ type: "fact", title: "T", topic: "g", tags: [], when: {}, statement: "S", evidence: "E" }));
    expect(fm).toEqual({ type: "fact", verified_how: "ran" });
  });

  test("a missing section of the type is named", () => {
    const recipe = { type: "recipe", title: "T", topic: "g", when_to_use: "W", evidence: "E" };
    expect(() => lessonMarkdown(recipe)).toThrow("a recipe needs `steps`");
    expect(() => lessonMarkdown({ ...recipe, steps: " " })).toThrow("a recipe needs `steps`");
    for (const type of ["pitfall", "recipe", "fact", "decision", "preference"] as const) {
      const all = Object.fromEntries(REQUIRED_SECTIONS[type].map((h) => [sectionField(h), "x"]));
      expect(() => lessonMarkdown({ type, title: "T", topic: "g", ...all })).not.toThrow();
    }
  });

  test("a section of another type is refused, not silently dropped", () => {
    expect(() => lessonMarkdown({ type: "fact", title: "T", topic: "g", statement: "S", evidence: "E", fix: "F" })).toThrow("`fix` is not a section of a fact");
  });
});
