import { homedir } from "node:os";
import { join, resolve } from "node:path";

// Where rkb keeps things. The knowledge base is synced by git; state, cache and config are per machine.

function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

export function kbRoot(env = process.env): string {
  return resolve(expandHome(env.RKB_HOME || "~/Personal/kb"));
}

function xdg(name: string, fallback: string, env: NodeJS.ProcessEnv): string {
  const base = env[name];
  return join(base && base.startsWith("/") ? base : join(homedir(), fallback), "rkb");
}

export const stateDir = (env = process.env) => xdg("XDG_STATE_HOME", ".local/state", env);
export const cacheDir = (env = process.env) => xdg("XDG_CACHE_HOME", ".cache", env);
export const configDir = (env = process.env) => xdg("XDG_CONFIG_HOME", ".config", env);

/** Shows a path under the home folder as `~/…` (for output that may be shared). */
export function tildify(path: string): string {
  const home = homedir();
  return path === home ? "~" : path.startsWith(home + "/") ? "~" + path.slice(home.length) : path;
}
