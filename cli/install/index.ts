import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, sep } from "node:path";
import { writeAtomic } from "../base/fsutil.ts";
import type { Check } from "../doctor/doctor.ts";
import { RkbError } from "../base/errors.ts";
import { tildify } from "../machine/settings.ts";
import extensionSource from "./extension-text.js";
import { skillText } from "./skill.ts";

export { parseProblem };
import { claudePluginDir, claudePluginFiles } from "./claude.ts";
import { MARKER, removeEmptiedFolders } from "./pieces.ts";
import { filled, parseProblem } from "./source.ts";
import { installProgram, type Program, PROGRAM_NAMES, PROGRAMS, programCheck, programDir, uninstallProgram } from "./programs.ts";

// `rkb install pi|omp`: the extension file and the skill file, nothing else; `rkb install claude`:
// the plugin folder of claude.ts; `rkb install codex|gemini|opencode`: programs.ts. Every file carries a
// marker so that uninstall and doctor only ever touch what rkb wrote (the plugin's .mcp.json, JSON
// without a comment, is rkb's when its plugin.json is).

export const HARNESSES = ["pi", "omp", "claude", ...PROGRAMS] as const;
export type Harness = (typeof HARNESSES)[number];
type PiHarness = "pi" | "omp";

const isProgram = (h: Harness): h is Program => (PROGRAMS as readonly string[]).includes(h);

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

/** The harness's folder on this machine: where rkb looks for it (`rkb install` without a name, doctor) and writes into it. */
export function agentDir(harness: Harness, env: NodeJS.ProcessEnv): string {
  if (isProgram(harness)) return programDir(harness, env, home(env));
  return harness === "claude" ? join(home(env), ".claude") : join(home(env), harness === "pi" ? ".pi" : ".omp", "agent");
}

export function installedPaths(harness: PiHarness, env: NodeJS.ProcessEnv) {
  const dir = agentDir(harness, env);
  return { extension: join(dir, "extensions", "rkb.ts"), skill: join(dir, "skills", "rkb", "SKILL.md") };
}

/** Every file rkb writes for pi, omp or Claude Code, with its text. */
function wantedFiles(harness: Exclude<Harness, Program>, bin: string, env: NodeJS.ProcessEnv): { path: string; text: string }[] {
  if (harness === "claude") return claudePluginFiles(home(env), bin, marker(harness));
  const paths = installedPaths(harness, env);
  return [
    { path: paths.extension, text: extensionText(harness, bin) },
    { path: paths.skill, text: skillFile(harness) },
  ];
}

/** The path of the running rkb binary, or undefined when rkb runs from source (`bun cli/main.ts`). */
export function thisBinary(): string | undefined {
  return Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/") ? process.execPath : undefined;
}

function marker(harness: Harness): string {
  return `${MARKER} \`rkb install ${harness} --uninstall\` removes it. Do not edit: rkb install rewrites it.`;
}

/** The extension as installed: the source with the binary's path and the harness filled in. */
export function extensionText(harness: PiHarness, bin: string): string {
  return `// ${marker(harness)}\n` + filled(extensionSource, { __RKB_BIN__: bin, __RKB_HARNESS__: harness }, `the extension for ${harness}`);
}

export function skillFile(harness: PiHarness): string {
  return skillText(marker(harness));
}

const marked = (path: string) => existsSync(path) && readFileSync(path, "utf8").includes(MARKER);

function ours(path: string, env: NodeJS.ProcessEnv): boolean {
  const plugin = claudePluginDir(home(env));
  if (path === join(plugin, ".mcp.json")) return existsSync(path) && marked(join(plugin, ".claude-plugin", "plugin.json"));
  return marked(path);
}

export type FileAction = "written" | "unchanged" | "removed" | "absent" | "kept";

export interface InstallReport {
  harness: Harness;
  action: "install" | "uninstall";
  bin?: string;
  /** Each file written or removed; `entry` names rkb's part of a user's settings file. */
  files: { path: string; entry?: string; action: FileAction }[];
  /** Said when the harness is not set up on this machine: the files wait there for it. */
  note?: string;
}

/**
 * Whether the harness is set up here: its folder holds something rkb did not write. The folders an
 * earlier `rkb install` made for its own files do not count, so installing again on a machine
 * without pi still says so. A program's folder counts as it is (its settings files are the user's).
 */
function setUp(harness: Harness, env: NodeJS.ProcessEnv): boolean {
  if (isProgram(harness)) return existsSync(agentDir(harness, env));
  const ours = wantedFiles(harness, "rkb", env).map((f) => f.path);
  const holdsOthers = (folder: string): boolean => {
    try {
      return readdirSync(folder).some((name) => {
        const path = join(folder, name);
        if (ours.includes(path)) return false;
        return ours.some((o) => o.startsWith(path + sep)) ? holdsOthers(path) : true;
      });
    } catch {
      return false; // no folder
    }
  };
  return holdsOthers(agentDir(harness, env));
}

export function install(harness: Harness, bin: string, env: NodeJS.ProcessEnv): InstallReport {
  const dir = agentDir(harness, env);
  const name = isProgram(harness) ? PROGRAM_NAMES[harness] : harness === "claude" ? "Claude Code" : harness;
  const note = setUp(harness, env)
    ? undefined
    : `${name} is not set up on this machine (${tildify(dir)} ${existsSync(dir) ? "holds only rkb's files" : "did not exist"}); the files wait there for it, and \`rkb install ${harness} --uninstall\` removes them and the folders made for them`;
  if (isProgram(harness))
    return { harness, action: "install", bin, files: installProgram(harness, env, home(env), bin, marker(harness)), ...(note ? { note } : {}) };
  const wanted = wantedFiles(harness, bin, env);
  // Check every file before writing any, so a refusal leaves nothing half installed.
  for (const f of wanted) {
    if (existsSync(f.path) && !ours(f.path, env)) {
      throw new RkbError(
        "refused",
        `${tildify(f.path)} exists and was not written by rkb`,
        `move it away (rkb will not overwrite it), then run \`rkb install ${harness}\` again`,
      );
    }
  }
  const files = wanted.map((f) => {
    if (existsSync(f.path) && readFileSync(f.path, "utf8") === f.text) return { path: f.path, action: "unchanged" as const };
    writeAtomic(f.path, f.text);
    return { path: f.path, action: "written" as const };
  });
  return { harness, action: "install", bin, files, ...(note ? { note } : {}) };
}

export function uninstall(harness: Harness, env: NodeJS.ProcessEnv): InstallReport {
  if (isProgram(harness)) return { harness, action: "uninstall", files: uninstallProgram(harness, env, home(env), marker(harness)) };
  // The paths do not depend on the binary; any name serves to list them.
  const paths = wantedFiles(harness, "rkb", env).map((f) => f.path);
  // Decided before removing any: .mcp.json is rkb's only while plugin.json is there to say so.
  const owned = new Set(paths.filter((path) => ours(path, env)));
  const files = paths.map((path) => {
    if (!existsSync(path)) return { path, action: "absent" as const };
    if (!owned.has(path)) return { path, action: "kept" as const };
    rmSync(path);
    return { path, action: "removed" as const };
  });
  // The folders that held rkb's files go once they are empty, up to the harness's own folder in the
  // home (~/.omp, ~/.claude): a harness that is set up has other files there, which keep them.
  removeEmptiedFolders(paths, harness === "claude" ? agentDir(harness, env) : dirname(agentDir(harness, env)));
  return { harness, action: "uninstall", files };
}

/** For `rkb doctor`: whether the pi and omp extension and skill and the Claude Code plugin are installed, load, and are current. */
export function installChecks(env: NodeJS.ProcessEnv, bin: string | undefined = thisBinary()): Check[] {
  const checks: Check[] = [];
  for (const harness of ["pi", "omp"] as const) {
    const paths = installedPaths(harness, env);
    const fix = `rkb install ${harness}`;
    const present = existsSync(agentDir(harness, env));
    const check = (name: string, path: string, expected: string | undefined, extra?: (text: string) => Check | undefined): Check => {
      const label = `${name}: ${harness}`;
      const shown = tildify(path);
      if (!existsSync(path)) {
        return present
          ? { check: label, status: "warn", detail: `${harness} is set up but ${shown} is missing`, fix }
          : { check: label, status: "ok", detail: `${harness} not found (no ${tildify(agentDir(harness, env))}); nothing to install`, fix: "" };
      }
      const text = readFileSync(path, "utf8");
      if (!text.includes(MARKER)) return { check: label, status: "warn", detail: `${shown} was not written by rkb`, fix: `move it away, then run \`${fix}\`` };
      const problem = extra?.(text);
      if (problem) return problem;
      if (expected !== undefined && text !== expected) {
        return { check: label, status: "warn", detail: `${shown} differs from what this rkb writes (older rkb, or another binary)`, fix };
      }
      return { check: label, status: "ok", detail: `${shown} installed and current`, fix: "" };
    };
    checks.push(
      check("extension", paths.extension, bin ? extensionText(harness, bin) : undefined, (text) => {
        const problem = parseProblem(text);
        if (problem)
          return {
            check: `extension: ${harness}`,
            status: "fail",
            detail: `${tildify(paths.extension)} does not parse (${harness} will refuse to start): ${problem}`,
            fix,
          };
        const pointed = /^const RKB: string = ("(?:[^"\\]|\\.)*");$/m.exec(text);
        const target = pointed ? (JSON.parse(pointed[1]!) as string) : undefined;
        if (target && !existsSync(target)) {
          return { check: `extension: ${harness}`, status: "fail", detail: `${tildify(paths.extension)} runs ${target}, which does not exist`, fix };
        }
        return undefined;
      }),
    );
    checks.push(check("skill", paths.skill, skillFile(harness)));
  }
  checks.push(claudeCheck(env, bin));
  for (const program of PROGRAMS) checks.push(programCheck(program, env, home(env), bin, marker(program)));
  return checks;
}

function claudeCheck(env: NodeJS.ProcessEnv, bin: string | undefined): Check {
  const label = "plugin: claude";
  const fix = "rkb install claude";
  const dir = claudePluginDir(home(env));
  const files = wantedFiles("claude", bin ?? "rkb", env);
  const manifest = join(dir, ".claude-plugin", "plugin.json");
  if (!existsSync(manifest)) {
    return existsSync(agentDir("claude", env))
      ? { check: label, status: "warn", detail: `Claude Code is set up but ${tildify(dir)} is missing`, fix }
      : { check: label, status: "ok", detail: `Claude Code not found (no ${tildify(agentDir("claude", env))}); nothing to install`, fix: "" };
  }
  if (!ours(manifest, env)) return { check: label, status: "warn", detail: `${tildify(dir)} was not written by rkb`, fix: `move it away, then run \`${fix}\`` };
  const missing = files.filter((f) => !existsSync(f.path));
  if (missing.length) return { check: label, status: "warn", detail: `${tildify(dir)} lacks ${missing.map((f) => tildify(f.path)).join(", ")}`, fix };
  let target: unknown;
  try {
    target = (JSON.parse(readFileSync(join(dir, ".mcp.json"), "utf8")) as { mcpServers?: { rkb?: { command?: unknown } } }).mcpServers?.rkb?.command;
  } catch (e) {
    return { check: label, status: "fail", detail: `${tildify(join(dir, ".mcp.json"))} is not valid JSON: ${(e as Error).message}`, fix };
  }
  if (typeof target !== "string" || !existsSync(target)) {
    return { check: label, status: "fail", detail: `${tildify(dir)} runs ${String(target)}, which does not exist`, fix };
  }
  if (bin && files.some((f) => readFileSync(f.path, "utf8") !== f.text)) {
    return { check: label, status: "warn", detail: `${tildify(dir)} differs from what this rkb writes (older rkb, or another binary)`, fix };
  }
  return { check: label, status: "ok", detail: `${tildify(dir)} installed and current (Claude Code loads it as rkb@skills-dir)`, fix: "" };
}
