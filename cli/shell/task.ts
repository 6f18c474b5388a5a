import type { Invocation } from "./program.ts";
import { parseShell } from "./shell.ts";

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
  // Build tools' housekeeping: `go mod tidy`, `mix deps.get`, `mix local.hex --force`.
  mod: "update",
  "deps.get": "install",
  "deps.update": "update",
  "local.hex": "install",
  "local.rebar": "install",
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
  "mix",
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

/** A subcommand or a target is a word; a path, a file or a pattern is an argument to the same task. */
const SUBCOMMAND = /^[a-z][a-z0-9:_-]*$/;
/**
 * A build tool's checks that its build and test runs do not do (`go vet`, `cargo clippy`, `gradle
 * checkstyleMain`, `mix format`): each is a task of its own, so a passing `go test` answers no `go vet`.
 */
const LINT_TASK = /^(?:vet|clippy|fmt|format|lint|credo|dialyzer|checkstyle\w*|spotless\w*|ktlint\w*|detekt\w*|pmd\w*|spotbugs\w*)$/i;
/** Build tools whose subcommands overlap (`cargo test` builds too): their real work is one task. */
const BUILD_TOOLS = new Set(["cargo", "go", "dotnet", "swift", "zig", "mix", "stack", "cabal", "gradle", "gradlew", "mvn", "sbt", "bazel"]);
/**
 * The subcommands that do a build tool's real work, where they are a known few: any other
 * (`cargo tree`, `cargo sqlx prepare`, `go env`) is a task of its own, which answers no failed
 * build. Tools whose tasks or goals are the project's own names (gradle, mvn, sbt, bazel) are
 * not listed: each of their runs is the build.
 */
const BUILDS: Record<string, Set<string>> = {
  cargo: new Set(["build", "b", "check", "c", "test", "t", "run", "r", "bench", "nextest", "llvm-cov", "miri", "doc", "rustc"]),
  go: new Set(["build", "test", "run", "install", "generate"]),
  dotnet: new Set(["build", "test", "run", "publish", "pack", "watch", "msbuild"]),
  swift: new Set(["build", "test", "run"]),
  zig: new Set(["build", "test", "run"]),
  mix: new Set(["compile", "test", "run"]),
  stack: new Set(["build", "test", "run", "exec", "install"]),
  cabal: new Set(["build", "test", "run", "exec", "install", "v2-build", "new-build"]),
};
/**
 * Programs whose subcommands are groups of their own (`docker buildx build`, `gh pr create`, `aws
 * s3 cp`): the task is the group and its subcommand, so `docker buildx ls` answers no failed
 * `docker buildx build`. `true`: every subcommand is a group.
 */
const GROUPS: Record<string, Set<string> | true> = {
  docker: new Set([
    "buildx",
    "compose",
    "image",
    "container",
    "network",
    "volume",
    "system",
    "context",
    "builder",
    "manifest",
    "plugin",
    "trust",
    "swarm",
    "stack",
    "service",
  ]),
  podman: new Set(["image", "container", "network", "volume", "system", "machine", "pod", "manifest", "compose"]),
  git: new Set(["remote", "submodule", "worktree", "lfs", "notes", "bisect"]),
  kubectl: new Set(["config", "rollout", "auth"]),
  helm: new Set(["repo", "plugin", "dependency"]),
  terraform: new Set(["state", "workspace", "providers"]),
  brew: new Set(["services"]),
  gh: true,
  aws: true,
  gcloud: true,
  az: true,
};
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
  const first = firstOperand(args);
  if (BUILD_TOOLS.has(name)) return first !== undefined && (LINT_TASK.test(first) || BUILDS[name]?.has(first) === false) ? `${name} ${first}` : name;
  const group = GROUPS[name];
  if (first !== undefined && (group === true || group?.has(first))) {
    const sub = firstOperand(args.slice(args.indexOf(first) + 1));
    if (sub !== undefined && SUBCOMMAND.test(sub)) return `${name} ${first} ${sub}`;
  }
  if (INTERPRETERS.has(name)) {
    if (first === undefined) return `${name} ${args.find((a) => a.startsWith("-")) ?? ""}`.trim();
    // A script that takes subcommands (`php artisan test`, `python manage.py migrate`): the subcommand is the task.
    const sub = firstOperand(args.slice(args.indexOf(first) + 1));
    return sub !== undefined && SUBCOMMAND.test(sub) ? `${name} ${first} ${sub}` : `${name} ${first}`;
  }
  if (SCRIPT_RUNNERS.has(name) && (first === "run" || first === "run-script"))
    return `${name} run ${firstOperand(args.slice(args.indexOf(first) + 1)) ?? ""}`.trim();
  return first !== undefined && SUBCOMMAND.test(first) ? `${name} ${SCRIPT_RUNNERS.has(name) ? "run " : ""}${first}` : name;
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
    // A long option's value when it is no word a subcommand could be (`nix --extra-experimental-features 'nix-command flakes' build`).
    else if (a.startsWith("--") && !a.includes("=") && args[i + 1] !== undefined && !args[i + 1]!.startsWith("-") && !SUBCOMMAND.test(args[i + 1]!)) i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/**
 * Programs that build, type-check, lint or test code: compilers, type checkers, linters, formatters
 * and test runners. What they report about the agent's own files is its work in progress.
 */
const CHECKERS = new Set([
  "tsc",
  "vue-tsc",
  "eslint",
  "biome",
  "prettier",
  "stylelint",
  "jest",
  "vitest",
  "mocha",
  "ava",
  "playwright",
  "pytest",
  "mypy",
  "pyright",
  "ruff",
  "flake8",
  "pylint",
  "black",
  "isort",
  "rspec",
  "rubocop",
  "phpunit",
  "phpstan",
  "psalm",
  "golangci-lint",
  "staticcheck",
  "gofmt",
  "shellcheck",
  "hadolint",
  "swiftlint",
  "swiftformat",
  "xcodebuild",
  "javac",
  "kotlinc",
  "gcc",
  "g++",
  "cc",
  "c++",
  "clang",
  "clang++",
  "rustc",
  "swiftc",
  "ghc",
  "elixirc",
  "make",
  "ninja",
  "cmake",
  "ctest",
  "tflint",
  "yamllint",
]);
/** Subcommands, targets and script names that build, check or test (`build`, `test:unit`, `testDebugUnitTest`, `typecheck`, `dart analyze`). */
const CHECK_WORK =
  /^(?:build|compile|check|test|tests|spec|lint|typecheck|type-check|tsc|vet|clippy|fmt|format|verify|validate|assemble|package|analy[sz]e)(?:$|[:_-]|[A-Z])|^checkstyle/;
/** A build tool's subcommands that run or ship the program rather than build or check it. */
const RUNS_PROGRAM = new Set(["run", "exec", "start", "serve", "dev", "watch", "publish", "deploy", "release", "new", "init", "doc", "docs", "bench"]);

/**
 * True when a command builds, type-checks, lints or tests code (`tsc`, `cargo build`, `npm run lint`,
 * `php artisan test`, `terraform validate`), not when it runs a program or prepares (`node x.mjs`,
 * `cargo run`, `npm install`).
 */
export function isChecker(run: Invocation): boolean {
  const { program: name, args } = run;
  if (CHECKERS.has(name)) return true;
  if (prepares(run)) return false;
  const operands = args.filter((a) => !a.startsWith("-")).slice(0, 3);
  if (BUILD_TOOLS.has(name)) return operands[0] === undefined || !RUNS_PROGRAM.has(operands[0]);
  return args.includes("--test") || operands.some((w) => CHECK_WORK.test(w));
}

/** Formatters, by their program or subcommand (`gofmt`, `cargo fmt`, `ruff format`, `clang-format`, `prettier`, `black`). */
const FORMATTER = /^(?:[\w-]*fmt|[\w-]*format|prettier|black|isort|yapf|autopep8|stylua|dprint)$/;
/** The words that name what a command runs: its program and its first two words that are no option (`npx prettier`, `python -m black`, `dune build @fmt`). */
const namingWords = ({ program, args }: Invocation) => [
  program,
  ...args
    .filter((a) => !a.startsWith("-"))
    .slice(0, 2)
    .map((a) => a.replace(/^[@:]/, "")),
];

/** True when a command runs a formatter (`ruff format src`, `npm run format`): it changes how code is laid out, never what it does. */
export function formats(run: Invocation): boolean {
  return namingWords(run).some((w) => FORMATTER.test(w));
}

/** True when a command runs a formatter, a linter or a diff (`prettier`, `eslint`, `git diff`): what a check option asks of such a tool has an answer. */
export function formatsLintsOrDiffs(run: Invocation): boolean {
  return namingWords(run).some((w) => FORMATTER.test(w) || /lint|diff/.test(w));
}

/** The files a command renames (`mv a b`, `git mv a b`), as [from, to]. */
export function renames(command: string): [string, string][] {
  const out: [string, string][] = [];
  for (const stage of parseShell(command).flat()) {
    const w = stage.words;
    const at = w[0] === "mv" ? 1 : w[0] === "git" && w[1] === "mv" ? 2 : -1;
    if (at < 0) continue;
    const paths = w.slice(at).filter((a) => !a.startsWith("-"));
    if (paths.length === 2) out.push([paths[0]!, paths[1]!]);
  }
  return out;
}

/** The task after a rename: the renamed file's new name where the task named the old one. */
export function renamedTask(task: string, from: string, to: string): string {
  const plain = (p: string) => p.replace(/^(?:\.\/)+/, "");
  return task
    .split(" ")
    .map((w) => (plain(w) === plain(from) ? to : w))
    .join(" ");
}

/** The folder a command's leading `cd` moves to (`cd packages/tui && npm run build`), as written; undefined without one. */
function leadingFolder(command: string): string | undefined {
  const first = parseShell(command)[0];
  const words = first?.length === 1 ? first[0]!.words : [];
  return words[0] === "cd" && words.length === 2 ? words[1]!.replace(/\/+$/, "") : undefined;
}

/** False when both commands open with a `cd` to different folders: the same task in another package is another task. */
export function sameFolder(a: string, b: string): boolean {
  const [x, y] = [leadingFolder(a), leadingFolder(b)];
  return x === undefined || y === undefined || x === y;
}
