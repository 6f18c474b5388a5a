// The curation commands on real git knowledge bases with the compiled binary: dupes (and the same
// measure in add and lint), review, log and changes, move/rename/label.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, kbFromFixture, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

/** A pitfall lesson about the vtable link error, worded a little differently from the fixture's. */
const VTABLE_AGAIN = `---
type: pitfall
verified_how: ran
tags:
  - cpp
  - linker
---

# Undefined reference to vtable: a virtual member function is never defined

## Symptom
The link fails with \`undefined reference to 'vtable for Decoder'\`.

## Cause
A virtual member function of the class is declared but has no definition, so no object file emits the vtable.

## Fix
Define every declared virtual function, or make it pure with \`= 0\`, and link the file that defines them.

## Evidence
Defining the missing \`Decoder::reset()\` fixed the link.
`;

function fixtureKb(name: string): Sandbox {
  const box = sandbox(name);
  kbFromFixture(box);
  return box;
}

describe("rkb dupes", () => {
  test("a lesson added in another folder that says the same is named by add, lint and dupes", async () => {
    const box = fixtureKb("rkb-dupes");
    const added = await rkb(["add", "--topic", "linking", "--format", "json"], { env: box.env, stdin: VTABLE_AGAIN });
    expect(added.exit).toBe(0);
    const result = added.json();
    expect(result.path).toStartWith("general/linking/");
    expect(result.notes.join("\n")).toContain('looks like 3c0ffee002 "undefined reference to vtable means a virtual function has no definition" (general/cpp/missing-vtable.md');

    const dupes = await rkb(["dupes", "--format", "json"], { env: box.env });
    expect(dupes.exit).toBe(0);
    const data = dupes.json();
    expect(data.min_similarity).toBe(0.4);
    expect(data.pairs).toHaveLength(1);
    const [pair] = data.pairs;
    expect(pair.similarity).toBeGreaterThanOrEqual(0.4);
    expect(pair.similarity).toBeLessThanOrEqual(1);
    expect(pair.a.path).toBe("general/cpp/missing-vtable.md");
    expect(pair.b.id).toBe(result.id);

    // A threshold above the pair's similarity hides it; kb.toml sets the default.
    const strict = (await rkb(["dupes", "--min-similarity", "0.99", "--format", "json"], { env: box.env })).json();
    expect(strict.pairs).toEqual([]);
    const human = await rkb(["dupes", "--min-similarity", "0.99"], { env: box.env });
    expect(human.stdout).toContain("No likely duplicates at 0.99");
    writeFile(join(box.kb, "kb.toml"), readFileSync(join(box.kb, "kb.toml"), "utf8") + "\n[dupes]\nmin_similarity = 0.99\n");
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json()).toMatchObject({ min_similarity: 0.99, pairs: [] });
    writeFile(join(box.kb, "kb.toml"), readFileSync(join(box.kb, "kb.toml"), "utf8").replace("min_similarity = 0.99", "min_similarity = 0.4"));

    const lint = (await rkb(["lint", "--format", "json"], { env: box.env })).json();
    const near = lint.findings.filter((f: any) => f.rule === "content/near-duplicate");
    expect(near).toHaveLength(1);
    expect(near[0]).toMatchObject({ path: "general/cpp/missing-vtable.md", severity: "warning" });
    expect(near[0].message).toContain(result.id);
    expect(near[0].message).toContain(result.path);
  });

  test("an exact copy of an existing lesson is refused, not saved under another name", async () => {
    const box = fixtureKb("rkb-dupes-exact");
    const fixture = readFileSync(join(box.kb, "general/cpp/missing-vtable.md"), "utf8");
    const copy = fixture.replace(/^schema: 1\n|^id: .*\n|^status: .*\n/gm, "");
    const r = await rkb(["add", "--topic", "cpp", "--format", "json"], { env: box.env, stdin: copy });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("refused");
    expect(r.json().error.message).toContain("3c0ffee002");
    expect(existsSync(join(box.kb, "general/cpp/undefined-reference-to-vtable-means-a-virtual-function-has-no-definition-2.md"))).toBe(false);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });

  test("unrelated lessons are not pairs; archived lessons are not compared", async () => {
    const box = fixtureKb("rkb-dupes-none");
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json().pairs).toEqual([]);
    const added = (await rkb(["add", "--topic", "linking", "--format", "json"], { env: box.env, stdin: VTABLE_AGAIN })).json();
    expect((await rkb(["archive", added.id, "--reason", "duplicate", "--format", "json"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["dupes", "--format", "json"], { env: box.env })).json().pairs).toEqual([]);
  });
});
