import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { catBlobs, gitOrThrow } from "../base/git.ts";
import { classify, walkFiles } from "../lesson/layout.ts";

// What lint reads: the files on disk with a write's prospective changes laid over them, or the
// files staged in git's index (the pre-commit hook).

/** The files being linted, wherever they come from. */
export interface Tree {
  /** Every non-hidden file, relative and sorted. */
  files: string[];
  text(rel: string): string;
  size(rel: string): number;
  /** Whether a file or folder exists at rel (hidden ones included). */
  exists(rel: string): boolean;
}

/** One file on disk as a tree, without walking the rest of the knowledge base. */
export function fileTree(root: string, rel: string): Tree {
  return {
    files: [rel],
    text: (r) => readFileSync(join(root, r), "utf8"),
    size: (r) => statSync(join(root, r)).size,
    exists: (r) => existsSync(join(root, r)),
  };
}

export function diskTree(root: string, overrides: Map<string, string | Uint8Array | null>): Tree {
  const files = new Set(walkFiles(root));
  const folders = new Set<string>();
  for (const [rel, text] of overrides) {
    if (text === null) files.delete(rel);
    else files.add(rel);
  }
  for (const rel of files) for (let i = rel.indexOf("/"); i !== -1; i = rel.indexOf("/", i + 1)) folders.add(rel.slice(0, i));
  return {
    files: [...files].filter((rel) => !rel.split("/").some(hiddenPart)).sort(),
    text: (rel) => {
      const content = overrides.get(rel);
      if (content instanceof Uint8Array) return Buffer.from(content).toString("utf8");
      return content ?? readFileSync(join(root, rel), "utf8");
    },
    size: (rel) => {
      const content = overrides.get(rel);
      if (content instanceof Uint8Array) return content.length;
      return typeof content === "string" ? Buffer.byteLength(content) : statSync(join(root, rel)).size;
    },
    exists: (rel) => files.has(rel) || folders.has(rel) || (!overrides.has(rel) && existsSync(join(root, rel))),
  };
}

const hiddenPart = (part: string) => part.startsWith(".") || part === "node_modules";

/** The git index at root as a tree: every staged blob this lint reads is fetched in one `git cat-file --batch`. */
export function indexTree(root: string, env: NodeJS.ProcessEnv): Tree {
  const entries = gitOrThrow(root, ["ls-files", "-s", "-z"], { env })
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const [meta, path] = entry.split("\t") as [string, string];
      const [mode, oid, stage] = meta.split(" ");
      return { mode: mode!, oid: oid!, stage: stage!, path };
    })
    .filter((e) => e.stage === "0");
  const all = new Set(entries.map((e) => e.path));
  const folders = new Set<string>();
  for (const rel of all) for (let i = rel.indexOf("/"); i !== -1; i = rel.indexOf("/", i + 1)) folders.add(rel.slice(0, i));
  const files = entries.filter((e) => !e.path.split("/").some(hiddenPart) && (e.mode === "100644" || e.mode === "100755"));
  const wanted = files.filter((e) => classify(e.path) !== "other");
  const blobs = catBlobs(
    root,
    env,
    wanted.map((e) => e.oid),
  );
  const contents = new Map(wanted.map((e, i) => [e.path, blobs[i]!]));
  const blob = (rel: string) => {
    const content = contents.get(rel);
    if (!content) throw new Error(`${rel} is not staged`);
    return content;
  };
  return {
    files: files.map((e) => e.path).sort(),
    text: (rel) => blob(rel).toString("utf8"),
    size: (rel) => blob(rel).length,
    exists: (rel) => all.has(rel) || folders.has(rel),
  };
}
