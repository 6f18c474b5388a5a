// `--toon` is for agents and `--format json` for scripts: the TOON any command prints must decode,
// with the @toon-format/toon decoder, to exactly the JSON data. Each command runs with --format json
// in one sandbox and --toon in its twin (so writes happen once in each), on the compiled binary over
// a real git knowledge base. Outputs that are raw text by design (`hook`, `add --template`,
// `inbox show`: the text is the answer) are not TOON and are left out.
import { describe, expect, test } from "bun:test";
import { decode } from "@toon-format/toon";
import { join } from "node:path";
import { comparable, kbFromFixture, ROOT, rkb, sandbox, twin, writeFile, type Sandbox } from "../helpers.ts";

const LESSON = `---
type: pitfall
verified_how: ran
tags:
  - make
---

# make says missing separator

## Symptom
\`Makefile:3: *** missing separator.  Stop.\`

## Cause
The recipe line starts with spaces, not a tab.

## Fix
Indent recipe lines with a tab.

## Evidence
After replacing the spaces with a tab, \`make\` built the target.
`;

interface Call {
  args: string[];
  stdin?: string;
}

/** rkb_search and rkb_show answer the model inside the lesson frame (output/frame.ts): the TOON is what is between its tags. */
function unframed(stdout: string): string {
  const lines = stdout.trimEnd().split("\n");
  return lines[1]?.startsWith("<rkb-lesson ") && lines.at(-1) === "</rkb-lesson>" ? lines.slice(2, -1).join("\n") + "\n" : stdout;
}

async function bothFormats(json: Sandbox, toon: Sandbox, { args, stdin }: Call) {
  const asJson = await rkb([...args, "--format", "json"], { env: json.env, stdin, cwd: json.home });
  const asToon = await rkb([...args, "--toon"], { env: toon.env, stdin, cwd: toon.home });
  expect({ args, exit: asToon.exit }).toEqual({ args, exit: asJson.exit });
  let decoded: unknown;
  try {
    decoded = decode(unframed(asToon.stdout));
  } catch (e) {
    throw new Error(`rkb ${args.join(" ")} --toon does not decode: ${(e as Error).message}\n${asToon.stdout}`);
  }
  expect({ args, data: comparable(decoded, toon) }).toEqual({ args, data: comparable(asJson.json(), json) });
}

describe("--toon decodes to the --format json data", () => {
  test("every command, including errors", async () => {
    const a = sandbox("rkb-toon");
    kbFromFixture(a);
    // A folder to import, next to each twin's home (`../imp` from the cwd of both runs).
    writeFile(join(a.dir, "imp", "make", "separator.md"), LESSON);
    writeFile(join(a.dir, "imp", "idea.md"), "# Cache the build\n\nccache halves the rebuild time on orion.\n");
    writeFile(join(a.dir, "imp", "photo.png"), "not Markdown");
    const b = twin(a);
    const session = join(ROOT, "test", "fixtures", "sessions", "pi-cmake-zlib.jsonl");
    const calls: Call[] = [
      { args: ["status"] },
      { args: ["context"] },
      { args: ["list"] },
      { args: ["list", "general/cpp"] },
      { args: ["show", "3c0ffee002"] },
      { args: ["search", "vtable linker"] },
      { args: ["search", "--literal", "vtable", "--all"] },
      { args: ["search", "--regex", "v[a-z]+ble", "--status", "all"] },
      { args: ["search", "nothing matches zzzz"] },
      { args: ["lint"] },
      { args: ["dupes", "--min-similarity", "0.01"] },
      { args: ["review", "--signals"] },
      { args: ["log", "3c0ffee002"] },
      { args: ["changes"] },
      { args: ["doctor"] },
      { args: ["tools"] },
      { args: ["tool", "rkb_search"], stdin: '{"query": "git rebase"}' },
      { args: ["tool", "rkb_show"], stdin: "{}" },
      { args: ["add", "--topic", "make"], stdin: LESSON },
      {
        args: [
          "add",
          "--topic",
          "git",
          "--type",
          "fact",
          "--title",
          "Tags need a push",
          "--statement",
          "git push does not push tags, by default.",
          "--evidence",
          "`git ls-remote --tags` listed none.",
        ],
      },
      { args: ["note", "--priority", "3", "remember: the build, on orion, needs -j4"] },
      { args: ["inbox"] },
      { args: ["used", "3c0ffee002", "--worked"] },
      { args: ["used", "3c0ffee002", "--failed", "--reason", "gone, in gcc 14"] },
      { args: ["flag", "3c0ffee001", "--reason", "out of date"] },
      { args: ["supersede", "3c0ffee001", "--by", "3c0ffee002", "--reason", "merged"] },
      { args: ["archive", "3c0ffee002", "--reason", "the cluster was retired"] },
      { args: ["unarchive", "3c0ffee002"] },
      { args: ["move", "3c0ffee001", "vcs"] },
      { args: ["rename", "3c0ffee001", "Rebase needs a clean tree"] },
      { args: ["rename", "3c0ffee001", "--slug", "rebase-needs-a-clean-tree"] },
      { args: ["label", "3c0ffee001", "sensitivity=confidential"] },
      { args: ["label", "general/cpp", "sensitivity=confidential"] },
      { args: ["label", "general/cpp", "sensitivity=secret"] },
      { args: ["eval", "--self"] },
      { args: ["eval", "--replay", session] },
      { args: ["extract", session, "--dry-run"] },
      { args: ["propose", session, "--min-sessions", "1"] },
      { args: ["import", "../imp", "--dry-run"] },
      { args: ["import", "../imp"] },
      { args: ["install", "pi"] },
      { args: ["sync"] },
      { args: ["show", "ffffffffff"] },
      { args: ["search"] },
      { args: ["init"] },
    ];
    for (const call of calls) await bothFormats(a, b, call);
    // edit needs the hash each sandbox's lesson has now; they are the same file in both.
    const shown = (await rkb(["show", "3c0ffee002", "--format", "json"], { env: a.env })).json();
    const text = (await Bun.file(join(a.kb, shown.path)).text()).replace("# ", "# Edited: ");
    await bothFormats(a, b, { args: ["edit", "3c0ffee002", "--base", shown.hash], stdin: text });
  }, 120_000);

  test("a new knowledge base: init", async () => {
    const a = sandbox("rkb-toon-init");
    await bothFormats(a, twin(a), { args: ["init"] });
  });
});
