import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { addFromCommands, completeFromItem, finishItem, itemSource, partsOfText, readFromItem, type LessonParts } from "../../cli/inbox/from-item.ts";
import { serializeLesson } from "../../cli/lesson/lesson.ts";
import { parseLesson, summary } from "../../cli/lesson/lesson.ts";
import { capture } from "../../cli/sessions/capture.ts";
import { listItems, readItem } from "../../cli/inbox/inbox.ts";
import { matchingQuery } from "../../cli/search/learned.ts";
import { sandbox } from "../helpers.ts";
import { SessionWriter } from "../sessions/session-writer.ts";

const asText = (p: LessonParts) => serializeLesson(p.frontmatter, p.body);

async function itemOf(w: SessionWriter) {
  const box = sandbox("rkb-from");
  const path = join(box.dir, "s.jsonl");
  writeFileSync(path, w.text());
  await capture({ sessionFile: path, env: box.env });
  return { env: box.env, item: listItems(box.env)[0]! };
}

function zlibSession(): SessionWriter {
  const w = new SessionWriter("pi");
  w.bash("cmake -S . -B build", "CMake Error at CMakeLists.txt:3 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)", 1);
  w.bash("sudo apt-get install -y zlib1g-dev", "Setting up zlib1g-dev");
  w.tool("edit", { path: "CMakeLists.txt", edits: [{ oldText: "find_package(ZLIB)", newText: "find_package(ZLIB REQUIRED)" }] }, "ok");
  w.bash("cmake -S . -B build", "-- Configuring done");
  return w;
}

describe("a lesson from an inbox item", () => {
  test("a draft pitfall fills the sections left empty, adds its key lines as queries, and names its source", async () => {
    const w = zlibSession();
    const { env, item } = await itemOf(w);
    const from = readFromItem(env, item.id);
    expect(from.draftNumber).toBe(1);
    expect(from.queries).toEqual(["CMake Error at CMakeLists.txt:3 (find_package):", "Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)"]);
    expect(itemSource(from)).toEqual({ item: item.id, session: w.sessionId, harness: "pi", entries: expect.stringMatching(/^\w+\.\.\w+$/) });

    const given =
      "---\ntype: pitfall\nqueries:\n  - cmake zlib\n---\n\n# ZLIB headers missing\n\n## Symptom\n\n## Cause\n\nThe zlib headers are not installed.\n\n## Fix\n\n## Evidence\n";
    const lesson = parseLesson(asText(completeFromItem(partsOfText(given), from)), "x.md");
    expect(lesson.title).toBe("ZLIB headers missing");
    expect(lesson.queries).toEqual(["cmake zlib", ...from.queries]);
    expect(summary(lesson)).toBe("Running `cmake -S . -B build` fails with `Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)`.");
    expect(lesson.sections.get("Cause")).toBe("The zlib headers are not installed.");
    expect(lesson.sections.get("Fix")).toContain("```sh\nsudo apt-get install -y zlib1g-dev\n```");
    expect(lesson.sections.get("Fix")).toContain("```diff\n-find_package(ZLIB)\n+find_package(ZLIB REQUIRED)\n```");
    expect(lesson.sections.get("Evidence")).toContain(w.sessionId);
    expect(lesson.scan.sections.map((s) => s.heading)).toEqual(["Symptom", "Cause", "Fix", "Evidence"]);
  });

  test("sections the caller wrote stay; missing ones and the title come from the draft, in order", async () => {
    const { env, item } = await itemOf(zlibSession());
    const from = readFromItem(env, item.id);
    const text = asText(completeFromItem(partsOfText("## Cause\n\nNo zlib headers.\n\n## Fix\n\nInstall zlib1g-dev.\n"), from));
    const lesson = parseLesson(text, "x.md");
    expect(lesson.type).toBe("pitfall");
    expect(lesson.title).toBe("cmake fails: Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)");
    expect(lesson.scan.sections.map((s) => s.heading)).toEqual(["Symptom", "Cause", "Fix", "Evidence"]);
    expect(lesson.sections.get("Fix")).toBe("Install zlib1g-dev.");
  });

  test("an item with several drafts: each has its command, and the item stays until every draft has its lesson", async () => {
    const w = zlibSession();
    w.bash("pytest -q", "E   ModuleNotFoundError: No module named 'yaml'", 1);
    w.bash("pip install pyyaml", "ok");
    w.bash("python -m pytest -q", "3 passed");
    const { env, item } = await itemOf(w);
    expect(addFromCommands(item)).toEqual([
      `rkb add --from ${item.id} --topic cmake --cause "<why it failed>"`,
      `rkb add --from ${item.id}:2 --topic pytest --cause "<why it failed>"`,
    ]);
    const second = readFromItem(env, `${item.id}:2`);
    expect(second.queries).toEqual(["E ModuleNotFoundError: No module named 'yaml'"]);
    expect(finishItem(env, second, "aaaaaaaaaa")).toEqual({ removed: false });
    expect(addFromCommands(readItem(env, item.id))).toEqual([`rkb add --from ${item.id} --topic cmake --cause "<why it failed>"`]);
    expect(finishItem(env, readFromItem(env, item.id), "bbbbbbbbbb")).toEqual({ removed: true });
    expect(listItems(env)).toEqual([]);
    expect(() => readFromItem(env, item.id)).toThrow(/no inbox item/);
  });

  test("a draft number the item does not have is an error naming the ones it has", async () => {
    const { env, item } = await itemOf(zlibSession());
    expect(() => readFromItem(env, `${item.id}:3`)).toThrow(/drafts 1 to 1, not draft 3/);
  });
});

describe("matchingQuery", () => {
  test("a query that is a key line matches that failure again, paths and numbers aside", () => {
    const queries = ["cmake zlib", "Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)"];
    expect(matchingQuery(queries, ["CMake Error at CMakeLists.txt:7 (find_package):", "Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)"])).toBe(
      queries[1],
    );
    expect(matchingQuery(["error: linker `cc` not found"], ["error: linker `cc` not found (os error 2)"])).toBe("error: linker `cc` not found");
    expect(matchingQuery(["/home/a/x.c:3:5: error: unknown type name 'uint8_t'"], ["/srv/b/y.c:9:1: error: unknown type name 'uint8_t'"])).toBeDefined();
  });
  test("short or different lines do not match", () => {
    expect(matchingQuery(["error: failed"], ["error: failed"])).toBeUndefined();
    expect(matchingQuery(["Could NOT find ZLIB"], ["Could NOT find PNG"])).toBeUndefined();
    expect(matchingQuery(["Could NOT find ZLIB (missing: ZLIB_LIBRARY)"], ["Could NOT find ZLIB"])).toBeUndefined();
  });
});
