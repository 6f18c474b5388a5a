// rkb's one table in a user's TOML file: set and removed by its own lines only, checked by parsing.
import { describe, expect, test } from "bun:test";
import { editTable, renderTable, tableIn } from "../../cli/install/toml-table.ts";

const PATH = ["mcp_servers", "rkb"];
const block = (command = "/opt/rkb") => renderTable(PATH, { command, args: ["mcp"], env: { RKB_HARNESS: "codex" } }, "rkb's");
const edit = (text: string) => editTable(text, PATH, block(), "config.toml");
const remove = (text: string) => editTable(text, PATH, undefined, "config.toml");

const USER = `# mine
model = "o3"  # the model

[mcp_servers.other]
command = "other"

# my profile
[profiles.fast]
model = "mini"
`;

describe("editTable", () => {
  test("appends the table after the user's text, which stays byte for byte", () => {
    const out = edit(USER);
    expect(out.startsWith(USER)).toBe(true);
    expect(out.slice(USER.length)).toBe(`\n${block()}`);
    expect(tableIn(out, PATH)).toEqual({ command: "/opt/rkb", args: ["mcp"], env: { RKB_HARNESS: "codex" } });
  });

  test("a file with a 64-bit integer and a date is edited like any other, and given back on removal", () => {
    const mine = "seed = 9223372036854775807\nsince = 1979-05-27T07:32:00Z\n";
    expect(remove(edit(mine))).toBe(mine);
  });

  test("an empty or missing file becomes the table alone", () => {
    expect(edit("")).toBe(block());
  });

  test("replaces the table in place; the comment above the next table stays with it", () => {
    const text = `${USER.replace("# my profile", `[mcp_servers.rkb]\ncommand = "/old/rkb"\nargs = ["mcp"]\n\n# my profile`)}`;
    const out = edit(text);
    expect(out).toBe(USER.replace("# my profile", `${block().trimEnd()}\n\n# my profile`));
  });

  test("removing gives back the user's file exactly", () => {
    expect(remove(edit(USER))).toBe(USER);
    expect(remove(USER.replace("# my profile", `${block()}\n# my profile`))).toBe(USER);
  });

  test("subtables of the table are its lines too", () => {
    const text = `${USER}\n[mcp_servers.rkb]\ncommand = "/old"\n\n[mcp_servers.rkb.env]\nX = "1"\n`;
    expect(remove(text)).toBe(USER);
  });

  test("a header inside a multi-line string is no header", () => {
    const text = `notes = """\n[mcp_servers.rkb]\nnot a table\n"""\n`;
    const out = edit(text);
    expect(out).toBe(`${text}\n${block()}`);
    expect(Bun.TOML.parse(out)).toMatchObject({ notes: "[mcp_servers.rkb]\nnot a table\n" });
  });

  test.each([
    ["dotted keys", `mcp_servers.rkb.command = "x"\n`],
    ["an inline table", `mcp_servers = { rkb = { command = "x" } }\n`],
  ])("refuses a table written as %s, changing nothing", (_, text) => {
    expect(() => edit(text)).toThrow(/cannot edit line by line/);
  });

  test("a broken file is a config error naming it", () => {
    expect(() => edit(`model = "o3\n`)).toThrow(/config\.toml:1 is not valid TOML/);
  });

  test("renders keys and strings TOML can read back, whatever the path holds", () => {
    const odd = `/tmp/a "b"\\c/rkb`;
    expect(tableIn(block(odd), PATH)).toMatchObject({ command: odd });
  });
});
