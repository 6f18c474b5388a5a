import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { RkbError } from "../base/errors.ts";
import { folderNameLike, isFolderName } from "../base/folder-name.ts";
import { keyLine, parseToml, TomlError, valueText } from "../base/toml.ts";

// Every setting rkb takes from outside the knowledge base, read in one place: the environment
// variables, `<config>/config.toml` (the user's settings) and `<state>/checkouts.toml` (which
// checkouts belong to which project). DEVELOPERS.md lists them all. The knowledge base's own
// settings (kb.toml, synced with it) are in lesson/config.ts.

// ---- Where things live ----

// node:os is loaded only when it is needed (a host name, a home folder without $HOME): loading it
// costs every rkb process ~0.4 ms, and a warm search adds only ~5 ms to the stat walk it needs.
const os = (): typeof import("node:os") => require("node:os");

/** The user's home folder: $HOME, as node's homedir() reads it, else the password database's. */
const homedir = () => process.env.HOME || os().homedir();

function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

/** RKB_HOME, `~` expanded; default ~/Personal/kb (the Rust rkb's). */
export function kbRoot(env = process.env): string {
  return resolve(expandHome(env.RKB_HOME || "~/Personal/kb"));
}

/** An XDG base folder: the variable when it holds an absolute path, else its default under the home folder. */
function xdgBase(name: string, fallback: string, env: NodeJS.ProcessEnv): string {
  const base = env[name];
  return base?.startsWith("/") ? base : join(homedir(), fallback);
}

const xdg = (name: string, fallback: string, env: NodeJS.ProcessEnv) => join(xdgBase(name, fallback, env), "rkb");

/** Per machine, never synced: the inbox and the state database. */
export const stateDir = (env = process.env) => xdg("XDG_STATE_HOME", ".local/state", env);
/** Safe to delete: the search index. */
export const cacheDir = (env = process.env) => xdg("XDG_CACHE_HOME", ".cache", env);
/** The user's settings (config.toml) and this machine's id. */
export const configDir = (env = process.env) => xdg("XDG_CONFIG_HOME", ".config", env);
/** The base of every program's settings folder ($XDG_CONFIG_HOME, else ~/.config): opencode's is in it. */
export const configHome = (env = process.env) => xdgBase("XDG_CONFIG_HOME", ".config", env);

/** Shows a path under the home folder as `~/…` (for output that may be shared). */
export function tildify(path: string): string {
  const home = homedir();
  return path === home ? "~" : path.startsWith(home + "/") ? "~" + path.slice(home.length) : path;
}

// ---- What the environment says ----

/**
 * Who calls: a person's command line or an agent's tool call, under which harness, in which
 * session. Built once where a call comes in (dispatch, `rkb tool`, `rkb mcp`, `rkb hook`) and
 * handed to the handlers, which never read it back from the environment.
 */
export interface Caller {
  /** A command line, or an agent's tool call (errors name fields the way the caller wrote them). */
  origin: "cli" | "tool";
  /** The agent harness (pi, omp, claude-code), if rkb runs under one. */
  harness?: string;
  /** The agent session the call comes from, if it is known. */
  sessionId?: string;
}

/**
 * The caller as the environment and the entry point say: Claude Code sets CLAUDECODE=1 (it wins),
 * else the harness the entry point names, else RKB_HARNESS (the extension sets it for every rkb it
 * starts). The session: sessionIdOf.
 */
export function callerFrom(env: NodeJS.ProcessEnv, given: { origin: Caller["origin"]; harness?: string; sessionId?: string; sessionFile?: string }): Caller {
  const harness = env.CLAUDECODE === "1" ? "claude-code" : given.harness || env.RKB_HARNESS || undefined;
  const sessionId = sessionIdOf(given.sessionId, given.sessionFile, env);
  return { origin: given.origin, ...(harness ? { harness } : {}), ...(sessionId ? { sessionId } : {}) };
}

/**
 * The one derivation of a session id: the id given, else its file's name (pi and omp name session
 * files `<time>_<session id>.jsonl`), else what the harness puts in the environment (when given).
 */
export function sessionIdOf(given: string | undefined, file: string | undefined, env?: NodeJS.ProcessEnv): string | undefined {
  const fromFile = file ? basename(file, ".jsonl").split("_").pop() : undefined;
  return given || fromFile || (env && (env.RKB_SESSION || env.PI_SESSION_ID || env.CLAUDE_CODE_SESSION_ID)) || undefined;
}

/** An agent's call: a tool call, or rkb run under an agent harness (through its shell tool, say). */
export function isAgent(caller: Caller): boolean {
  return caller.origin === "tool" || caller.harness !== undefined;
}

/** RKB_PROJECT and RKB_SYSTEM: the place, when a flag does not name it. */
export const projectFromEnv = (env: NodeJS.ProcessEnv) => env.RKB_PROJECT || undefined;
export const systemFromEnv = (env: NodeJS.ProcessEnv) => env.RKB_SYSTEM || undefined;

/** RKB_FORMAT: the output format when no flag names one. */
export const formatFromEnv = (env: NodeJS.ProcessEnv) => env.RKB_FORMAT || undefined;

/** RKB_DEBUG: print the stack of an unexpected error to stderr. */
export const debugFromEnv = (env: NodeJS.ProcessEnv) => Boolean(env.RKB_DEBUG);

/** RKB_STDIN_TIMEOUT: seconds a command waits on a pipe that sends nothing before it gives up (default 30). */
export function stdinTimeoutMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env.RKB_STDIN_TIMEOUT);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 30_000;
}

/** The system's host name. */
export const systemHostname = () => os().hostname();

/** RKB_HOSTNAME, else the system's: what system notes' `hostname` globs match. */
export const hostFromEnv = (env: NodeJS.ProcessEnv) => env.RKB_HOSTNAME || systemHostname();

/**
 * The variables above that say where the knowledge base and rkb's folders are and where rkb runs,
 * and git's identity, which rkb's commits take: what a harness that starts `rkb mcp` with a filtered
 * environment (Codex CLI) must be told to pass on.
 */
export const FORWARDED_ENV = [
  "RKB_HOME",
  "RKB_PROJECT",
  "RKB_SYSTEM",
  "RKB_HOSTNAME",
  "RKB_DEBUG",
  "XDG_STATE_HOME",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
] as const;

// ---- Files ----

/** A TOML file of the user's, parsed, with its text; undefined when it does not exist; an error naming the line when broken. */
function readToml(path: string): { data: Record<string, unknown>; text: string } | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, "utf8");
  try {
    return { data: parseToml(text), text };
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    throw new RkbError("config", `${path}:${e.line} is not valid TOML: ${e.message}`, `fix that line, or remove ${tildify(path)}`);
  }
}

/** `path` or `path:line` where a key of a user's TOML file is set. */
function at(path: string, text: string, key: string[]): string {
  const line = keyLine(text, key);
  return line ? `${path}:${line}` : path;
}

/** `<config>/config.toml`: the user's settings. Every key it may hold is here. */
export interface UserConfig {
  /** `[hooks] stop_nudge = true`: ask the agent once to record a lesson when a session showed one. */
  stopNudge: boolean;
}

export function userConfig(env: NodeJS.ProcessEnv): UserConfig {
  const path = join(configDir(env), "config.toml");
  const { data: raw, text } = readToml(path) ?? { data: {}, text: "" };
  const hooks = raw.hooks;
  const stopNudge = hooks && typeof hooks === "object" ? (hooks as Record<string, unknown>).stop_nudge : undefined;
  if (stopNudge !== undefined && typeof stopNudge !== "boolean") {
    throw new RkbError(
      "config",
      `${at(path, text, ["hooks", "stop_nudge"])}: \`[hooks] stop_nudge\` must be true or false, not ${valueText(stopNudge)}`,
      `write \`stop_nudge = true\` (or false) under [hooks] in ${tildify(path)}`,
    );
  }
  return { stopNudge: stopNudge === true };
}

/**
 * `<state>/checkouts.toml`: `project = ["/path/of/a/checkout", …]`, the checkouts of each project on
 * this machine, for checkouts no remote or root commit places (the Rust rkb records them here; a
 * person may add one by hand). Entries that are not lists of strings are ignored.
 */
export function checkouts(env: NodeJS.ProcessEnv): Map<string, string[]> {
  const path = join(stateDir(env), "checkouts.toml");
  const { data: raw, text } = readToml(path) ?? { data: {}, text: "" };
  const out = new Map<string, string[]>();
  for (const [project, paths] of Object.entries(raw)) {
    if (!Array.isArray(paths)) continue;
    // A project is named by its folder under projects/, here as on the command line (place/place.ts).
    if (!isFolderName(project))
      throw new RkbError(
        "config",
        `${at(path, text, [project])}: \`${project}\` is not a project's folder name`,
        `name the project as its folder under projects/ (lowercase letters, digits and single dashes, e.g. \`${folderNameLike(project) || "my-project"}\`) in ${tildify(path)}`,
      );
    out.set(
      project,
      paths.filter((p): p is string => typeof p === "string"),
    );
  }
  return out;
}
