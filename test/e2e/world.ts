// What the end-to-end tests give every agent: the lesson in the knowledge base, and stand-ins for
// real tools on the agent's PATH.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hookErrorsSince } from "../../cli/machine/state.ts";
import { rkb, sandbox, type Sandbox, withPrograms } from "../helpers.ts";

export const FAILING_CMAKE = "cmake -S . -B build";
export const FIXED_CMAKE = "ZLIB_ROOT=/opt/zlib cmake -S . -B build";
export const UNRELATED_FAILURE = "gizmo --frobnicate";

export const LESSON = `---
type: pitfall
verified_how: ran
tags:
  - cmake
  - zlib
---

# CMake cannot find ZLIB unless ZLIB_ROOT is set

## Symptom
CMake stops with \`CMake Error at CMakeLists.txt:4 (find_package)\` and \`Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\`.

## Cause
zlib is installed under /opt/zlib, outside the paths CMake searches by default.

## Fix
Run cmake with \`ZLIB_ROOT=/opt/zlib\` in the environment.

## Evidence
\`ZLIB_ROOT=/opt/zlib cmake -S . -B build\` then printed \`Found ZLIB\`.
`;

/** The lesson an agent records with rkb_add in the tests (the gizmo failure no lesson covers yet). */
export const GIZMO_LESSON = {
  type: "pitfall",
  title: "gizmo frobnicate overheats until the sprocket cache is warmed",
  topic: "gizmo",
  symptom: "`gizmo --frobnicate` fails with `the flux capacitor overheated while frobnicating sprockets`.",
  cause: "The sprocket cache is cold after a reboot.",
  fix: "Run `gizmo --warm-sprockets` first.",
  evidence: "After `gizmo --warm-sprockets` the frobnicate run passed.",
};

// Stand-ins for real tools, on the agent's PATH: cmake fails the way a missing zlib makes it fail
// until ZLIB_ROOT is set; gizmo fails with an error no lesson is about.
export const FAKE_CMAKE = `#!/bin/sh
if [ -z "$ZLIB_ROOT" ]; then
  echo "-- The C compiler identification is GNU 12.2.0"
  echo "CMake Error at CMakeLists.txt:4 (find_package):" >&2
  echo "  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)" >&2
  exit 1
fi
echo "-- Found ZLIB: $ZLIB_ROOT/lib/libz.so"
`;
export const FAKE_GIZMO = `#!/bin/sh
echo "gizmo: the flux capacitor overheated while frobnicating sprockets" >&2
exit 4
`;

/** A sandbox with the stand-ins on PATH, a project folder, and a knowledge base holding LESSON. */
export async function lessonWorld(name: string) {
  const box = sandbox(name);
  const env = withPrograms(box, { cmake: FAKE_CMAKE, gizmo: FAKE_GIZMO });
  const proj = join(box.dir, "zlibapp");
  mkdirSync(proj);
  // The git identity in ~/.gitconfig too, where users have it: Gemini CLI starts MCP servers without
  // variables whose names look like secrets, GIT_AUTHOR_* among them ("AUTH").
  writeFileSync(join(box.home, ".gitconfig"), "[user]\n\tname = Test\n\temail = test@example.invalid\n");
  if ((await rkb(["init"], { env })).exit !== 0) throw new Error("rkb init failed");
  const added = await rkb(["add", "--topic", "cmake", "--format", "json"], { env, stdin: LESSON });
  if (added.exit !== 0) throw new Error(`rkb add failed: ${added.stderr}`);
  return { box, env, proj, lessonId: added.json().id as string };
}

/** The inbox items rkb wrote in the sandbox, as text. */
export function inboxItems(box: Sandbox): string[] {
  const dir = join(box.home, ".local", "state", "rkb", "inbox");
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith(".md"))
        .map((n) => readFileSync(join(dir, n), "utf8"))
    : [];
}

/** Every hook error rkb logged, one line each ("" for none). */
export const hookErrors = (box: Sandbox) =>
  hookErrorsSince(box.env, 0)
    .map((e) => `${e.event}: ${e.error}`)
    .join("\n");

/** Waits until the probe gives a value (a detached capture writes after the agent exited). */
export async function until<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/**
 * What `rkb extract --dry-run` reads in session files an agent wrote, per file and in counts, as a
 * CI run over an archive reads them: with a state of its own (the machine's says where its capture
 * hooks got to).
 */
export async function extracted(env: Record<string, string>, path: string) {
  const state = mkdtempSync(join(tmpdir(), "rkb-extract-state-"));
  const run = await rkb(["extract", path, "--dry-run", "--format", "json"], { env: { ...env, XDG_STATE_HOME: state } });
  rmSync(state, { recursive: true, force: true });
  if (run.exit !== 0) throw new Error(`rkb extract failed: ${run.stderr}`);
  return run.json() as { files: { path: string; status: string; harness?: string; skipped_lines: number }[]; failed: number; fixed: number; sessions: number };
}

/** The files below `dir` that match `glob` (hidden folders included). */
export const filesBelow = (dir: string, glob: string) => [...new Bun.Glob(glob).scanSync({ cwd: dir, dot: true, absolute: true })];
