// The folders of cli/ in one downward order: a folder imports values only from the folders below it,
// never from one beside or above it, so each folder can be read knowing only what is under it.
// Type-only imports (`import type`, `{ type X }`) are allowed in any direction: they vanish when
// rkb is built and tie no module to another at run time. Dynamic imports count as value imports.
// The root files (main.ts, dispatch.ts, flags.ts: the command line) sit above every folder, and no
// folder imports them. No import needs an exception today; add none without a reason a reader accepts.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Top to bottom. A new folder goes where what it imports and what imports it allow. */
export const FOLDER_ORDER = [
  "commands", // one file per command, the command table, the inputs built with rkb
  "site", // the pages of rkb serve and rkb site build (only those two commands load it)
  "doctor", // rkb doctor
  "install", // the extension, skill and Claude Code plugin rkb install writes
  "agent", // hooks, the agent tools, the MCP server, the slash-command prompts
  "proposals", // rkb propose: candidates from archived sessions, the proposal branch, its record
  "write", // the one write engine: lock entry, journal, git index, burst, requests, confirm, sync, init
  "plan", // pure write plans
  "lint", // the tree's lint, leaks
  "search", // ranking and the decisions to inject, explain, eval, similarity
  "sessions", // session files read, their signals, capture and extract
  "inbox", // inbox items, drafts, the lesson an item becomes
  "kb", // the read model: store, the cached index, use records, history
  "lesson", // the lesson format
  "place", // projects, systems, `when`
  "shell", // what a command runs, what its output says
  "output", // rendering
  "machine", // per-machine settings and the state database
  "text", // tokenizer, stemmer, synonyms, secrets, edit distance
  "base", // errors, files, locks, hashes, globs, git
] as const;

const cli = resolve(import.meta.dir, "../cli");

/** The cli/-relative paths a module imports values from (Bun's scanner drops type-only imports). */
export function valueImports(file: string, source: string): { target: string; dynamic: boolean }[] {
  const transpiler = new Bun.Transpiler({ loader: file.endsWith(".js") ? "js" : "ts" });
  return transpiler
    .scanImports(source.replace(/^#!.*/, ""))
    .filter((i) => i.path.startsWith("."))
    .map((i) => ({ target: relative(cli, resolve(dirname(join(cli, file)), i.path)), dynamic: i.kind === "dynamic-import" }));
}

function sources(dir = cli): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [relative(cli, path)] : [];
  });
}

/** The folder a cli/ path is in, or undefined for a root file (and for a path outside cli/). */
const folderOf = (path: string) => (path.includes("/") && !path.startsWith("..") ? path.split("/")[0]! : undefined);

/** Every import that breaks the order, as `from → to (why)`. */
export function orderBreaks(files: Map<string, string>, order: readonly string[] = FOLDER_ORDER): string[] {
  const breaks: string[] = [];
  for (const [file, source] of files) {
    const from = folderOf(file);
    if (from === undefined) continue; // a root file: the top, it may import anything
    if (!order.includes(from)) breaks.push(`${file}: folder ${from}/ is not in FOLDER_ORDER`);
    for (const { target, dynamic } of valueImports(file, source)) {
      if (target.startsWith("..")) continue; // outside cli/ (package.json, the extension's text)
      const to = folderOf(target);
      const how = dynamic ? " (dynamic)" : "";
      if (to === undefined) breaks.push(`${file} → ${target}${how}: a folder imports a root file`);
      else if (to !== from && order.indexOf(to) <= order.indexOf(from)) breaks.push(`${file} → ${target}${how}: ${to}/ is not below ${from}/`);
    }
  }
  return breaks;
}

describe("the folders of cli/ import downward only", () => {
  const files = new Map(sources().map((f) => [f, readFileSync(join(cli, f), "utf8")]));

  test("no value import goes up or sideways between folders, and no folder imports a root file", () => {
    expect(orderBreaks(files)).toEqual([]);
  });

  test("every folder of cli/ has its place in the order, and every folder of the order exists", () => {
    const folders = new Set([...files.keys()].map(folderOf).filter((f) => f !== undefined));
    expect([...folders].sort()).toEqual([...FOLDER_ORDER].sort());
  });

  test("every scanned import names a file that exists (the scan reads what Bun reads)", () => {
    const missing = [...files].flatMap(([file, source]) =>
      valueImports(file, source)
        .filter(({ target }) => !existsSync(join(cli, target)))
        .map(({ target }) => `${file} → ${target}`),
    );
    expect(missing).toEqual([]);
  });

  test("modules load others by a literal name, so the scan sees every import", () => {
    // The one exception: the inputs macro loads each command of its own folder by its name.
    const computed = [...files]
      .filter(([file, source]) => file !== "commands/inputs.build.ts" && /(?<![\w$`])(?:import|require)\s*\(\s*[^"'\s)]/.test(source))
      .map(([file]) => file);
    expect(computed).toEqual([]);
  });

  test("the check catches an upward, a dynamic and a root import, and lets type-only and downward imports pass", () => {
    const sample = new Map([
      ["base/a.ts", `import { x } from "../lesson/lesson.ts";\nexport const y = x;`],
      ["plan/b.ts", `export const z = () => import("../write/write.ts");`],
      ["kb/c.ts", `import { runCli } from "../dispatch.ts";\nexport { runCli };`],
      [
        "text/d.ts",
        `import type { Lesson } from "../lesson/lesson.ts";\nimport { type Finding } from "../lesson/finding.ts";\nexport type T = [Lesson, Finding];`,
      ],
      ["lesson/e.ts", `import { RkbError } from "../base/errors.ts";\nimport { Lesson } from "./lesson.ts";\nexport { RkbError, Lesson };`],
      ["nowhere/f.ts", `export const f = 1;`],
    ]);
    expect(orderBreaks(sample)).toEqual([
      "base/a.ts → lesson/lesson.ts: lesson/ is not below base/",
      "plan/b.ts → write/write.ts (dynamic): write/ is not below plan/",
      "kb/c.ts → dispatch.ts: a folder imports a root file",
      "nowhere/f.ts: folder nowhere/ is not in FOLDER_ORDER",
    ]);
  });
});
