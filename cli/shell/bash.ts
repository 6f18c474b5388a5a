import { sha256Hex } from "../base/hash.ts";
import { maskSecrets } from "../text/secrets.ts";
import { parseShell, type Pipeline } from "./shell.ts";

// What a bash tool result says. Pure functions: the hooks, `eval --replay` and the failure query
// share them, so a failure looks the same wherever rkb meets it.

// Both trailers sit on the last line that is not blank; they are looked for there only, because a
// pattern with a leading `\n*` or a trailing `[^\n]*\s*$` retries from every position of a long
// output (quadratic time on a run of newlines or spaces).
const EXIT_TRAILER = /Command exited with code (-?\d+)$/;
const OMP_WALL_TIME = "Wall time: ";
// Claude Code, and the error text the extension hands to `hook tool-failed`, lead with this line.
const EXIT_LEADER = /^Exit code (-?\d+)[ \t]*(?:\n|$)/;

/** The text up to where its last non-blank line starts, and that line. */
function lastLine(text: string): { head: string; line: string } {
  const trimmed = text.trimEnd();
  const start = trimmed.lastIndexOf("\n") + 1;
  return { head: trimmed.slice(0, start), line: trimmed.slice(start) };
}

/**
 * Removes what the harness appended to a command's output: pi's trailing `Command exited with
 * code N`, omp's `Wall time: …` (before that line, or alone after a success), and the leading
 * `Exit code N` line of Claude Code results. Returns the exit code when one was stated.
 */
export function stripHarnessTrailer(text: string): { text: string; exitCode?: number } {
  let rest = text;
  let exitCode: number | undefined;
  const leader = EXIT_LEADER.exec(rest);
  if (leader) {
    exitCode = Number(leader[1]);
    rest = rest.slice(leader[0].length);
  }
  let last = lastLine(rest);
  const trailer = EXIT_TRAILER.exec(last.line);
  if (trailer) {
    exitCode = Number(trailer[1]);
    rest = last.head + last.line.slice(0, trailer.index);
    last = lastLine(rest);
  }
  const wall = last.line.indexOf(OMP_WALL_TIME);
  if (wall !== -1) rest = last.head + last.line.slice(0, wall);
  return exitCode === undefined ? { text: rest.trimEnd() } : { text: rest.trimEnd(), exitCode };
}

// ---- The program a command runs ----

/** Statements that prepare the shell for the real command (`cd sub && make`, `export A=1 && pytest`). */
const SETUP = new Set([
  "cd",
  "pushd",
  "popd",
  "export",
  "source",
  ".",
  "set",
  "unset",
  "alias",
  "shopt",
  "ulimit",
  "umask",
  "trap",
  "echo",
  "printf",
  "true",
  "false",
  ":",
  "exit",
  "sleep",
  "clear",
  "test",
  "[",
  "[[",
  "mkdir",
  "wait",
  "read",
  "local",
  "declare",
  "typeset",
]);
/** Pipeline stages that only pass on or trim what the real command printed (`make 2>&1 | tail`). */
const PIPE_FILTERS = new Set([
  "tail",
  "head",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "tee",
  "less",
  "more",
  "sort",
  "uniq",
  "wc",
  "cat",
  "cut",
  "tr",
  "column",
  "sed",
  "awk",
  "nl",
  "echo",
  "printf",
  "yes",
  "xargs",
]);
/** Shell words that open or close a construct; the command comes after them. */
const KEYWORDS = new Set(["!", "{", "}", "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "esac"]);
/** Programs whose versioned names run the same tool (`python3.11`, `pip3`, `gcc-12`). */
const VERSIONED = /^(python|pip|pypy|ruby|gem|node|perl|php|lua|gcc|g\+\+|clang|clang\+\+|java|go)-?\d+(?:\.\d+)*$/;

/**
 * How a wrapper runs its command: options that take a value, and how many words it needs before
 * the command (a subcommand like `uv run`, a duration like `timeout 10`).
 */
interface Wrapper {
  /** Words that must follow the wrapper's name for it to be a wrapper (`run` in `uv run`). */
  sub?: string[];
  /** Options that take the next word as their value. */
  valued?: string[];
  /** Plain words to skip before the command (timeout's duration). */
  operands?: number;
  /** `NAME=value` words before the command are settings (env). */
  assignments?: boolean;
}

// Maps, not objects: a program may be called `constructor` or `__proto__`.
const WRAPPERS = new Map<string, Wrapper>(
  Object.entries({
    sudo: { valued: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--chdir"] },
    doas: { valued: ["-u", "-C"] },
    env: { valued: ["-u", "-C", "-S", "--unset", "--chdir", "--split-string"], assignments: true },
    time: { valued: ["-f", "-o", "--format", "--output"] },
    nice: { valued: ["-n", "--adjustment"] },
    ionice: { valued: ["-c", "-n", "-p", "--class", "--classdata"] },
    nohup: {},
    exec: { valued: ["-a"] },
    command: {},
    builtin: {},
    setsid: {},
    stdbuf: { valued: ["-i", "-o", "-e"] },
    unbuffer: {},
    timeout: { valued: ["-s", "-k", "--signal", "--kill-after"], operands: 1 },
    "xvfb-run": { valued: ["-n", "-s", "-f", "-e", "-p", "--server-num", "--server-args", "--auth-file", "--error-file"] },
    npx: { valued: ["-p", "--package", "--node-options"] },
    pnpx: { valued: ["-p", "--package"] },
    bunx: { valued: ["-p", "--package"] },
    uvx: { valued: ["--from", "--with", "--python", "-p", "--index", "--index-url"] },
    uv: {
      sub: ["run"],
      valued: [
        "--with",
        "--with-requirements",
        "--python",
        "-p",
        "--project",
        "--directory",
        "--package",
        "--extra",
        "--group",
        "--env-file",
        "--index",
        "--index-url",
        "--from",
      ],
    },
    poetry: { sub: ["run"], valued: ["-C", "--directory", "-P", "--project"] },
    pipenv: { sub: ["run"] },
    pdm: { sub: ["run"], valued: ["-p", "--project"] },
    rye: { sub: ["run"] },
    pixi: { sub: ["run"], valued: ["-e", "--environment", "--manifest-path"] },
    hatch: { sub: ["run"] },
    conda: { sub: ["run"], valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
    mamba: { sub: ["run"], valued: ["-n", "--name", "-p", "--prefix"] },
    micromamba: { sub: ["run"], valued: ["-n", "--name", "-p", "--prefix"] },
    bundle: { sub: ["exec"] },
    npm: { sub: ["exec", "x"], valued: ["-p", "--package", "-w", "--workspace"] },
    pnpm: { sub: ["exec", "dlx"], valued: ["-C", "--dir", "--filter"] },
    yarn: { sub: ["exec", "dlx"] },
    bun: { sub: ["x"] },
    mise: { sub: ["exec", "x"] },
  }),
);

/**
 * The program a command runs: not its prefix but the command that does the work. Statements that
 * only prepare the shell (`cd`, `export`, assignments) and stages that only filter output
 * (`| tail`) are passed over; wrappers (`sudo`, `env`, `time`, `timeout 10`, `npx`, `uv run`,
 * `poetry run`, …) give way to the command they run; `python -m pytest` runs pytest; `bash -c '…'`
 * runs what its string runs. The name is bare: no directory, no version suffix (`python3` →
 * python). Of several statements the last one that does work counts (`pip install x && pytest`).
 */
export function program(command: string, depth = 0): string {
  return invocation(command, depth).program;
}

/** The program a command runs (see program) with the arguments it gets. */
export function invocation(command: string, depth = 0): { program: string; args: string[] } {
  // Masked before it is split into words: names land in signals, headings and hook records, and a
  // "program" can be a pasted token or a URL whose password a split would cut in two.
  const statements = parseShell(depth ? command : maskSecrets(command)).map((pipeline) => pipelineProgram(pipeline, depth));
  const named = statements.filter((p) => p.name);
  const working = named.filter((p) => !SETUP.has(p.name));
  const pick = working.filter((p) => !p.readOnly).at(-1) ?? working.at(-1) ?? named.at(-1);
  return { program: pick?.name ?? "", args: pick?.args ?? [] };
}

interface Run {
  name: string;
  /** The words from the program on: its arguments. */
  args: string[];
  readOnly: boolean;
}

function pipelineProgram(pipeline: Pipeline, depth: number): Run {
  const stages = pipeline.map((stage) => stageRun(stage.words, depth));
  return stages.find((s) => s.name && !PIPE_FILTERS.has(s.name)) ?? stages.find((s) => s.name) ?? { name: "", args: [], readOnly: true };
}

/** The program one simple command runs, with its arguments. */
function stageRun(words: string[], depth: number): Run {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    if (KEYWORDS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word)) {
      i++;
      continue;
    }
    if (word === "for" || word === "case" || word === "select" || word === "function") return { name: "", args: [], readOnly: true };
    const name = bareName(word);
    const wrapper = WRAPPERS.get(name);
    if (wrapper && (!wrapper.sub || wrapper.sub.includes(words[i + 1] ?? ""))) {
      const after = skipWrapper(words, i + 1 + (wrapper.sub ? 1 : 0), wrapper);
      // `command -v x` asks, `npx` alone prints help: the wrapper is the program then.
      if (after < words.length && !(name === "command" && /^-[vV]$/.test(words[i + 1] ?? ""))) {
        i = after;
        continue;
      }
    }
    const args = words.slice(i + 1);
    if (/^(?:python|pypy|py)$/.test(name)) {
      const module = pythonModule(args);
      if (module) return run(module, args.slice(args.indexOf(module) + 1));
    }
    if (/^(?:bash|sh|zsh|dash|ksh)$/.test(name)) {
      const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      if (c >= 0 && args[c + 1] !== undefined && depth < 3) return runOf(args[c + 1]!, depth + 1);
      const script = args.find((a) => !a.startsWith("-"));
      if (script) return run(bareName(script), args.slice(args.indexOf(script) + 1));
    }
    return run(name, args);
  }
  return { name: "", args: [], readOnly: true };
}

function runOf(command: string, depth: number): Run {
  const name = program(command, depth);
  return { name, args: [], readOnly: isReadOnly(command) };
}

function run(name: string, args: string[]): Run {
  return { name, args, readOnly: stageReadOnly(name, args) };
}

/** The index of the wrapped command's first word. */
function skipWrapper(words: string[], from: number, wrapper: Wrapper): number {
  let i = from;
  let operands = wrapper.operands ?? 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w === "--") return i + 1;
    if (w.startsWith("-") && w.length > 1) {
      i += wrapper.valued?.includes(w) ? 2 : 1;
      continue;
    }
    if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      i++;
      continue;
    }
    if (operands > 0) {
      operands--;
      i++;
      continue;
    }
    return i;
  }
  return i;
}

/** `python -X dev -m pytest` → pytest; undefined when python runs a script or `-c` code. */
function pythonModule(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-m") return args[i + 1] || undefined;
    if (/^-[A-Za-z]*m$/.test(a)) return args[i + 1] || undefined;
    if (a === "-W" || a === "-X") i++;
    else if (a === "-c" || !a.startsWith("-")) return undefined;
  }
  return undefined;
}

/** The word without quotes, directory, npm version (`tsc@5`) or version suffix (`python3`). */
function bareName(word: string): string {
  let w = word.replace(/^[('"{]+|[)'"};]+$/g, "");
  const slash = w.lastIndexOf("/");
  if (slash >= 0 && slash < w.length - 1) w = w.slice(slash + 1);
  w = w.replace(/(.)@[^@]*$/, "$1");
  const versioned = VERSIONED.exec(w);
  return versioned ? versioned[1]! : w;
}

// ---- Commands that change nothing ----

/** Programs that only look (at files, the system, the environment). */
const READERS = new Set([
  "ls",
  "ll",
  "la",
  "dir",
  "cat",
  "bat",
  "less",
  "more",
  "head",
  "tail",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "fd",
  "tree",
  "pwd",
  "echo",
  "printf",
  "which",
  "whereis",
  "type",
  "file",
  "stat",
  "wc",
  "du",
  "df",
  "printenv",
  "whoami",
  "id",
  "uname",
  "hostname",
  "date",
  "ps",
  "history",
  "man",
  "info",
  "diff",
  "cmp",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "realpath",
  "readlink",
  "basename",
  "dirname",
  "jq",
  "sort",
  "uniq",
  "cut",
  "tr",
  "awk",
  "column",
  "nl",
  "od",
  "xxd",
  "hexdump",
  "strings",
  "nm",
  "objdump",
  "readelf",
  "ldd",
  "lsof",
  "free",
  "uptime",
  "nproc",
  "lscpu",
  "lsb_release",
  "locale",
  "getent",
  "apt-cache",
  "true",
  ":",
  "test",
  "[",
  "[[",
  "sleep",
  "clear",
  "env",
  "command",
]);
/** Subcommands that only look, for programs that can also change things. */
const READING_SUBCOMMANDS = new Map<string, Set<string>>(
  Object.entries({
    git: new Set([
      "status",
      "diff",
      "log",
      "show",
      "blame",
      "rev-parse",
      "ls-files",
      "ls-tree",
      "ls-remote",
      "grep",
      "describe",
      "shortlog",
      "reflog",
      "cat-file",
      "whatchanged",
      "remote",
      "branch",
      "tag",
      "config",
    ]),
    pip: new Set(["list", "show", "freeze", "check", "search", "--version"]),
    npm: new Set(["ls", "list", "view", "info", "outdated", "why", "explain", "help", "--version"]),
    docker: new Set(["ps", "images", "logs", "inspect", "version", "info"]),
    kubectl: new Set(["get", "describe", "logs", "version", "explain"]),
    systemctl: new Set(["status", "is-active", "is-enabled", "list-units", "show"]),
    brew: new Set(["list", "info", "search", "--prefix", "config", "doctor"]),
    cargo: new Set(["tree", "metadata", "--version"]),
  }),
);
/** git subcommands above that change things when given more than a listing flag. */
const GIT_LISTING = new Set(["remote", "branch", "tag", "config"]);
const GIT_LISTING_FLAGS = new Set([
  "-v",
  "-vv",
  "--verbose",
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-l",
  "--list",
  "--get",
  "--get-all",
  "--show-origin",
  "--show-current",
]);
const ASK_VERSION = new Set(["--version", "-V", "--help", "-h", "version", "-version"]);

function stageReadOnly(name: string, args: string[]): boolean {
  if (args.length === 1 && ASK_VERSION.has(args[0]!)) return true;
  if (name === "find") return !args.some((a) => /^-(?:delete|exec|execdir|ok|okdir|fprint.*)$/.test(a));
  if (name === "sed") return !args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a));
  if (READERS.has(name)) return true;
  const reading = READING_SUBCOMMANDS.get(name);
  if (!reading) return false;
  if (name === "git") {
    const sub = gitSubcommand(args);
    if (!sub || !reading.has(sub.word)) return false;
    // `git branch` lists, `git branch -D x` deletes: listing subcommands read only with listing flags.
    return !GIT_LISTING.has(sub.word) || args.slice(sub.index + 1).every((a) => GIT_LISTING_FLAGS.has(a));
  }
  const sub = args.find((a) => !a.startsWith("-")) ?? args[0];
  return sub !== undefined && reading.has(sub);
}

/** git's subcommand, past `-C dir` and `-c key=value`. */
function gitSubcommand(args: string[]): { word: string; index: number } | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-C" || a === "-c") i++;
    else if (!a.startsWith("-")) return { word: a, index: i };
  }
  return undefined;
}

/**
 * True when a command only looks and changes nothing (`ls`, `git status`, `cd src && grep -r x`):
 * every stage reads, and no output goes to a file. A lone `cd` or `export` may change what the next
 * command does, so it is not read-only.
 */
export function isReadOnly(command: string): boolean {
  const stages = parseShell(command).flat();
  let reads = false;
  for (const stage of stages) {
    if (stage.writesFile) return false;
    const r = stageRun(stage.words, 0);
    if (!r.name) continue;
    if (r.name === "cd" || r.name === "pushd" || r.name === "popd") continue;
    if (!r.readOnly) return false;
    reads = true;
  }
  return reads;
}

// Words and phrases that say something went wrong, in the ways tools put it ("Can't operate",
// "Disk quota exceeded", "Address already in use", "is not recognized", "does not exist").
const KEY_LINE =
  /error|fatal|failed|not found|undefined|cannot|can't|could not|couldn't|unable to|no such|invalid|unknown|unrecognized|not recognized|unexpected|illegal|denied|refused|panicked|no matches|exceeded|timed out|already in use|not permitted|does not exist|doesn't exist|no space left|out of memory|segmentation fault|incompatible|unsupported/i;

// Lines that only report that the errors above happened: the linker's exit status, make's
// `*** … Error 1`, "could not compile … due to previous error", CMake's "errors occurred",
// TeX's "Emergency stop", "compilation terminated", nginx's "configuration file … test failed",
// Gradle's "Build failed with an exception". They say nothing about which failure it was.
const AFTERMATH =
  /returned \d+ exit status|due to (?:\d+ )?previous errors?|errors? occurred|emergency stop|compilation terminated|configuration file \S+ test failed|build failed with an exception/i;
// make's `*** … Error 1`, found from the first `***` (a `.*` between them retries from every `***`).
const MAKE_ERROR = /\bError \d+/;
const isAftermath = (line: string): boolean => {
  const stars = line.indexOf("***");
  return AFTERMATH.test(line) || (stars !== -1 && MAKE_ERROR.test(line.slice(stars + 3)));
};

/**
 * The lines of an error that say what went wrong, without the aftermath lines that only count
 * the errors (unless nothing else is left); when no line matches, the last three lines.
 */
export function keyErrorLines(errorText: string): string[] {
  const lines = errorText
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("Exit code "));
  const keys = lines.filter((l) => KEY_LINE.test(l));
  const specific = keys.filter((l) => !isAftermath(l));
  return specific.length ? specific : keys.length ? keys : lines.slice(-3);
}

/**
 * What differs between two runs of the same failure: paths, hex addresses and ids, and numbers.
 * The failure signature masks these; the failure query drops them as noise.
 */
const WORD = /\S+/g;
const VOLATILE = [/\b0x[0-9a-f]+\b/gi, /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, /\b\d+(?:[.:,]\d+)*\b/g];

/** `C:\Users\ana\build.ps1`, `.\build.ps1`, `obj\Debug\App.dll`: a drive or `.` before a backslash, or two backslashes (one, as in `bash\r`, is an escape). */
function isWindowsPath(word: string): boolean {
  const first = word.indexOf("\\");
  return first !== -1 && (/^\W?(?:[A-Za-z]:|\.{1,2})\\/.test(word) || word.indexOf("\\", first + 1) !== -1);
}

export function replaceVolatile(text: string, by: string): string {
  // A path is a word holding a `/`, or a Windows path (found word by word: `\S*\/\S*` retries from every character).
  const withoutPaths = text.replace(WORD, (w) => (w.includes("/") || isWindowsPath(w) ? by : w));
  return VOLATILE.reduce((t, pattern) => t.replace(pattern, by), withoutPaths);
}

/**
 * A stable fingerprint of a failure, so the same error met in another session is recognised:
 * the program and its key error lines with the volatile parts masked, hashed (24 hex chars).
 */
export function failureSignature(prog: string, errorText: string): string {
  const basis = prog + "\n" + replaceVolatile(keyErrorLines(errorText).join("\n"), "#");
  return sha256Hex(basis).slice(0, 24);
}

// ---- Whether a success answers a failure ----

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
export function task(command: string): string {
  const { program: name, args } = invocation(command);
  const family = preparing(name, args);
  return family && name ? `${name} ${family}` : name;
}
