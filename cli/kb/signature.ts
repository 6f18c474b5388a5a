import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SCOPES } from "../lesson/schema.ts";

// The cache check of a warm search, in a module of its own: `scripts/bench-search.ts` compiles
// it alone as the floor a correct warm search cannot go below.

/**
 * A fingerprint of every lesson and folder note: path, size and modification time. Any added,
 * removed or changed file changes it. Every Markdown file is stat-ed (an edit in place changes no
 * folder's time), so this walk is kept to the bare system calls: it is most of a warm search.
 */
export function kbSignature(root: string): string {
  const names: string[] = [];
  const numbers: number[] = [];
  const visit = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name.charCodeAt(0) === 46 /* . */ || name.endsWith(".assets") || name === "node_modules") continue;
      const abs = dir + "/" + name;
      if (entry.isDirectory() || (entry.isSymbolicLink() && !name.endsWith(".md"))) visit(abs);
      else if (name.endsWith(".md")) {
        try {
          const st = statSync(abs);
          names.push(abs);
          numbers.push(st.size, st.mtimeMs);
        } catch {}
      }
    }
  };
  for (const scope of SCOPES) visit(join(root, scope));
  return Bun.hash(names.join("\n")).toString(16) + "-" + Bun.hash(new Float64Array(numbers)).toString(16);
}
