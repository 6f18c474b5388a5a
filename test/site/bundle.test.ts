import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ASSETS } from "../../cli/site/assets.ts";

// The site's code stays off every other command's path: markdown-it and the page modules are in
// chunks only `rkb serve` and `rkb site build` import, when they run. The pages' script holds the
// CLI's own ranking (bundled from search/rank.ts), not a copy.

describe("the site in the bundle", () => {
  test("no chunk the entry loads statically holds markdown-it or the site's pages", async () => {
    const out = mkdtempSync(join(tmpdir(), "rkb-site-bundle-"));
    try {
      const built = await Bun.build({ entrypoints: [join(import.meta.dir, "../../cli/main.ts")], outdir: out, target: "bun", format: "esm", splitting: true });
      expect(built.success).toBe(true);
      const chunks = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
      const withMarkdown = [...chunks].filter(([, text]) => text.includes("validateLink")).map(([f]) => f);
      expect(withMarkdown.length).toBeGreaterThan(0);
      // What main.js loads before any command runs: its static imports, and theirs.
      const loaded = new Set<string>();
      const visit = (file: string) => {
        if (loaded.has(file)) return;
        loaded.add(file);
        for (const m of chunks.get(file)!.matchAll(/(?:from|import)\s*"\.\/([^"]+)"/g)) visit(m[1]!);
      };
      visit("main.js");
      expect([...loaded].filter((f) => withMarkdown.includes(f) || chunks.get(f)!.includes("rkb-site-index"))).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("the pages' script is bundled from the CLI's ranking source", () => {
    // The tokenizer's stop words and the synonym groups as their modules write them, and the index format.
    expect(ASSETS.js).toContain("rkb-site-index 1");
    expect(ASSETS.js).toContain("hang hangs hung stuck freeze freezes frozen stall stalls unresponsive");
    expect(ASSETS.js).toContain("did do does doing don doesn didn down during");
    expect(ASSETS.js.length).toBeLessThan(60_000);
  });
});
