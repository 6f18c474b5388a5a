// `rkb install codex|gemini|opencode` and their doctor checks: each program's pieces (install/codex.ts,
// gemini.ts, opencode.ts) installed, removed and checked alike (install/pieces.ts).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import type { Check } from "../doctor/doctor.ts";
import { configHome, tildify } from "../machine/settings.ts";
import { codexDir, codexPieces, codexTarget, codexUntrusted } from "./codex.ts";
import { geminiExtensionDir, geminiHome, geminiPieces, geminiTarget } from "./gemini.ts";
import { opencodeConfigFile, opencodeDir, opencodePieces, opencodeTarget } from "./opencode.ts";
import { installPieces, type OwnedEntry, type Piece, type PieceReport, piecesProblem, readPiece, removeEmptiedFolders, uninstallPieces } from "./pieces.ts";

export const PROGRAMS = ["codex", "gemini", "opencode"] as const;
export type Program = (typeof PROGRAMS)[number];

export const PROGRAM_NAMES: Record<Program, string> = { codex: "Codex CLI", gemini: "Gemini CLI", opencode: "opencode" };

/** The folder whose presence says the program is set up on this machine. */
export function programDir(program: Program, env: NodeJS.ProcessEnv, home: string): string {
  if (program === "codex") return codexDir(env, home);
  if (program === "gemini") return geminiHome(env, home);
  return opencodeDir(configHome(env));
}

export function programPieces(program: Program, env: NodeJS.ProcessEnv, home: string, bin: string, marker: string): Piece[] {
  if (program === "codex") return codexPieces(env, home, bin, marker);
  if (program === "gemini") return geminiPieces(env, home, bin, marker);
  return opencodePieces(configHome(env), bin, marker);
}

export function installProgram(program: Program, env: NodeJS.ProcessEnv, home: string, bin: string, marker: string): PieceReport[] {
  return installPieces(programPieces(program, env, home, bin, marker), program);
}

export function uninstallProgram(program: Program, env: NodeJS.ProcessEnv, home: string, marker: string): PieceReport[] {
  // The paths do not depend on the binary; any name serves to list them.
  const reports = uninstallPieces(programPieces(program, env, home, "rkb", marker), program);
  // The folders left empty go too, the program's own folder included: rkb made them for its files,
  // or they held nothing anyway.
  const removed = reports.filter((r) => r.action === "removed" && !r.entry).map((r) => r.path);
  removeEmptiedFolders(removed, programDir(program, env, home));
  return reports;
}

/** Whether any piece of rkb's is in the program's settings. */
export function programInstalled(program: Program, env: NodeJS.ProcessEnv, home: string): boolean {
  return installedIn(programPieces(program, env, home, "rkb", ""));
}

const installedIn = (pieces: Piece[]) =>
  pieces.some((p) => {
    const text = readPiece(p.path);
    return text !== undefined && (p.kind === "file" || entryIn(p, text));
  });

/** Whether rkb's entry is in the file; a file that does not parse may hold it (doctor's check names the file). */
function entryIn(p: OwnedEntry, text: string): boolean {
  try {
    return p.state(text) !== "absent";
  } catch (e) {
    if (e instanceof RkbError) return true;
    throw e;
  }
}

/**
 * Doctor: whether the program's pieces are installed, rkb's and current, and run a binary that
 * exists. A settings file that does not parse is this check's failure, not doctor's: the other
 * checks still run.
 */
export function programCheck(program: Program, env: NodeJS.ProcessEnv, home: string, bin: string | undefined, marker: string): Check {
  try {
    return checkProgram(program, env, home, bin, marker);
  } catch (e) {
    if (!(e instanceof RkbError)) throw e;
    return { check: `install: ${program}`, status: "fail", detail: e.message, fix: e.fix };
  }
}

function checkProgram(program: Program, env: NodeJS.ProcessEnv, home: string, bin: string | undefined, marker: string): Check {
  const label = `install: ${program}`;
  const fix = `rkb install ${program}`;
  const pieces = programPieces(program, env, home, bin ?? "rkb", marker);
  const dir = programDir(program, env, home);
  if (!installedIn(pieces)) {
    return existsSync(dir)
      ? { check: label, status: "warn", detail: `${PROGRAM_NAMES[program]} is set up (${tildify(dir)}) but rkb is not installed in it`, fix }
      : { check: label, status: "ok", detail: `${PROGRAM_NAMES[program]} not found (no ${tildify(dir)}); nothing to install`, fix: "" };
  }
  const problem = piecesProblem(pieces, bin !== undefined);
  if (problem) return { check: label, status: "warn", detail: problem.detail, fix: problem.foreign ? `move it away, then run \`${fix}\`` : fix };
  const target = installedTarget(program, env, home);
  if (!target || !existsSync(target))
    return { check: label, status: "fail", detail: `${PROGRAM_NAMES[program]}'s rkb MCP server runs ${target}, which does not exist`, fix };
  if (program === "codex") {
    const untrusted = codexUntrusted(env, home);
    if (untrusted.length)
      return {
        check: label,
        status: "warn",
        detail: `Codex has not trusted ${untrusted.length} of rkb's hooks (${untrusted.join(", ")}); it runs only trusted hooks`,
        fix: "start codex and trust rkb's hooks when it asks (or under /hooks)",
      };
  }
  return { check: label, status: "ok", detail: `installed and current (${tildify(mainFile(program, env, home))})`, fix: "" };
}

/** The file that names the binary: the program's settings (Codex, opencode) or the extension's manifest. */
function mainFile(program: Program, env: NodeJS.ProcessEnv, home: string): string {
  if (program === "codex") return join(codexDir(env, home), "config.toml");
  if (program === "gemini") return join(geminiExtensionDir(env, home), "gemini-extension.json");
  return opencodeConfigFile(configHome(env));
}

function installedTarget(program: Program, env: NodeJS.ProcessEnv, home: string): string | undefined {
  const path = mainFile(program, env, home);
  const text = readPiece(path);
  if (text === undefined) return undefined;
  return program === "codex" ? codexTarget(text) : program === "gemini" ? geminiTarget(text) : opencodeTarget(text);
}
