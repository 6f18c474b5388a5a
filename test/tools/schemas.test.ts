import { describe, expect, test } from "bun:test";
import { ALL_TYPE_SECTIONS, LESSON_TYPES, sectionField } from "../../cli/lesson/schema.ts";
import { firstSentence } from "../../cli/lesson/body.ts";
import { TOOLS, toolDefinition } from "../../cli/agent/tools/schemas.ts";
import { toolHost } from "../../cli/commands/index.ts";

const host = await toolHost();
const definitions = new Map(TOOLS.map((t) => [t.name, toolDefinition(t, host)] as const));
// JSON Schema data, read field by field.
const json = (t: (typeof TOOLS)[number]) => definitions.get(t.name)!.inputSchema as any;

/** Every `default` anywhere in a schema, with its path. */
function defaults(schema: unknown, path = ""): [string, unknown][] {
  if (!schema || typeof schema !== "object") return [];
  const own: [string, unknown][] = "default" in schema ? [[path, (schema as { default: unknown }).default]] : [];
  return [...own, ...Object.entries(schema).flatMap(([k, v]) => (k === "default" ? [] : defaults(v, `${path}/${k}`)))];
}

describe("tool schemas", () => {
  test("the seven tools, in the reference order", () => {
    expect(TOOLS.map((t) => t.name)).toEqual(["rkb_search", "rkb_show", "rkb_add", "rkb_note", "rkb_used", "rkb_flag", "rkb_edit"]);
  });

  test("every schema is a closed object", () => {
    for (const t of TOOLS) {
      expect(json(t).type).toBe("object");
      expect(json(t).additionalProperties).toBe(false);
    }
  });

  test("no array or object default anywhere (omp refuses to load such a schema)", () => {
    for (const t of TOOLS) {
      for (const [path, value] of defaults(json(t))) {
        expect({ tool: t.name, path, mutable: value !== null && typeof value === "object" }).toEqual({ tool: t.name, path, mutable: false });
      }
    }
  });

  test("rkb_add has the lesson types, the verified_how an agent may claim, and one field per section", () => {
    const add = json(TOOLS.find((t) => t.name === "rkb_add")!);
    expect(add.properties.type.enum).toEqual([...LESSON_TYPES]);
    expect(add.properties.verified_how.enum).toEqual(["ran", "read", "told"]);
    for (const heading of ALL_TYPE_SECTIONS) expect(add.properties[sectionField(heading)].type).toBe("string");
    expect(add.required.sort()).toEqual(["title", "topic", "type"]);
    expect(add.properties.when.additionalProperties).toEqual({ type: "string" });
  });

  test("the definition `rkb tools` prints survives JSON and has a one-sentence snippet", () => {
    const d = definitions.get(TOOLS[0]!.name)!;
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    expect(d.snippet.endsWith(".")).toBe(true);
    expect(d.description.startsWith(d.snippet)).toBe(true);
    expect(d.snippet.length).toBeLessThan(d.description.length);
  });

  test("firstSentence stops at the first full stop followed by a space", () => {
    expect(firstSentence("Run it. Then more.")).toBe("Run it.");
    expect(firstSentence("Version 1.2 is out. Yes.")).toBe("Version 1.2 is out.");
    expect(firstSentence("no stop")).toBe("no stop");
  });
});
