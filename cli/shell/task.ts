import type { Invocation } from "./program.ts";

// Whether a success answers a failure: the task a command does, so that `npm ci` after a failed
// `npm test` is a step of the fix and `pytest` after a failed `python -m pytest` is the success.

/**
 * Subcommands that prepare for the real work (install a dependency, update, fetch, clean, stash),
 * grouped by what they do: `npm ci` and `npm install` are one thing, `apt-get update` another.
 */
const PREPARING: Record<string, string> = {
  install: "install",
  i: "install",
  ci: "install",
  add: "install",
  get: "install",
  require: "install",
  reinstall: "install",
  update: "update",
  upgrade: "update",
  up: "update",
  sync: "update",
  lock: "update",
  fetch: "pull",
  pull: "pull",
  download: "pull",
  clone: "pull",
  remove: "remove",
  rm: "remove",
  uninstall: "remove",
  purge: "remove",
  clean: "clean",
  stash: "stash",
  config: "config",
  login: "login",
  init: "init",
  restore: "restore",
};

/** Programs driven by subcommands, where one subcommand can prepare for another (`make install` is a target, not that). */
const SUBCOMMAND_TOOLS = new Set([
  "npm",
  "yarn",
  "pnpm",
  "bun",
  "pip",
  "uv",
  "poetry",
  "pipenv",
  "pdm",
  "conda",
  "mamba",
  "micromamba",
  "cargo",
  "go",
  "gem",
  "bundle",
  "composer",
  "apt",
  "apt-get",
  "dnf",
  "yum",
  "zypper",
  "pacman",
  "brew",
  "git",
  "docker",
  "podman",
  "dotnet",
  "rustup",
  "helm",
  "terraform",
]);
/** Global options that take the next word (`git -C dir pull`, `npm --prefix x install`). */
const VALUED_GLOBALS = new Set([
  "-C",
  "-c",
  "--prefix",
  "--cwd",
  "--dir",
  "--directory",
  "-w",
  "--workspace",
  "--manifest-path",
  "-p",
  "--project",
  "-f",
  "--file",
]);

/** What a command of its program does: a preparing family, or undefined for the program's real work. */
function preparing(name: string, args: string[]): string | undefined {
  if (!SUBCOMMAND_TOOLS.has(name)) return undefined;
  for (let i = 0; i < args.length; i++) {
    if (VALUED_GLOBALS.has(args[i]!)) i++;
    else if (!args[i]!.startsWith("-")) return PREPARING[args[i]!];
  }
  return undefined;
}

/**
 * The task a command does: its program for the program's real work (`pytest -q` and `python -m
 * pytest -q` are one task), or the program and a preparing family (`npm ci` and `npm install` are
 * `npm install`; `apt-get update` is `apt-get update`). A success answers a failure of the same
 * task; a preparing step after the real work failed (`cargo add serde` after `cargo build`) is part
 * of the fix, not the success.
 */
export function taskOf({ program: name, args }: Invocation): string {
  const family = preparing(name, args);
  return family && name ? `${name} ${family}` : name;
}
