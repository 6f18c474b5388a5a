// The tool-call adapter in-process: arguments checked by the command's own schema (picked for the
// tool) with the messages a model can act on, and rkb_add's fields turned into a lesson.
import { describe, expect, test } from "bun:test";
import { lessonFields } from "../../cli/commands/add.ts";
import { lessonParts } from "../../cli/lesson/compose.ts";
import { serializeLesson, type Frontmatter } from "../../cli/lesson/lesson.ts";
import { REQUIRED_SECTIONS, sectionField } from "../../cli/lesson/schema.ts";
import { asRkbError, RkbError, usageError } from "../../cli/base/errors.ts";
import { callerFrom, debugFromEnv, isAgent, sessionIdOf } from "../../cli/machine/settings.ts";
import { findTool, loadTool } from "../../cli/agent/tools/schemas.ts";
import { checkedArguments, parseToolArguments, unknownTool } from "../../cli/agent/tools/run.ts";
import { needsUserOutput } from "../../cli/output/written.ts";
import { toolHost } from "../../cli/commands/index.ts";

async function problem(tool: string, args: Record<string, unknown>): Promise<string | undefined> {
  const spec = findTool(tool)!;
  const { parameters } = await loadTool(spec, await toolHost());
  try {
    await checkedArguments(spec, parameters, args);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(RkbError);
    expect((e as RkbError).code).toBe("usage");
    expect((e as RkbError).fix).toContain("rkb tools --toon");
    return (e as RkbError).message;
  }
}

describe("tool argument checks", () => {
  test("good arguments pass", async () => {
    expect(await problem("rkb_search", { query: "cmake zlib", limit: 3, all: true })).toBeUndefined();
    expect(
      await problem("rkb_add", { type: "fact", title: "t", topic: "git", tags: ["a"], when: { project: "p" }, statement: "s", evidence: "e" }),
    ).toBeUndefined();
    expect(await problem("rkb_note", { text: "x", priority: 3 })).toBeUndefined();
  });

  test("an unknown key is named, with the valid ones", async () => {
    expect(await problem("rkb_search", { query: "x", limt: 3 })).toBe("`limt` is not an argument of rkb_search");
    // Fields of the command that the tool does not take are unknown too.
    expect(await problem("rkb_search", { query: "x", regex: "y" })).toBe("`regex` is not an argument of rkb_search");
    expect(await problem("rkb_add", { type: "fact", title: "t", topic: "g", template: "fact" })).toBe("`template` is not an argument of rkb_add");
  });

  test("a missing or null required argument is named", async () => {
    expect(await problem("rkb_show", {})).toBe("rkb_show needs `id`");
    expect(await problem("rkb_show", { id: null })).toBe("rkb_show needs `id`");
    expect(await problem("rkb_edit", { id: "a", text: "t" })).toBe("rkb_edit needs `base`");
  });

  test("a null optional argument counts as absent", async () => {
    expect(await problem("rkb_search", { query: "x", limit: null })).toBeUndefined();
  });

  test("wrong types say what was expected", async () => {
    expect(await problem("rkb_search", { query: 3 })).toBe("`query` of rkb_search must be a string");
    expect(await problem("rkb_search", { query: "x", limit: "3" })).toBe("`limit` of rkb_search must be an integer ≥ 1");
    expect(await problem("rkb_search", { query: "x", limit: 0 })).toBe("`limit` of rkb_search must be an integer ≥ 1");
    expect(await problem("rkb_search", { query: "x", limit: 2.5 })).toBe("`limit` of rkb_search must be an integer ≥ 1");
    expect(await problem("rkb_search", { query: "x", all: "yes" })).toBe("`all` of rkb_search must be true or false");
    expect(await problem("rkb_note", { text: "x", priority: 4 })).toBe("`priority` of rkb_note must be an integer from 1 to 3");
    expect(await problem("rkb_used", { id: "a", result: "maybe" })).toBe("`result` of rkb_used must be one of worked, failed, irrelevant");
    expect(await problem("rkb_add", { type: "fact", title: "t", topic: "g", tags: ["a", 1] })).toBe("`tags` of rkb_add must be a list of strings");
    expect(await problem("rkb_add", { type: "fact", title: "t", topic: "g", when: { project: 1 } })).toContain(
      "`when` of rkb_add must be an object of strings",
    );
    expect(await problem("rkb_add", { type: "fact", title: "t", topic: "g", when: ["p"] })).toContain("must be an object of strings");
    expect(await problem("rkb_add", { type: "lesson", title: "t", topic: "g" })).toBe(
      "`type` of rkb_add must be one of pitfall, recipe, fact, decision, preference",
    );
    expect(await problem("rkb_add", { type: "fact", title: "t", topic: "g", verified_how: "checked" })).toBe(
      "`verified_how` of rkb_add must be one of ran, read, told",
    );
  });

  test("input: empty is {}, anything but one JSON object is a usage error", () => {
    expect(parseToolArguments("rkb_show", "  \n")).toEqual({});
    expect(parseToolArguments("rkb_show", '{"id":"x"}')).toEqual({ id: "x" });
    expect(() => parseToolArguments("rkb_show", "{id: x}")).toThrow("not valid JSON");
    expect(() => parseToolArguments("rkb_show", "[1]")).toThrow("must be a JSON object");
    expect(() => parseToolArguments("rkb_show", "null")).toThrow("must be a JSON object");
  });

  test("an unknown tool lists the tools", () => {
    const e = unknownTool("rkb_serch");
    expect(e.code).toBe("usage");
    expect(e.fix).toContain("rkb_search, rkb_show, rkb_add, rkb_note, rkb_used, rkb_flag, rkb_edit");
  });
});

describe("rkb_add's lesson, built from fields without Markdown", () => {
  const tool = { caller: { origin: "tool" as const } };
  const pitfall = {
    type: "pitfall",
    title: "  CMake\nmisses ZLIB ",
    topic: "cmake",
    tags: ["cmake", " ", "zlib: 1.3"],
    queries: ["Could NOT find ZLIB"],
    when: { project: "app", hdf5: "1.14" },
    symptom: "S",
    cause: "C",
    fix: "F",
    evidence: "`cmake` said: yes",
  };
  /** The file a lesson with these parts becomes (planAdd adds id, status and the rest). */
  const file = (parts: ReturnType<typeof lessonParts>) => serializeLesson(parts.frontmatter as Frontmatter, parts.body);
  const frontmatter = (text: string) => Bun.YAML.parse(text.slice(4, text.indexOf("\n---\n", 4)));

  test("frontmatter keeps every value as written (quoting included), blank tags dropped", () => {
    expect(frontmatter(file(lessonParts(lessonFields(pitfall, tool))))).toEqual({
      type: "pitfall",
      verified_how: "ran",
      tags: ["cmake", "zlib: 1.3"],
      queries: ["Could NOT find ZLIB"],
      when: { project: "app", hdf5: "1.14" },
    });
  });

  test("one-line title, then the type's sections in their order", () => {
    const text = file(lessonParts(lessonFields({ ...pitfall, verified_how: "read" }, tool)));
    expect(text).toContain("verified_how: read\n");
    expect(text.slice(text.indexOf("\n---\n") + 5)).toBe(
      "\n# CMake misses ZLIB\n\n## Symptom\nS\n\n## Cause\nC\n\n## Fix\nF\n\n## Evidence\n`cmake` said: yes\n",
    );
  });

  test("empty lists and facts are left out", () => {
    const parts = lessonParts(lessonFields({ type: "fact", title: "T", tags: [], when: {}, statement: "S", evidence: "E" }, tool));
    expect(parts.frontmatter).toEqual({ type: "fact", verified_how: "ran" });
  });

  test("a missing section of the type is named, the way the caller wrote it", () => {
    const recipe = { type: "recipe", title: "T", when_to_use: "W", evidence: "E" };
    expect(() => lessonFields(recipe, tool)).toThrow("a recipe needs `steps`");
    expect(() => lessonFields({ ...recipe, steps: " " }, tool)).toThrow("a recipe needs `steps`");
    expect(() => lessonFields(recipe, { caller: { origin: "cli" } })).toThrow("a recipe needs --steps");
    for (const type of ["pitfall", "recipe", "fact", "decision", "preference"] as const) {
      const all = Object.fromEntries(REQUIRED_SECTIONS[type].map((h) => [sectionField(h), "x"]));
      expect(() => lessonFields({ type, title: "T", ...all }, tool)).not.toThrow();
    }
  });

  test("a section of another type is refused, not silently dropped", () => {
    expect(() => lessonFields({ type: "fact", title: "T", statement: "S", evidence: "E", fix: "F" }, tool)).toThrow("`fix` is not a section of a fact");
    expect(() => lessonFields({ type: "fact", title: "T", statement: "S", evidence: "E", when_to_use: "W" }, { caller: { origin: "cli" } })).toThrow(
      "--when-to-use is not a section of a fact",
    );
  });
});

describe("an unexpected exception", () => {
  test("is `internal`, a bug to report, exit 1; RKB_DEBUG adds the stack", () => {
    const err = asRkbError(new TypeError("x is undefined"), debugFromEnv({}));
    expect(err.toRecord()).toEqual({
      error: { code: "internal", message: "x is undefined", fix: "this is a bug in rkb; rerun with RKB_DEBUG=1 and report the output" },
    });
    expect(err.exit).toBe(1);
    expect(asRkbError(new Error("boom"), debugFromEnv({ RKB_DEBUG: "1" })).extra.stack).toContain("boom");
    const known = usageError("bad", "fix it");
    expect(asRkbError(known, false)).toBe(known);
  });

  test("a write that waits for the user is its outcome, exit 3, not an error", () => {
    const asked = {
      status: "needs_user" as const,
      request: "r-0a0b0c",
      question: "Allow?",
      options: ["continue", "cancel"],
      next: "rkb confirm r-0a0b0c",
      help: ["ask"],
    };
    const out = needsUserOutput(asked);
    expect(out.exit).toBe(3);
    expect(out.data).toEqual(asked);
    expect(out.ask).toEqual(asked);
  });
});

describe("the caller, read once where a call comes in", () => {
  test.each([
    ["the id given", "s-given", "/s/2026-01-01T00-00_s-file.jsonl", { RKB_SESSION: "s-env" }, "s-given"],
    ["else its file's name", undefined, "/s/2026-01-01T00-00_s-file.jsonl", { RKB_SESSION: "s-env" }, "s-file"],
    ["else the environment", undefined, undefined, { PI_SESSION_ID: "s-pi" }, "s-pi"],
    ["else none", undefined, undefined, {}, undefined],
  ])("session: %s", (_, given, file, env, id) => expect(sessionIdOf(given, file, env)).toBe(id));
  test("Claude Code's environment names the harness first, then the entry point, then RKB_HARNESS", () => {
    expect(callerFrom({ CLAUDECODE: "1", RKB_HARNESS: "pi" }, { origin: "tool", harness: "omp" }).harness).toBe("claude-code");
    expect(callerFrom({ RKB_HARNESS: "pi" }, { origin: "tool", harness: "omp" }).harness).toBe("omp");
    expect(callerFrom({ RKB_HARNESS: "pi" }, { origin: "cli" })).toEqual({ origin: "cli", harness: "pi" });
  });
  test("a tool call or a harness makes the call an agent's", () => {
    expect(isAgent({ origin: "tool" })).toBe(true);
    expect(isAgent({ origin: "cli", harness: "pi" })).toBe(true);
    expect(isAgent({ origin: "cli" })).toBe(false);
  });
});
