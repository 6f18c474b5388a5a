import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const BIN = process.env.RKB_BIN ?? join(ROOT, "dist", "rkb");

export interface Sandbox {
  dir: string;
  home: string;
  kb: string;
  env: Record<string, string>;
}

const sandboxes: string[] = [];

/** One test run makes hundreds of sandboxes; test/setup.ts removes them after the last test. */
export function removeSandboxes(): void {
  for (const dir of sandboxes.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A throwaway HOME with its own XDG folders and git identity; RKB_HOME points inside it. Removed when the run ends. */
export function sandbox(name = "rkb-test", parent = tmpdir()): Sandbox {
  const dir = mkdtempSync(join(parent, name + "-"));
  sandboxes.push(dir);
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  const kb = join(dir, "kb");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    RKB_HOME: kb,
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
  return { dir, home, kb, env };
}

/** A copy of a sandbox (knowledge base, state, home) in a new folder: the same calls in both give the same results but for random ids and times. */
export function twin(box: Sandbox): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "rkb-twin-"));
  sandboxes.push(dir);
  cpSync(box.dir, dir, { recursive: true });
  const env = Object.fromEntries(Object.entries(box.env).map(([k, v]) => [k, v.startsWith(box.dir) ? dir + v.slice(box.dir.length) : v]));
  return { dir, home: join(dir, "home"), kb: join(dir, "kb"), env };
}

/**
 * Data from two twin sandboxes made comparable: their folders, hex ids and hashes (numbered in order
 * of appearance), and clock times are replaced by placeholders.
 */
export function comparable(data: unknown, box: Sandbox): unknown {
  const seen = new Map<string, string>();
  const text = JSON.stringify(data)
    .replaceAll(box.dir, "<dir>")
    .replace(/"time":\d+/g, '"time":0')
    // Not after ":": a long JSON number is not an id.
    .replace(/(?<!:)\b[0-9a-f]{7,40}\b/g, (hex) => seen.get(hex) ?? (seen.set(hex, `<hex${seen.size + 1}>`), `<hex${seen.size}>`))
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
  return JSON.parse(text);
}

export interface Run {
  stdout: string;
  stderr: string;
  exit: number;
  json: () => any;
}

/** Runs the compiled binary. */
export async function rkb(args: string[], opts: { env: Record<string, string>; stdin?: string; cwd?: string }): Promise<Run> {
  const proc = Bun.spawn([BIN, ...args], {
    env: opts.env,
    cwd: opts.cwd ?? opts.env.HOME,
    stdin: opts.stdin !== undefined ? new Blob([opts.stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exit, json: () => JSON.parse(stdout) };
}

export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Copies a fixture knowledge base into the sandbox's RKB_HOME and commits it as a git repository. */
export function kbFromFixture(box: Sandbox, fixture = "kb"): void {
  const { cpSync } = require("node:fs") as typeof import("node:fs");
  cpSync(join(ROOT, "test", "fixtures", fixture), box.kb, { recursive: true });
  const git = (...args: string[]) => {
    const p = Bun.spawnSync(["git", ...args], { cwd: box.kb, env: box.env });
    if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr}`);
    return p.stdout.toString();
  };
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "fixture");
}

/** The sandbox's environment with these scripts (name → text) as programs first on PATH, in `<box>/bin`. */
export function withPrograms(box: Sandbox, programs: Record<string, string>): Record<string, string> {
  const bin = join(box.dir, "bin");
  mkdirSync(bin, { recursive: true });
  for (const [name, text] of Object.entries(programs)) writeFileSync(join(bin, name), text, { mode: 0o755 });
  return { ...box.env, PATH: `${bin}:${box.env.PATH}` };
}

/** A seeded generator of numbers in [0, 1) (xorshift32), so a failing case can be made again from its seed. */
export function seededRandom(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

export function gitIn(dir: string, env: Record<string, string>, ...args: string[]): string {
  const p = Bun.spawnSync(["git", ...args], { cwd: dir, env });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr}`);
  return p.stdout.toString();
}

/** A cmake failure to find ZLIB and its fix, under any title (a new user adds it again with the title changed). */
export const zlibPitfall = (title: string) => `---
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

/** A git describe failure in a shallow CI checkout, under any title: with two titles, a pair for dupes. */
export const shallowTagsPitfall = (title: string) => `---
type: pitfall
verified_how: ran
tags:
  - git
---

# ${title}

## Symptom
\`fatal: No names found, cannot describe anything.\` from \`git describe --tags\` in CI.

## Cause
The CI checkout is shallow and fetches no tags.

## Fix
Fetch with \`fetch-depth: 0\`.

## Evidence
\`git fetch --tags --unshallow\` then \`git describe --tags\` printed \`v1.2.0\`.
`;

/** The pitfall the hook tests inject. */
export const ZLIB_PITFALL = zlibPitfall("CMake cannot find ZLIB unless ZLIB_ROOT is set");

/** A fact lesson with this title, for tests that only need some valid lesson to write. */
export const factLesson = (title: string) => `---
type: fact
verified_how: read
---

# ${title}

## Statement
Something that holds.

## Evidence
Read in the manual.
`;

/** The rows a real opencode 1.18.33 run wrote for one session, with the tables' own schema. */
export interface RecordedOpencode {
  schema: Record<"session" | "message" | "part", string>;
  session: Record<string, unknown>[];
  message: Record<string, unknown>[];
  part: Record<string, unknown>[];
}

export const recordedOpencode = (): RecordedOpencode =>
  JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "opencode", "opencode-1.18.33-mcp-cmake.json"), "utf8"));

export function insertRow(store: import("bun:sqlite").Database, table: string, row: Record<string, unknown>): void {
  const keys = Object.keys(row);
  store.query(`INSERT INTO ${table} (${keys.join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`).run(...(Object.values(row) as never[]));
}

/** opencode's store at `path`, holding the recorded session (as opencode keeps it: WAL). */
export function opencodeStore(path: string): void {
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const recorded = recordedOpencode();
  const store = new Database(path);
  store.exec("PRAGMA journal_mode = WAL");
  for (const table of ["session", "message", "part"] as const) store.exec(recorded.schema[table]);
  for (const table of ["session", "message", "part"] as const) for (const row of recorded[table]) insertRow(store, table, row);
  store.close();
}
