import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, sandbox } from "../test/helpers.ts";

// A knowledge base the Rust rkb wrote, imported into a fresh one with the compiled binary: every
// lesson comes in with its id, name and folder, in one commit, and the result lints clean.
const eval_kb = join(import.meta.dir, "../../shared/fixtures/rkb/eval/kb");

function lessonFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => p.endsWith(".md") && !p.endsWith("README.md")).sort();
}

describe.skipIf(!existsSync(eval_kb))("rkb import of the Rust eval knowledge base", () => {
  test("all 60 lessons are added with their ids, at their own paths, in one commit; lint finds no error", async () => {
    const box = sandbox("rkb-compat-import");
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const dry = (await rkb(["import", eval_kb, "--dry-run", "--format", "json"], { env: box.env })).json();
    expect(dry.added).toHaveLength(60);
    expect(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim()).toBe("1");
    const r = await rkb(["import", eval_kb, "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
    const d = r.json();
    expect({ added: d.added.length, noted: d.noted, skipped: d.skipped }).toEqual({ added: 60, noted: [], skipped: [] });
    const sources = lessonFiles(eval_kb);
    expect(sources).toHaveLength(60);
    // Same layout, same names: a Rust lesson's path and id are kept, byte for byte in its body.
    for (const a of d.added) {
      expect(a.path).toBe(a.source);
      const before = readFileSync(join(eval_kb, a.source), "utf8");
      expect(before).toContain(`id: ${a.id}`);
      const after = readFileSync(join(box.kb, a.path), "utf8");
      expect(after.slice(after.indexOf("\n# "))).toBe(before.slice(before.indexOf("\n# ")).replace(/\n?$/, "\n"));
    }
    expect(gitIn(box.kb, box.env, "log", "--format=%s").split("\n")[0]).toBe("import(kb): 60 lessons");
    const lint = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(lint.json().findings.filter((f: { severity: string }) => f.severity === "error")).toEqual([]);
    expect(lint.exit).toBe(0);
  });
});
