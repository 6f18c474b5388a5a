// The command-line adapter in-process: argv becomes the command's input, checked by its schema,
// with usage errors that name the flag the way it was typed.
import { describe, expect, test } from "bun:test";
import { loadCommand } from "../cli/commands/index.ts";
import { helpText, readCommandLine } from "../cli/flags.ts";
import { RkbError } from "../cli/base/errors.ts";

const command = async (name: string) => (await loadCommand(name))!;

async function usage(name: string, argv: string[]): Promise<string> {
  try {
    await readCommandLine(await command(name), argv);
  } catch (e) {
    expect(e).toBeInstanceOf(RkbError);
    expect((e as RkbError).code).toBe("usage");
    return (e as RkbError).message;
  }
  throw new Error(`rkb ${name} ${argv.join(" ")} was accepted`);
}

describe("argv → input", () => {
  test("positionals, flags, numbers, repeatable and key=value flags, choices", async () => {
    expect((await readCommandLine(await command("search"), ["cmake zlib", "--limit", "3", "--all"])).input).toEqual({
      query: "cmake zlib",
      limit: 3,
      all: true,
    });
    expect((await readCommandLine(await command("note"), ["--priority=2", "--", "-x", "flag"])).input).toEqual({ text: "-x flag", priority: 2 });
    expect((await readCommandLine(await command("used"), ["abc", "--failed", "--reason", "old"])).input).toEqual({
      id: "abc",
      result: "failed",
      reason: "old",
    });
    const add = await readCommandLine(await command("add"), [
      "--topic",
      "git",
      "--tag",
      "a",
      "--tag",
      "b",
      "--when",
      "project=x",
      "--when-to-use",
      "W",
      "--verified-how",
      "read",
    ]);
    expect(add.input).toEqual({ topic: "git", tags: ["a", "b"], when: { project: "x" }, when_to_use: "W", verified_how: "read" });
    expect((await readCommandLine(await command("inbox"), ["done", "a1", "--outcome", "noop"])).input).toEqual({
      action: "done",
      ids: ["a1"],
      outcomes: ["noop"],
    });
  });

  test("global flags are read beside the input", async () => {
    const line = await readCommandLine(await command("show"), ["abc", "--project", "app", "--with", "hdf5=1.14"]);
    expect(line).toEqual({ input: { id: "abc" }, project: "app", system: undefined, with: { hdf5: "1.14" } });
  });

  test("usage errors name the flag as typed", async () => {
    expect(await usage("search", ["x", "--limit", "abc"])).toBe("--limit abc is not a whole number ≥ 1");
    expect(await usage("search", ["x", "--limit", "0"])).toBe("--limit 0 is not a whole number ≥ 1");
    expect(await usage("note", ["x", "--priority", "5"])).toBe("--priority 5 is not 1, 2 or 3");
    expect(await usage("add", ["--verified-how", "checked"])).toBe("--verified-how checked is not one of ran, read, told");
    expect(await usage("used", ["abc", "--worked", "--failed"])).toBe("say exactly one of --worked, --failed or --irrelevant");
    expect(await usage("used", ["abc"])).toBe("say exactly one of --worked, --failed or --irrelevant");
    expect(await usage("show", [])).toBe("`rkb show` needs <id>");
    expect(await usage("add", ["--when", "project"])).toBe("--when project has no `=`");
    expect(await usage("search", ["x", "--limt", "3"])).toBe("`--limt` is not a flag of `rkb search`");
    expect(await usage("flag", ["abc", "--reason"])).toBe("`--reason` needs a value");
    // A word no argument takes is an error, not dropped: `rkb changes yesterday` ignored the word.
    expect(await usage("changes", ["yesterday"])).toBe('`rkb changes` takes no word, only flags; "yesterday" is one word too many');
    expect(await usage("show", ["abc", "def"])).toBe('`rkb show` takes <id> only; "def" is one word too many');
  });

  test("--help comes from the schema", async () => {
    const help = helpText(await command("add"));
    expect(help).toContain("--tag <value>");
    expect(help).toContain("(repeatable)");
    expect(help).toContain("--when-to-use <value>");
    expect(helpText(await command("used"))).toContain("--worked");
  });
});
