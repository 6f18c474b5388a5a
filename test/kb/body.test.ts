import { describe, expect, test } from "bun:test";
import { firstSentence, paragraphs, sentences } from "../../cli/lesson/body.ts";

describe("sentences", () => {
  test.each([
    ["Add the folder to sys.path before the import. Then run it.", "Add the folder to sys.path before the import."],
    ["Pin a tool, e.g. CMake, before the build. Then build.", "Pin a tool, e.g. CMake, before the build."],
    ["Use a linker flag, i.e. the rpath one. More.", "Use a linker flag, i.e. the rpath one."],
    ["Upgrade to v1.2 of the plugin. It works.", "Upgrade to v1.2 of the plugin."],
    ["Running `cmake -S . -B build` fails. Later.", "Running `cmake -S . -B build` fails."],
    ["It stops. then it goes on. Yes.", "It stops. then it goes on."],
    ["Does it build? Yes.", "Does it build?"],
    ['He said "stop." Then left.', 'He said "stop."'],
    ["No full stop at all", "No full stop at all"],
  ])("%p", (text, first) => {
    expect(sentences(text)[0]).toBe(first);
  });
  test("every sentence once, none lost", () => {
    expect(sentences("One. Two, e.g. three! Four? Five")).toEqual(["One.", "Two, e.g. three!", "Four?", "Five"]);
  });
});

describe("paragraphs and firstSentence", () => {
  test("a paragraph wrapped over several lines is one sentence", () => {
    const symptom =
      "`cmake -S . -B build` stops with `Could NOT find ZLIB` although\nzlib is installed under /opt/zlib, because CMake does not look\nthere by default.\n\nSecond paragraph.";
    expect(firstSentence(symptom)).toBe(
      "`cmake -S . -B build` stops with `Could NOT find ZLIB` although zlib is installed under /opt/zlib, because CMake does not look there by default.",
    );
  });
  test("list items, headings and fences start new paragraphs", () => {
    expect(paragraphs("- one\n  wrapped\n- two\n### sub\ntext\n```\ncode\n```\nafter")).toEqual(["one wrapped", "two", "text", "after"]);
    expect(firstSentence("```sh\nmake\n```\n1. Run make\n   first. Then more.")).toBe("Run make first.");
  });
  test("empty text has no sentence", () => {
    expect(firstSentence("")).toBe("");
    expect(firstSentence("```\nonly code\n```")).toBe("");
  });
});
