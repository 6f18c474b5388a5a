// cli/base/toml.ts: every TOML file rkb reads. An error names the line to fix and says why in words;
// a key's line is found for an error about a value that parsed.
import { describe, expect, test } from "bun:test";
import { keyLine, parseToml, TomlError } from "../cli/base/toml.ts";

function failure(text: string): { line: number; message: string } {
  try {
    parseToml(text);
  } catch (e) {
    if (e instanceof TomlError) return { line: e.line, message: e.message };
    throw e;
  }
  throw new Error("parsed");
}

describe("parseToml", () => {
  test.each([
    ["a string left open", 'a = 1\nb = "two\n', 2, "a string is left open at the end of the line"],
    ["a string left open, CRLF", 'a = 1\r\nb = "two\r\n', 2, "a string is left open at the end of the line"],
    ["a bare word", "[review]\nstale_days = ninety\n", 2, "`ninety` is no TOML value: write a number, true or false, or a string in quotes"],
    ["a key set twice", "a = 1\n\na = 2\n", 3, "redefine"],
    ["an array left open, at the line it starts", "[x]\nlist = [\n  1,\n  2\n\n[y]\nz = 1\n", 2, "the value of `list` that starts here breaks at line 6"],
    ["an array left open at the end of the file", 'a = ["x",\n', 1, "the value of `a` that starts here breaks at line 2"],
    ["after a string over lines", 'note = """a\n\n[not a table]\n"""\nb = nope\n', 5, "`nope` is no TOML value"],
  ])("%s", (_, text, line, words) => {
    const f = failure(text);
    expect(f.line).toBe(line);
    expect(f.message).toContain(words);
  });

  test("every valid file parses: a 64-bit integer comes back whole", () => {
    expect(parseToml("big = 9223372036854775807\nsmall = 7\n")).toEqual({ big: 9223372036854775807n, small: 7 });
  });

  test("tables have no prototype, and a key named like one is a key", () => {
    const doc = parseToml('[t]\nconstructor = "x"\n') as { t: Record<string, unknown> };
    expect(Object.getPrototypeOf(doc.t)).toBeNull();
    expect(doc.t.constructor as unknown).toBe("x");
  });
});

describe("keyLine", () => {
  const text =
    '# settings\n[review]\nstale_days = 90\n\n[[query]]\ntext = "a"\n\n[[query]]\n"mode" = "x"\nnote = """\nmode = "not a key"\n"""\n[dupes]\nmin_similarity = 0.5\n';
  test.each([
    [["review", "stale_days"], 3],
    [["query", 1, "mode"], 9],
    [["query", 0], 5],
    [["dupes", "min_similarity"], 14],
    [["dupes", "missing"], undefined],
    [["nowhere"], undefined],
  ] as const)("%j → %p", (path, line) => {
    expect(keyLine(text, [...path])).toBe(line);
  });
});
