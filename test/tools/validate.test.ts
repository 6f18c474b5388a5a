import { describe, expect, test } from "bun:test";
import { RkbError } from "../../cli/output/errors.ts";
import { findTool } from "../../cli/tools/schemas.ts";
import { checkArguments, parseToolInput, unknownTool } from "../../cli/tools/validate.ts";

function problem(tool: string, args: Record<string, unknown>): string | undefined {
  try {
    checkArguments(findTool(tool)!, args);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(RkbError);
    expect((e as RkbError).code).toBe("usage");
    expect((e as RkbError).fix).toContain("rkb tools --toon");
    return (e as RkbError).message;
  }
}

describe("tool argument checks", () => {
  test("good arguments pass", () => {
    expect(problem("rkb_search", { query: "cmake zlib", limit: 3, all: true })).toBeUndefined();
    expect(problem("rkb_add", { type: "fact", title: "t", topic: "git", tags: ["a"], when: { project: "p" }, statement: "s", evidence: "e" })).toBeUndefined();
    expect(problem("rkb_note", { text: "x", priority: 3 })).toBeUndefined();
  });

  test("an unknown key is named, with the valid ones", () => {
    expect(problem("rkb_search", { query: "x", limt: 3 })).toBe("`limt` is not an argument of rkb_search");
  });

  test("a missing or null required argument is named", () => {
    expect(problem("rkb_show", {})).toBe("rkb_show needs `id`");
    expect(problem("rkb_show", { id: null })).toBe("rkb_show needs `id`");
  });

  test("a null optional argument counts as absent", () => {
    expect(problem("rkb_search", { query: "x", limit: null })).toBeUndefined();
  });

  test("wrong types say what was expected", () => {
    expect(problem("rkb_search", { query: 3 })).toBe("`query` of rkb_search must be a string");
    expect(problem("rkb_search", { query: "x", limit: "3" })).toBe("`limit` of rkb_search must be an integer ≥ 1");
    expect(problem("rkb_search", { query: "x", limit: 0 })).toBe("`limit` of rkb_search must be an integer ≥ 1");
    expect(problem("rkb_search", { query: "x", limit: 2.5 })).toBe("`limit` of rkb_search must be an integer ≥ 1");
    expect(problem("rkb_search", { query: "x", all: "yes" })).toBe("`all` of rkb_search must be true or false");
    expect(problem("rkb_note", { text: "x", priority: 4 })).toBe("`priority` of rkb_note must be an integer from 1 to 3");
    expect(problem("rkb_used", { id: "a", result: "maybe" })).toBe("`result` of rkb_used must be one of worked, failed, irrelevant");
    expect(problem("rkb_add", { type: "fact", title: "t", topic: "g", tags: ["a", 1] })).toBe("`tags` of rkb_add must be a list of strings");
    expect(problem("rkb_add", { type: "fact", title: "t", topic: "g", when: { project: 1 } })).toContain("`when` of rkb_add must be an object of strings");
    expect(problem("rkb_add", { type: "fact", title: "t", topic: "g", when: ["p"] })).toContain("must be an object of strings");
    expect(problem("rkb_add", { type: "lesson", title: "t", topic: "g" })).toBe("`type` of rkb_add must be one of pitfall, recipe, fact, decision, preference");
  });

  test("input: empty is {}, anything but one JSON object is a usage error", () => {
    expect(parseToolInput("rkb_show", "  \n")).toEqual({});
    expect(parseToolInput("rkb_show", '{"id":"x"}')).toEqual({ id: "x" });
    expect(() => parseToolInput("rkb_show", "{id: x}")).toThrow("not valid JSON");
    expect(() => parseToolInput("rkb_show", "[1]")).toThrow("must be a JSON object");
    expect(() => parseToolInput("rkb_show", "null")).toThrow("must be a JSON object");
  });

  test("an unknown tool lists the tools", () => {
    const e = unknownTool("rkb_serch") as RkbError;
    expect(e.code).toBe("usage");
    expect(e.fix).toContain("rkb_search, rkb_show, rkb_add, rkb_note, rkb_used, rkb_flag, rkb_edit");
  });
});
