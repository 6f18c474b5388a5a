import type { Invocation } from "./program.ts";

// Whether a success answers a failure: the task a command does, so that `npm ci` after a failed
// `npm test` is a step of the fix, `pytest` after a failed `python -m pytest` is the success, and
// `npm run build` after a failed `npm run check` is neither.

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

/** True when a command prepares for the real work: installs, updates, fetches, cleans, configures (`npm install x`, `apt-get update`). */
export function prepares({ program: name, args }: Invocation): boolean {
  return preparing(name, args) !== undefined;
}

/** Build tools whose subcommands overlap (`cargo test` builds too): their real work is one task. */
const BUILD_TOOLS = new Set(["cargo", "go", "dotnet", "swift", "zig", "mix", "stack", "cabal", "gradle", "gradlew", "mvn", "sbt", "bazel"]);
/** Package managers that run a project's scripts: `npm run check` and `npm run build` are two tasks. */
const SCRIPT_RUNNERS = new Set(["npm", "yarn", "pnpm", "bun"]);
/** Interpreters: the script they run is the task (`node a.mjs` is not `node b.mjs`; `-e` code is its own). */
const INTERPRETERS = new Set(["node", "deno", "tsx", "ts-node", "python", "pypy", "ruby", "perl", "php", "lua", "Rscript", "julia"]);

/**
 * The task a command does: what a later success must run to answer its failure. The program's
 * real work for build tools (`pytest -q` and `python -m pytest -q`, `cargo build` and `cargo test`
 * are one task); the program and its subcommand, script or target otherwise (`git push`, `npm run
 * check`, `node count.mjs`, `make install`); or the program and a preparing family (`npm ci` and
 * `npm install` are `npm install`; `apt-get update` is `apt-get update`). A preparing step after
 * the real work failed (`cargo add serde` after `cargo build`) is part of the fix, not the success.
 */
export function taskOf({ program: name, args }: Invocation): string {
  if (!name) return name;
  const family = preparing(name, args);
  if (family) return `${name} ${family}`;
  if (BUILD_TOOLS.has(name)) return name;
  const first = firstOperand(args);
  if (INTERPRETERS.has(name)) return first === undefined ? `${name} ${args.find((a) => a.startsWith("-")) ?? ""}`.trim() : `${name} ${first}`;
  if (SCRIPT_RUNNERS.has(name) && (first === "run" || first === "run-script"))
    return `${name} run ${firstOperand(args.slice(args.indexOf(first) + 1)) ?? ""}`.trim();
  // A subcommand or a target is a word; a path, a file or a pattern is an argument to the same task.
  return first !== undefined && /^[a-z][a-z0-9:_-]*$/.test(first) ? `${name} ${SCRIPT_RUNNERS.has(name) ? "run " : ""}${first}` : name;
}

/**
 * The first argument that is no option: past the common valued globals and options that carry
 * their value (`-j4`, `--foo=bar`) or take none (`--verbose`). A bare short option (`-e`, `-h`)
 * may take the next word as its value, so nothing after it is taken for a subcommand.
 */
function firstOperand(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (VALUED_GLOBALS.has(a)) i++;
    else if (/^-[A-Za-z]$/.test(a)) return undefined;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}
