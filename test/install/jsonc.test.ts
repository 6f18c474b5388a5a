// rkb's entries in a user's JSON/JSONC file: only their own text changes.
import { describe, expect, test } from "bun:test";
import { parseJsonc, setAt } from "../../cli/install/jsonc.ts";

const USER = `{
  // my settings
  "model": "x/y",
  "mcp": {
    "other": { "type": "local", "command": ["other"] } // mine
  }
}
`;
const ENTRY = { type: "local", command: ["/opt/rkb", "mcp"] };

describe("setAt", () => {
  test("adds a property before the first sibling, so that every line of the user's stays as it was (their comment included)", () => {
    const out = setAt(USER, ["mcp", "rkb"], ENTRY);
    expect(out).toBe(
      USER.replace(
        `    "other": {`,
        `    "rkb": {\n      "type": "local",\n      "command": [\n        "/opt/rkb",\n        "mcp"\n      ]\n    },\n    "other": {`,
      ),
    );
    expect(setAt(out, ["mcp", "rkb"], undefined)).toBe(USER);
    expect(parseJsonc(out, "f")).toMatchObject({ model: "x/y", mcp: { other: { command: ["other"] }, rkb: ENTRY } });
  });

  test("removing it gives back the user's file exactly", () => {
    const plain = USER.replace(" // mine", "");
    expect(setAt(setAt(plain, ["mcp", "rkb"], ENTRY), ["mcp", "rkb"], undefined)).toBe(plain);
  });

  test("replaces an entry in place", () => {
    const once = setAt(USER, ["mcp", "rkb"], ENTRY);
    const twice = setAt(once, ["mcp", "rkb"], { ...ENTRY, enabled: true });
    expect(parseJsonc(twice, "f")).toMatchObject({ mcp: { rkb: { enabled: true } } });
    expect(twice.split("\n").length).toBe(once.split("\n").length + 1);
  });

  test("makes the objects on the way, in an empty object or an empty file", () => {
    expect(parseJsonc(setAt("{}\n", ["mcp", "rkb"], ENTRY), "f")).toEqual({ mcp: { rkb: ENTRY } });
    expect(setAt("", ["a"], 1)).toBe('{\n  "a": 1\n}\n');
  });

  test("appends to an array with -1, at the array's indentation (tabs kept)", () => {
    const text = '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{ "hooks": [] }\n\t\t]\n\t}\n}\n';
    const out = setAt(text, ["hooks", "Stop", -1], { matcher: "x" });
    expect(out).toBe('{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{ "hooks": [] },\n\t\t\t{\n\t\t\t\t"matcher": "x"\n\t\t\t}\n\t\t]\n\t}\n}\n');
  });

  test("a broken file is a config error naming file and line", () => {
    expect(() => parseJsonc('{\n  "a": 1,\n  "b"\n}', "opencode.json")).toThrow(/opencode\.json:4 is not valid JSON/);
  });
});

describe("setAt removing", () => {
  test.each([
    [
      "the last of an array whose bracket has its own line",
      '{\n  "a": [\n    1,\n    {\n      "x": 2\n    }\n  ]\n}\n',
      ["a", 1],
      '{\n  "a": [\n    1\n  ]\n}\n',
    ],
    ["the first of two", '{ "a": [1, 2] }', ["a", 0], '{ "a": [2] }'],
    ["the only one", '{ "a": { "b": 1 } }', ["a", "b"], '{ "a": {} }'],
    ["a property after a comment line", '{\n  "a": 1,\n  // mine\n  "b": 2\n}', ["b"], '{\n  "a": 1\n}'],
    ["nothing, when it is not there", '{ "a": 1 }', ["b"], '{ "a": 1 }'],
  ])("%s", (_, text, path, expected) => {
    expect(setAt(text as string, path as (string | number)[], undefined)).toBe(expected as string);
  });
});
