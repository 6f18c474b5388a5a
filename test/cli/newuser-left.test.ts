// What the new-user pass of issue 22 saw and left: each on the compiled binary, with a real git
// knowledge base. Near-duplicates in a knowledge base of two or three lessons.
import { describe, expect, test } from "bun:test";
import { rkb, sandbox, type Sandbox } from "../helpers.ts";

async function kb(): Promise<Sandbox> {
  const box = sandbox("rkb-left");
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  return box;
}

/** One zlib pitfall under any title: what a new user adds again with the title changed. */
const zlibPitfall = (title: string) => `---
type: pitfall
verified_how: ran
tags:
  - cmake
---

# ${title}

## Symptom
CMake stops with \`Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\`.

## Cause
zlib lives under /opt/zlib, which CMake does not search.

## Fix
Set \`ZLIB_ROOT=/opt/zlib\`.

## Evidence
\`ZLIB_ROOT=/opt/zlib cmake -S . -B build\` printed \`Found ZLIB\`.
`;

const TITLES = ["CMake cannot find ZLIB unless ZLIB_ROOT is set", "CMake misses zlib without ZLIB_ROOT", "Set ZLIB_ROOT so CMake finds zlib"];

describe("near-duplicates in a small knowledge base", () => {
  test("the same lesson added again with another title is named by add, dupes and lint from the second lesson on", async () => {
    const box = await kb();
    const first = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: zlibPitfall(TITLES[0]!) });
    expect(first.exit).toBe(0);
    const second = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: zlibPitfall(TITLES[1]!) });
    expect(second.exit).toBe(0);
    expect(second.json().notes.join("\n")).toContain(`looks like ${first.json().id}`);
    const two = (await rkb(["dupes", "--format", "json"], { env: box.env })).json();
    expect(two.pairs.map((p: any) => [p.a.id, p.b.id].sort())).toEqual([[first.json().id, second.json().id].sort()]);

    const third = await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: zlibPitfall(TITLES[2]!) });
    expect(third.exit).toBe(0);
    expect(third.stdout).toContain(`looks like ${first.json().id}`);
    expect(third.stdout).toContain(`looks like ${second.json().id}`);
    const dupes = await rkb(["dupes"], { env: box.env });
    expect(dupes.stdout).toContain("3 pairs");
    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    expect(lint.findings.filter((f: any) => f.rule === "content/near-duplicate")).toHaveLength(3);
  });

  test("two lessons on different subjects in a small knowledge base are no pair", async () => {
    const box = await kb();
    expect((await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: zlibPitfall(TITLES[0]!) })).exit).toBe(0);
    const other = `---
type: pitfall
verified_how: ran
tags:
  - git
---

# git describe fails in a shallow CI checkout

## Symptom
\`fatal: No names found, cannot describe anything.\` from \`git describe --tags\` in CI.

## Cause
The CI checkout is shallow and fetches no tags.

## Fix
Fetch with \`fetch-depth: 0\`.

## Evidence
\`git fetch --tags --unshallow\` then \`git describe --tags\` printed \`v1.2.0\`.
`;
    const added = await rkb(["add", "--topic", "git", "--format", "json"], { env: box.env, stdin: other });
    expect(added.exit).toBe(0);
    expect(added.json().notes.join("\n")).not.toContain("looks like");
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json().pairs).toEqual([]);
  });
});
