import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_KB_TOML } from "../../cli/lesson/config.ts";
import type { Finding } from "../../cli/lesson/finding.ts";
import { fixFlowStyle } from "../../cli/lint/fix.ts";
import { lintKb, lintStaged } from "../../cli/lint/lint.ts";
import { sandbox, writeFile } from "../helpers.ts";
import { NOT_SECRETS, SECRET_SAMPLES } from "../reliability/secret-corpus.ts";

const GOOD = `---
schema: 1
id: 0a1b2c3d4e
type: pitfall
status: active
verified: 2026-01-15
verified_how: ran
tags:
  - cmake
---

# CMake keeps a failed find_package

## Symptom
The package is still NOTFOUND after installing it.

## Cause
The first result stays in CMakeCache.txt.

## Fix
\`\`\`sh
cmake --fresh -B build
\`\`\`

## Evidence
The next configure found the library.
`;

const LESSON = "general/cmake/failed-find-package-stays-cached.md";
const ENV = { HOME: "/nonexistent-home", USER: "" };

/** A knowledge base with the default kb.toml (unless given) and these files. */
function kb(files: Record<string, string | Uint8Array>, withToml = true): string {
  const root = sandbox("rkb-lint").kb;
  if (withToml) writeFile(join(root, "kb.toml"), DEFAULT_KB_TOML);
  for (const [rel, content] of Object.entries(files)) writeFile(join(root, rel), content as string);
  return root;
}

function lint(files: Record<string, string | Uint8Array>, env: NodeJS.ProcessEnv = ENV): Finding[] {
  return lintKb(kb(files), { env });
}

const byRule = (findings: Finding[], rule: string) => findings.filter((f) => f.rule === rule);

/** 1-based line of the first line of text containing needle. */
function lineOf(text: string, needle: string, from = 0): number {
  const index = text.split("\n").findIndex((l, i) => i >= from && l.includes(needle));
  if (index < 0) throw new Error(`no line with ${needle}`);
  return index + 1;
}

/** Lints the good lesson with one edit and returns the findings of one rule. */
function lintEdited(rule: string, edit: (text: string) => string, path = LESSON): { findings: Finding[]; text: string } {
  const text = edit(GOOD);
  return { findings: byRule(lint({ [path]: text }), rule), text };
}

describe("a good lesson", () => {
  test("has no findings", () => {
    expect(lint({ [LESSON]: GOOD })).toEqual([]);
  });
});

describe("config", () => {
  test("config/missing warns when lessons have no kb.toml", () => {
    const findings = lintKb(kb({ [LESSON]: GOOD }, false), { env: ENV });
    expect(findings).toEqual([expect.objectContaining({ path: "kb.toml", severity: "warning", rule: "config/missing" })]);
  });

  test("config/invalid reports a broken kb.toml with its line", () => {
    const findings = byRule(lint({ "kb.toml": '[labels]\nsensitivity = ["public"]\n[colours]\nx = 1\n', [LESSON]: GOOD }), "config/invalid");
    expect(findings).toEqual([expect.objectContaining({ path: "kb.toml", line: 3, severity: "error" })]);
    expect(findings[0]!.message).toContain("colours");
  });

  test("config/invalid reports an unknown folder-note key and a wrongly shaped value", () => {
    const findings = byRule(
      lint({
        "general/cmake/README.md": "---\naliases:\n  - cm\nhostname:\n  - x\n---\n# CMake\n",
        "systems/hpc1/README.md": "---\nhostname: hpc1\nfacts:\n  gcc: 12.1\n---\n# hpc1\n",
      }),
      "config/invalid",
    );
    expect(findings.map((f) => [f.path, f.line])).toEqual([
      ["general/cmake/README.md", 4],
      ["systems/hpc1/README.md", 2],
      ["systems/hpc1/README.md", 3],
    ]);
    expect(findings[0]!.message).toContain("hostname");
  });
});

describe("format", () => {
  test("format/parse: no frontmatter, an unknown key, an unclosed code block", () => {
    const findings = byRule(
      lint({
        "general/a/no-frontmatter.md": "# Title\n",
        "general/a/unknown-key.md": GOOD.replace("tags:", "links:\n  - x\ntags:"),
        "general/a/unclosed.md": GOOD.replace("cmake --fresh -B build\n```", "cmake --fresh -B build"),
      }),
      "format/parse",
    );
    expect(findings.map((f) => [f.path, f.line])).toEqual([
      ["general/a/no-frontmatter.md", 1],
      ["general/a/unclosed.md", lineOf(GOOD, "```sh")],
      ["general/a/unknown-key.md", 8],
    ]);
    expect(findings[2]!.message).toContain("`links`");
  });

  test("format/schema: schema must be 1", () => {
    const { findings } = lintEdited("format/schema", (t) => t.replace("schema: 1", "schema: 2"));
    expect(findings).toEqual([expect.objectContaining({ line: 2, severity: "error" })]);
  });

  test("format/id: not 10 lowercase hex; an unquoted numeric-looking id is read as written, as in the Rust rkb", () => {
    expect(lintEdited("format/id", (t) => t.replace("0a1b2c3d4e", "0A1B2C3D4E")).findings).toEqual([expect.objectContaining({ line: 3 })]);
    expect(lintEdited("format/id", (t) => t.replace("0a1b2c3d4e", "1234567890")).findings).toEqual([]);
    expect(lintEdited("format/id", (t) => t.replace("0a1b2c3d4e", "12e4567890")).findings).toEqual([]);
  });

  test("format/parse: an unknown type, status or verified_how, named with its line and the allowed values; nothing else is judged", () => {
    const cases: [string, string, number, string][] = [
      ["type: pitfall", "type: gotcha", 4, "`pitfall`, `recipe`, `fact`, `decision`, `preference`"],
      ["status: active", "status: done", 5, "`active`, `stale`, `superseded`, `archived`"],
      ["verified_how: ran", "verified_how: guessed", 7, "`ran`, `read`, `told`, `checked`"],
    ];
    for (const [from, to, line, allowed] of cases) {
      const findings = lint({ [LESSON]: GOOD.replace(from, to).replace("# CMake keeps", "# x\n\n# CMake keeps") });
      expect(findings).toEqual([expect.objectContaining({ path: LESSON, line, severity: "error", rule: "format/parse" })]);
      expect(findings[0]!.message).toContain(`\`${to}\` on line ${line}`);
      expect(findings[0]!.message).toContain(allowed);
    }
    // Several wrong values: each at its line, all at once (issue 22: one per run made a user fix them one by one).
    const all = lint({ [LESSON]: GOOD.replace("type: pitfall", "type: gotcha").replace("status: active", "status: done") });
    expect(all.map((f) => [f.rule, f.line])).toEqual([
      ["format/parse", 4],
      ["format/parse", 5],
    ]);
    // A missing required field is the same kind of error.
    const missing = lint({ [LESSON]: GOOD.replace("type: pitfall\n", "") });
    expect(missing).toEqual([expect.objectContaining({ rule: "format/parse", message: expect.stringContaining("no `type`") })]);
  });

  test("format/parse: a key written twice", () => {
    const findings = lint({ [LESSON]: GOOD.replace("verified_how: ran", "verified_how: ran\ntype: fact") });
    expect(findings).toEqual([
      expect.objectContaining({ rule: "format/parse", line: 8, message: expect.stringContaining("`type` appears twice (lines 4 and 8)") }),
    ]);
  });

  test("format/superseded_by: required by status superseded and allowed only with it", () => {
    const missing = lintEdited("format/superseded_by", (t) =>
      t.replace("status: active", "status: superseded").replace("## Evidence", "## Why superseded\nA newer lesson.\n\n## Evidence"),
    );
    expect(missing.findings).toEqual([expect.objectContaining({ line: 5 })]);
    const stray = lintEdited("format/superseded_by", (t) => t.replace("status: active", "status: active\nsuperseded_by: 1b2c3d4e5f"));
    expect(stray.findings).toEqual([expect.objectContaining({ line: 6 })]);
    const fine = lintEdited("format/superseded_by", (t) =>
      t.replace("status: active", "status: superseded\nsuperseded_by: 1b2c3d4e5f").replace("## Evidence", "## Why superseded\nA newer lesson.\n\n## Evidence"),
    );
    expect(fine.findings).toEqual([]);
  });

  test("format/stale_reason: required by status stale and allowed only with it", () => {
    expect(lintEdited("format/stale_reason", (t) => t.replace("status: active", "status: stale")).findings).toEqual([expect.objectContaining({ line: 5 })]);
    expect(lintEdited("format/stale_reason", (t) => t.replace("status: active", "status: active\nstale_reason: old")).findings).toEqual([
      expect.objectContaining({ line: 6 }),
    ]);
    expect(lintEdited("format/stale_reason", (t) => t.replace("status: active", "status: stale\nstale_reason: gcc 14 changed it")).findings).toEqual([]);
  });

  test("format/parse: `verified` must be a real YYYY-MM-DD date", () => {
    for (const date of ["2026-02-30", "2024-13-01", "24-1-1", "2026-1-15", "yesterday"]) {
      const findings = lint({ [LESSON]: GOOD.replace("2026-01-15", date) });
      expect(findings).toEqual([expect.objectContaining({ rule: "format/parse", line: 6 })]);
      expect(findings[0]!.message).toContain(`\`verified: ${date}\` on line 6`);
      expect(findings[0]!.message).toContain("YYYY-MM-DD");
    }
    expect(lint({ [LESSON]: GOOD.replace("2026-01-15", "2024-02-29") })).toEqual([]);
    expect(lint({ [LESSON]: GOOD.replace("verified: 2026-01-15\n", "") })).toEqual([
      expect.objectContaining({ rule: "format/parse", message: expect.stringContaining("no `verified`") }),
    ]);
  });

  test("format/flow-style: not for an empty list or map (`tags: []`)", () => {
    expect(lint({ [LESSON]: GOOD.replace("tags:\n  - cmake", "tags: []") })).toEqual([]);
    expect(lint({ [LESSON]: GOOD.replace("tags:\n  - cmake", "tags: [ ]\nlabels: {}") })).toEqual([]);
    expect(byRule(lint({ [LESSON]: GOOD.replace("tags:\n  - cmake", "tags: [cmake]") }), "format/flow-style")).toEqual([expect.objectContaining({ line: 8 })]);
  });

  test("format/tags: lowercase without whitespace, at the item's line", () => {
    const { findings, text } = lintEdited("format/tags", (t) => t.replace("  - cmake", "  - cmake\n  - Build System"));
    expect(findings).toEqual([expect.objectContaining({ line: lineOf(text, "Build System"), severity: "error" })]);
    expect(findings[0]!.message).toContain("build-system");
  });

  test("format/queries: at most 8, each at most 200 characters, no repeats", () => {
    const queries = (items: string[]) => (t: string) => t.replace("tags:", `queries:\n${items.map((q) => `  - ${q}`).join("\n")}\ntags:`);
    const many = lintEdited("format/queries", queries(Array.from({ length: 9 }, (_, i) => `query ${i}`)));
    expect(many.findings).toEqual([expect.objectContaining({ line: lineOf(many.text, "queries:") })]);
    const long = lintEdited("format/queries", queries(["short", "x".repeat(201)]));
    expect(long.findings).toEqual([expect.objectContaining({ line: lineOf(long.text, "xxxx") })]);
    const twice = lintEdited("format/queries", queries(["cmake cache", "other", "cmake cache"]));
    expect(twice.findings).toEqual([expect.objectContaining({ line: lineOf(twice.text, "cmake cache", lineOf(twice.text, "other")) })]);
  });

  test("format/duplicate-id: reported on both lessons", () => {
    const findings = byRule(lint({ [LESSON]: GOOD, "general/cmake/copy.md": GOOD }), "format/duplicate-id");
    expect(findings.map((f) => [f.path, f.line])).toEqual([
      ["general/cmake/copy.md", 3],
      [LESSON, 3],
    ]);
    expect(findings[0]!.message).toContain(LESSON);
  });

  test("format/flow-style: a warning on lessons and notes, which fixFlowStyle rewrites to block style", () => {
    const flowLesson = GOOD.replace("tags:\n  - cmake", "tags: [cmake, cache]");
    const flowNote = "---\naliases: [cm, cmakelists]\n---\n# CMake\n";
    const root = kb({ [LESSON]: flowLesson, "general/cmake/README.md": flowNote });
    expect(byRule(lintKb(root, { env: ENV }), "format/flow-style")).toEqual([
      expect.objectContaining({ path: "general/cmake/README.md", line: 2, severity: "warning" }),
      expect.objectContaining({ path: LESSON, line: 8, severity: "warning" }),
    ]);
    expect(fixFlowStyle(root)).toEqual(["general/cmake/README.md", LESSON]);
    expect(readFileSync(join(root, LESSON), "utf8")).toBe(GOOD.replace("  - cmake", "  - cmake\n  - cache"));
    expect(readFileSync(join(root, "general/cmake/README.md"), "utf8")).toBe("---\naliases:\n  - cm\n  - cmakelists\n---\n# CMake\n");
    expect(lintKb(root, { env: ENV })).toEqual([]);
    expect(fixFlowStyle(root)).toEqual([]);
  });
});

describe("when and labels", () => {
  test("when/invalid: an unquoted version and a bad commit, at the key's line", () => {
    const { findings, text } = lintEdited("when/invalid", (t) => t.replace("verified:", 'when:\n  hdf5: 1.10\n  since: "not-a-commit"\nverified:'));
    expect(findings.map((f) => f.line)).toEqual([lineOf(text, "hdf5:"), lineOf(text, "since:")]);
    expect(findings[0]!.message).toContain("quoted");
  });

  test("labels/unknown: an undeclared key and a value outside the declared list, in lessons and notes", () => {
    const { findings, text } = lintEdited("labels/unknown", (t) => t.replace("---\n\n#", "labels:\n  sensitivity: secret\n  team: io\n---\n\n#"));
    expect(findings.map((f) => f.line)).toEqual([lineOf(text, "sensitivity:"), lineOf(text, "team:")]);
    const note = byRule(lint({ "general/cmake/README.md": "---\nlabels:\n  sensitivity: open\n---\n# CMake\n" }), "labels/unknown");
    expect(note).toEqual([expect.objectContaining({ path: "general/cmake/README.md", line: 3 })]);
  });
});

describe("body", () => {
  test("body/title: missing, text before it, a second title", () => {
    expect(lintEdited("body/title", (t) => t.replace("# CMake keeps a failed find_package\n", "")).findings).toHaveLength(1);
    const before = lintEdited("body/title", (t) => t.replace("\n# CMake", "\nIntro text.\n\n# CMake"));
    expect(before.findings).toEqual([expect.objectContaining({ line: lineOf(before.text, "Intro text.") })]);
    const second = lintEdited("body/title", (t) => t.replace("## Cause", "# Cause"));
    expect(second.findings).toEqual([expect.objectContaining({ line: lineOf(second.text, "# Cause") })]);
  });

  test("body/headings: a missing, a duplicated and a miscapitalised required section", () => {
    const missing = lintEdited("body/headings", (t) => t.replace("## Cause\nThe first result stays in CMakeCache.txt.\n\n", ""));
    expect(missing.findings).toHaveLength(1);
    expect(missing.findings[0]!.message).toContain("`## Cause`");
    const twice = lintEdited("body/headings", (t) => `${t}\n## Evidence\nMore.\n`);
    expect(twice.findings).toEqual([expect.objectContaining({ line: lineOf(twice.text, "## Evidence", lineOf(twice.text, "## Evidence")) })]);
    const cased = lintEdited("body/headings", (t) => t.replace("## Cause", "## cause"));
    expect(cased.findings).toEqual([expect.objectContaining({ line: lineOf(cased.text, "## cause") })]);
  });

  test("body/headings: the status adds its section", () => {
    const { findings } = lintEdited("body/headings", (t) => t.replace("status: active", "status: archived"));
    expect(findings[0]!.message).toContain("`## Why archived`");
  });

  test("body/empty-section", () => {
    const { findings, text } = lintEdited("body/empty-section", (t) => t.replace("The first result stays in CMakeCache.txt.\n", ""));
    expect(findings).toEqual([expect.objectContaining({ line: lineOf(text, "## Cause") })]);
  });

  test("body/heading-order", () => {
    const swapped = (t: string) =>
      t.replace(
        "## Symptom\nThe package is still NOTFOUND after installing it.\n\n## Cause\nThe first result stays in CMakeCache.txt.",
        "## Cause\nThe first result stays in CMakeCache.txt.\n\n## Symptom\nThe package is still NOTFOUND after installing it.",
      );
    const { findings, text } = lintEdited("body/heading-order", swapped);
    expect(findings).toEqual([expect.objectContaining({ line: lineOf(text, "## Cause") })]);
  });

  test("body/fence-lang", () => {
    const { findings, text } = lintEdited("body/fence-lang", (t) => t.replace("```sh", "```"));
    expect(findings).toEqual([expect.objectContaining({ line: lineOf(text, "```") })]);
  });

  test("body/script: a Check section holds exactly one sh or bash block", () => {
    const { findings, text } = lintEdited("body/script", (t) => `${t}\n## Check\n\`\`\`python\nprint(1)\n\`\`\`\n`);
    expect(findings).toEqual([expect.objectContaining({ line: lineOf(text, "## Check") })]);
    expect(lintEdited("body/script", (t) => `${t}\n## Check\n\`\`\`sh\ncmake --version\n\`\`\`\n`).findings).toEqual([]);
  });

  test("body/indented-code: one finding per indented block", () => {
    const { findings, text } = lintEdited("body/indented-code", (t) =>
      t.replace("```sh\ncmake --fresh -B build\n```", "Run:\n\n    cmake --fresh -B build\n    cmake --build build"),
    );
    expect(findings).toEqual([expect.objectContaining({ line: lineOf(text, "    cmake --fresh") })]);
    expect(lintEdited("body/indented-code", (t) => t.replace("Run", "- Run:\n\n    continued list text")).findings).toEqual([]);
  });
});

describe("links", () => {
  test("links/broken: missing targets and links leaving the knowledge base; files, folders, anchors and URLs are fine", () => {
    const other = "general/git/use-autostash.md";
    const links = [
      "[ok file](../git/use-autostash.md#steps)",
      "[ok folder](../git/)",
      "[ok anchor](#fix)",
      "[ok url](https://example.org/a.md)",
      "[ok spaces](../git/use%20autostash%20copy.md)",
      "[missing](../git/nothing-here.md)",
      "![missing image](failed-find-package-stays-cached.assets/plot.png)",
      "[outside](../../../README.md)",
    ].join("\n");
    const text = GOOD.replace("The next configure found the library.", links);
    const findings = byRule(
      lint({ [LESSON]: text, [other]: GOOD.replace("0a1b2c3d4e", "9f8e7d6c5b"), "general/git/use autostash copy.md": "x" }),
      "links/broken",
    );
    expect(findings.map((f) => f.line)).toEqual([lineOf(text, "[missing]"), lineOf(text, "![missing image]"), lineOf(text, "[outside]")]);
    expect(findings[2]!.message).toContain("outside the knowledge base");
  });
});

describe("layout", () => {
  test("layout/depth: topics do not nest, folder notes sit only in known folders", () => {
    const findings = byRule(lint({ "general/cmake/cache/deep.md": GOOD, "general/cmake/cache/README.md": "# Cache\n" }), "layout/depth");
    expect(findings.map((f) => f.path)).toEqual(["general/cmake/cache/README.md", "general/cmake/cache/deep.md"]);
  });

  test("layout/scope: a folder that contradicts `when`", () => {
    const withWhen = (when: string) => GOOD.replace("verified:", `when:\n${when}\nverified:`);
    const findings = byRule(
      lint({
        "general/cmake/a.md": withWhen("  project: imgtool").replace("0a1b2c3d4e", "0000000a01"),
        "projects/imgtool/cmake/b.md": withWhen("  project: other").replace("0a1b2c3d4e", "0000000a02"),
        "systems/hpc1/cmake/c.md": withWhen("  system: hpc2").replace("0a1b2c3d4e", "0000000a03"),
        "projects/imgtool/cmake/fine-system.md": withWhen("  system: hpc1").replace("0a1b2c3d4e", "0000000a04"),
        "systems/hpc1/cmake/fine-no-when.md": GOOD.replace("0a1b2c3d4e", "0000000a05"),
        "projects/imgtool/cmake/fine-project.md": withWhen("  project: imgtool").replace("0a1b2c3d4e", "0000000a06"),
      }),
      "layout/scope",
    );
    expect(findings.map((f) => [f.path, f.line])).toEqual([
      ["general/cmake/a.md", 7],
      ["projects/imgtool/cmake/b.md", 7],
      ["systems/hpc1/cmake/c.md", 7],
    ]);
    expect(findings[0]!.message).toContain("projects/imgtool/cmake/a.md");
  });

  test("layout/folder-name: lowercase words joined by dashes, once per folder", () => {
    const findings = byRule(
      lint({ "general/CMake_Tips/a.md": GOOD, "general/CMake_Tips/b.md": GOOD.replace("0a1b2c3d4e", "0000000b01") }),
      "layout/folder-name",
    );
    expect(findings).toEqual([expect.objectContaining({ path: "general/CMake_Tips", severity: "error" })]);
    expect(findings[0]!.message).toContain("cmake-tips");
  });

  test("layout/alias: an alias claimed by two topics, and a folder named like another topic's alias", () => {
    const findings = byRule(
      lint({
        "general/cpp/README.md": "---\naliases:\n  - cxx\n---\n# C++\n",
        "general/cplusplus/README.md": "---\naliases:\n  - cxx\n---\n# C++ again\n",
        "general/build/README.md": "---\naliases:\n  - cmake\n---\n# Builds\n",
        [LESSON]: GOOD,
      }),
      "layout/alias",
    );
    expect(findings.map((f) => [f.path, f.line])).toEqual([
      ["general/cmake", undefined],
      ["general/cplusplus/README.md", 2],
      ["general/cpp/README.md", 2],
    ]);
  });
});

describe("assets", () => {
  const image = "general/cmake/failed-find-package-stays-cached.assets/plot.png";
  const linking = GOOD.replace("The next configure found the library.", "![plot](failed-find-package-stays-cached.assets/plot.png)");

  test("a linked image is fine", () => {
    expect(lint({ [LESSON]: linking, [image]: "png" })).toEqual([]);
  });

  test("assets/type: only images", () => {
    const findings = byRule(lint({ [LESSON]: linking.replace("plot.png", "notes.txt"), [image.replace("plot.png", "notes.txt")]: "x" }), "assets/type");
    expect(findings).toEqual([expect.objectContaining({ path: image.replace("plot.png", "notes.txt") })]);
  });

  test("assets/size: at most 1 MiB", () => {
    expect(byRule(lint({ [LESSON]: linking, [image]: new Uint8Array(1024 * 1024 + 1) }), "assets/size")).toEqual([expect.objectContaining({ path: image })]);
    expect(byRule(lint({ [LESSON]: linking, [image]: new Uint8Array(1024 * 1024) }), "assets/size")).toEqual([]);
  });

  test("assets/unlinked", () => {
    expect(byRule(lint({ [LESSON]: GOOD, [image]: "png" }), "assets/unlinked")).toEqual([expect.objectContaining({ path: image, severity: "error" })]);
  });

  test("assets/unlinked is not claimed for a lesson that does not parse (its links are unknown)", () => {
    const findings = lint({ [LESSON]: linking.replace("schema: 1", "schema: 1\nsource: x"), [image]: "png" });
    expect(findings.map((f) => f.rule)).toEqual(["format/parse"]);
  });
});

describe("leaks", () => {
  const leaky = (line: string) => GOOD.replace("The next configure found the library.", line);

  test("leak/username: $USER and kb.toml usernames as whole words", () => {
    const text = leaky("Ran as jdoe and as mlee; jdoex is someone else.");
    const root = kb({ "kb.toml": DEFAULT_KB_TOML.replace("usernames = []", 'usernames = ["mlee"]'), [LESSON]: text });
    const findings = byRule(lintKb(root, { env: { ...ENV, USER: "jdoe" } }), "leak/username");
    expect(findings.map((f) => [f.line, f.message.split("`")[1]])).toEqual([
      [lineOf(text, "jdoe"), "jdoe"],
      [lineOf(text, "jdoe"), "mlee"],
    ]);
  });

  test("leak/email, except git@ remotes and names of no letter", () => {
    const text = leaky("Ask jane.doe@lab.example.org; clone git@github.com:org/repo.git; a decorator in a diff: +@pytest.fixture");
    expect(byRule(lint({ [LESSON]: text }), "leak/email")).toEqual([expect.objectContaining({ line: lineOf(text, "jane.doe"), severity: "error" })]);
  });

  test("a finding that quotes text around a secret quotes the secret's mask (a URL token reads as an e-mail's name too)", () => {
    const token = "Qx7bN2kLp9Rt4Vw8Zy3Hc6Jm1Fd5Gs0Ae";
    const text = leaky(`Clone with https://${token}@github.com/acme/private.git`);
    const findings = lint({ [LESSON]: text });
    expect(byRule(findings, "leak/email").map((f) => f.message.split("`")[1])).toEqual(["[masked:url-token]@github.com"]);
    expect(JSON.stringify(findings)).not.toContain(token);
  });

  test("leak/path: personal and site paths, not $VAR placeholders or kb.toml allow entries", () => {
    const text = leaky("Look in /home/jdoe/build and /p/lustre1/jdoe/run, not /home/$USER/x or /usr/workspace/shared/tools.");
    const root = kb({ "kb.toml": DEFAULT_KB_TOML.replace("allow = []", 'allow = ["/usr/workspace/shared/tools"]'), [LESSON]: text });
    const findings = byRule(lintKb(root, { env: ENV }), "leak/path");
    expect(findings.map((f) => f.message.split("`")[1])).toEqual(["/home/jdoe/build", "/p/lustre1/jdoe/run"]);
  });

  test("leak/path: the home folder of whoever runs lint", () => {
    const findings = byRule(lint({ [LESSON]: leaky("See /srv/people/ana/notes.") }, { HOME: "/srv/people/ana" }), "leak/path");
    expect(findings).toHaveLength(1);
  });

  test("leak/job-id: Slurm and Flux job ids", () => {
    const text = leaky("Submitted batch job 4242\nSLURM_JOB_ID=777, job id=90210, job_id = 0\nflux job fT7aB9cD2e failed, as did ƒ2Xk3eLJ; fstab is fine");
    const findings = byRule(lint({ [LESSON]: text }), "leak/job-id");
    expect(findings.map((f) => f.message.split("`")[1])).toEqual(["Submitted batch job 4242", "SLURM_JOB_ID=777", "job id=90210", "fT7aB9cD2e", "ƒ2Xk3eLJ"]);
  });

  test("leak/secret: every secret of the corpus, on its line, named by kind and never quoted", () => {
    for (const sample of SECRET_SAMPLES) {
      const text = leaky(`Ran this:\n\n\`\`\`sh\n${sample.line}\n\`\`\``);
      const findings = byRule(lint({ [LESSON]: text }), "leak/secret");
      expect(findings.length, sample.name).toBeGreaterThan(0);
      // The line the secret is on, or for a private key the BEGIN line above it.
      const secretLine = text.split("\n").findIndex((l) => l.includes(sample.secret.slice(0, 20))) + 1;
      const firstLine = lineOf(text, sample.line.split("\n")[0]!);
      expect(findings[0]!.line, sample.name).toBeGreaterThanOrEqual(firstLine);
      expect(findings[0]!.line, sample.name).toBeLessThanOrEqual(secretLine);
      if (!sample.line.includes("PRIVATE KEY")) expect(findings[0]!.line, sample.name).toBe(secretLine);
      expect(findings[0]!.severity).toBe("error");
      expect(findings[0]!.message).toMatch(/^this looks like .+ \([a-z0-9-]+\);/);
      for (const f of findings) expect(f.message).not.toContain(sample.secret.slice(0, 12));
    }
  });

  test("leak/secret: in the frontmatter too (a stale_reason)", () => {
    const text = GOOD.replace("status: active", "status: stale\nstale_reason: the old SLACK_TOKEN=xoxb-1234567890-abcdefghijkl stopped working");
    expect(byRule(lint({ [LESSON]: text }), "leak/secret")).toEqual([expect.objectContaining({ line: lineOf(text, "stale_reason") })]);
  });

  test("leak/secret: placeholders and everyday words about secrets are no finding", () => {
    const text = leaky(NOT_SECRETS.join("\n"));
    expect(byRule(lint({ [LESSON]: text }), "leak/secret")).toEqual([]);
  });

  test("the fixture knowledge bases have no leak finding", () => {
    for (const fixture of ["kb", "search-kb"]) {
      const findings = lintKb(join(import.meta.dir, "../fixtures", fixture), { env: ENV });
      expect(findings.filter((f) => f.rule.startsWith("leak/"))).toEqual([]);
    }
  });

  test("leaks are found in a lesson that does not parse", () => {
    const text = leaky("Mail me at jane.doe@lab.example.org").replace("schema: 1", "schema: 1\nsource: x");
    expect(lint({ [LESSON]: text }).map((f) => f.rule)).toEqual(["format/parse", "leak/email"]);
  });

  test("leaks are found in folder notes and SVG assets too", () => {
    const svg = "general/cmake/failed-find-package-stays-cached.assets/plot.svg";
    const findings = lint({
      [LESSON]: GOOD.replace("The next configure found the library.", "![plot](failed-find-package-stays-cached.assets/plot.svg)"),
      [svg]: "<svg><text>/home/jdoe/plot</text></svg>",
      "general/cmake/README.md": "# CMake\n\nNotes live in /home/jdoe/cmake-notes.\n",
    });
    expect(findings.map((f) => [f.path, f.rule, f.line])).toEqual([
      ["general/cmake/README.md", "leak/path", 3],
      [svg, "leak/path", 1],
    ]);
  });
});

describe("size", () => {
  test("size/lesson-lines warns above 150 lines", () => {
    const long = (n: number) => GOOD.replace("The next configure found the library.", Array.from({ length: n }, (_, i) => `Line ${i}.`).join("\n"));
    const lines = (t: string) => t.split("\n").length - 1;
    const over = long(150 - lines(GOOD) + 2);
    expect(lines(over)).toBe(151);
    expect(byRule(lint({ [LESSON]: over }), "size/lesson-lines")).toEqual([expect.objectContaining({ severity: "warning" })]);
    expect(byRule(lint({ [LESSON]: long(150 - lines(GOOD) + 1) }), "size/lesson-lines")).toEqual([]);
  });
});

describe("overrides and only", () => {
  test("overrides replace and delete files without touching the disk", () => {
    const root = kb({ [LESSON]: GOOD, "general/cmake/copy.md": GOOD });
    expect(byRule(lintKb(root, { env: ENV }), "format/duplicate-id")).toHaveLength(2);
    const overrides = new Map<string, string | null>([
      ["general/cmake/copy.md", null],
      ["general/git/new.md", GOOD.replace("schema: 1", "schema: 3").replace("0a1b2c3d4e", "abcdefabcd")],
    ]);
    const findings = lintKb(root, { overrides, env: ENV });
    // new.md is a copy of the lesson: a near-duplicate, however few lessons the knowledge base holds.
    expect(findings.map((f) => [f.path, f.rule])).toEqual([
      [LESSON, "content/near-duplicate"],
      ["general/git/new.md", "format/schema"],
    ]);
    expect(readFileSync(join(root, "general/cmake/copy.md"), "utf8")).toBe(GOOD);
  });

  test("only limits per-file rules to the given paths, while duplicate ids are still found across the tree", () => {
    const root = kb({ [LESSON]: GOOD.replace("schema: 1", "schema: 9"), "general/git/other.md": GOOD.replace("tags:\n  - cmake", "tags:\n  - Git") });
    const findings = lintKb(root, { only: [LESSON], env: ENV });
    expect(findings.map((f) => [f.path, f.rule])).toEqual([
      [LESSON, "content/near-duplicate"],
      [LESSON, "format/schema"],
      [LESSON, "format/duplicate-id"],
      ["general/git/other.md", "format/duplicate-id"],
    ]);
  });
});

describe("lintStaged", () => {
  test("format/checked-by-hand: a staged lesson that newly says `verified_how: checked`; not when HEAD said it already", async () => {
    const box = sandbox("rkb-lint-staged");
    const git = (...args: string[]) => {
      const r = Bun.spawnSync(["git", ...args], { cwd: box.kb, env: box.env });
      if (r.exitCode !== 0) throw new Error(r.stderr.toString());
    };
    writeFile(join(box.kb, "kb.toml"), DEFAULT_KB_TOML);
    writeFile(join(box.kb, LESSON), GOOD);
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "--no-verify", "-m", "init");
    const checked = GOOD.replace("verified_how: ran", "verified_how: checked");
    writeFile(join(box.kb, LESSON), checked);
    git("add", LESSON);
    const findings = await lintStaged(box.kb, { ...box.env, ...ENV });
    expect(findings).toEqual([expect.objectContaining({ path: LESSON, line: 7, rule: "format/checked-by-hand", severity: "error" })]);
    expect(findings[0]!.message).toContain("the Rust rkb's `rkb verify`");
    git("commit", "-q", "--no-verify", "-m", "checked");
    writeFile(join(box.kb, LESSON), checked.replace("The next configure found the library.", "The next configure found zlib."));
    git("add", LESSON);
    expect(await lintStaged(box.kb, { ...box.env, ...ENV })).toEqual([]);
    // A whole-tree lint does not judge how the value came to be.
    expect(lintKb(box.kb, { env: ENV })).toEqual([]);
  });

  test("lints the index, not the working tree, and per-file rules only for staged files", async () => {
    const box = sandbox("rkb-lint-staged");
    const root = box.kb;
    const git = (...args: string[]) => {
      const r = Bun.spawnSync(["git", ...args], { cwd: root, env: box.env });
      if (r.exitCode !== 0) throw new Error(r.stderr.toString());
    };
    writeFile(join(root, "kb.toml"), DEFAULT_KB_TOML);
    writeFile(join(root, "general/git/committed.md"), GOOD.replace("0a1b2c3d4e", "1111111111").replace("schema: 1", "schema: 5"));
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "--no-verify", "-m", "init");
    writeFile(join(root, LESSON), GOOD.replace("type: pitfall", "type: gotcha"));
    git("add", LESSON);
    writeFile(join(root, LESSON), GOOD);
    const findings = await lintStaged(root, { ...box.env, ...ENV });
    expect(findings.map((f) => [f.path, f.rule])).toEqual([[LESSON, "format/parse"]]);
  });
});
