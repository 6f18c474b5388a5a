import { maskSecrets } from "../text/secrets.ts";
import { stageReadOnly } from "./read-only.ts";
import { parseShell, type Pipeline } from "./shell.ts";

// What a command runs: the program that does the work, past the statements that prepare the shell,
// the stages that filter its output and the launchers that run it (one table, LAUNCHERS), and
// whether the command only looks. Pure functions: the hooks, capture, `eval --replay` and the
// failure value share them.

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
 * A program that runs another command. A wrapper gives way to it (`sudo`, `env`, `timeout 10`,
 * `npx`, `uv run`): that command is the program. A remote launcher runs it somewhere else (a
 * container, a pod, another host): the launcher stays the program, and the command it runs is the
 * launched program, whose errors come back through it.
 */
interface Launcher {
  /**
   * Words that must come first for it to launch: right after a wrapper's name (`run` in `uv run`),
   * anywhere among a remote launcher's words before the command (`exec` in `docker compose exec`).
   */
  sub?: string[];
  /** Options that take the next word as their value. */
  valued?: string[];
  /** Plain words to skip before the command: timeout's duration, a container, an image, a host. */
  operands?: number;
  /** `NAME=value` words before the command are settings (env). */
  assignments?: boolean;
  /** Runs the command elsewhere (see above). */
  remote?: boolean;
  /** The remote command follows `--` (`kubectl exec pod -- psql`). */
  afterDashes?: boolean;
}

const CONTAINER: Launcher = {
  remote: true,
  sub: ["exec", "run"],
  operands: 1,
  valued: [
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "-v",
    "--volume",
    "--mount",
    "-p",
    "--publish",
    "--name",
    "--network",
    "--entrypoint",
    "-l",
    "--label",
    "--platform",
    "-f",
    "--file",
    "--project-name",
  ],
};
const IMAGE: Launcher = { remote: true, sub: ["exec"], operands: 1, valued: ["-B", "--bind", "--overlay", "-H", "--home", "--env", "--pwd"] };

// Maps, not objects: a program may be called `constructor` or `__proto__`.
const LAUNCHERS = new Map<string, Launcher>(
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
    docker: CONTAINER,
    podman: CONTAINER,
    apptainer: IMAGE,
    singularity: IMAGE,
    kubectl: { remote: true, afterDashes: true },
    ssh: {
      remote: true,
      operands: 1,
      valued: ["-i", "-p", "-l", "-o", "-J", "-F", "-L", "-R", "-D", "-W", "-b", "-c", "-E", "-e", "-m", "-O", "-Q", "-S", "-w", "-B"],
    },
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
export interface Invocation {
  program: string;
  args: string[];
}

/** `masked`: the command was masked already (capture masks every event first), so it is not masked again. */
export function invocation(command: string, depth = 0, masked = false): Invocation {
  // Masked before it is split into words: names land in signals, headings and hook records, and a
  // "program" can be a pasted token or a URL whose password a split would cut in two.
  const statements = parseShell(depth || masked ? command : maskSecrets(command)).map((pipeline) => pipelineProgram(pipeline, depth));
  const named = statements.filter((p) => p.name);
  const working = named.filter((p) => !SETUP.has(p.name));
  const pick = working.filter((p) => !p.readOnly).at(-1) ?? working.at(-1) ?? named.at(-1);
  return { program: pick?.name ?? "", args: pick?.args ?? [] };
}

/** The program a remote launcher runs elsewhere (`docker compose exec app systemctl status` → systemctl), or "". */
export function launchedProgram({ program: name, args }: Invocation): string {
  const launcher = LAUNCHERS.get(name);
  if (!launcher?.remote) return "";
  if (launcher.afterDashes) {
    const dashes = args.indexOf("--");
    return dashes < 0 ? "" : program(args.slice(dashes + 1).join(" "));
  }
  let sub = !launcher.sub;
  let operands = launcher.operands ?? 0;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith("-")) {
      if (launcher.valued?.includes(a)) i++;
    } else if (!sub) sub = launcher.sub!.includes(a);
    else if (operands > 0) operands--;
    else break;
  }
  // Its words joined and read again: a remote shell reads the command line (`ssh host 'cd x && make'`).
  return i < args.length ? program(args.slice(i).join(" ")) : "";
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
    const wrapper = LAUNCHERS.get(name);
    if (wrapper && !wrapper.remote && (!wrapper.sub || wrapper.sub.includes(words[i + 1] ?? ""))) {
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
function skipWrapper(words: string[], from: number, wrapper: Launcher): number {
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

/**
 * A pipeline's exit status is its last stage's: `npm test 2>&1 | tail -20` exits 0 whatever npm
 * did. True when the command's last pipeline runs a program that is neither a filter nor read-only
 * with only filters after it: then what it printed alone can say that it failed.
 */
export function statusHiddenByPipe(command: string): boolean {
  const last = parseShell(command).at(-1);
  if (!last || last.length < 2) return false;
  const runs = last.map((stage) => stageRun(stage.words, 0));
  const real = runs.findIndex((r) => r.name && !PIPE_FILTERS.has(r.name));
  return real !== -1 && real < runs.length - 1 && !runs[real]!.readOnly && runs.slice(real + 1).every((r) => PIPE_FILTERS.has(r.name));
}

/** A word that names files or a folder: a path with a `/` or a name with an extension, a glob too; no option, URL or script. */
const PATH_WORD = /^(?!-)(?![a-z][\w+.-]*:\/\/)[^\s|;&<>'"$`]*(?:\/[^\s|;&<>'"$`]*|\.[A-Za-z]\w{0,5})$/;
/** Editors that rewrite files in place when asked (`sed -i`, `perl -pi -e`, `ruby -i`). */
const IN_PLACE_EDITORS = new Set(["sed", "gsed", "perl", "ruby"]);

/**
 * The files a command edits in place (`sed -i '' 's|a|b|g' src/*.ts`): the paths and globs of each
 * stage that runs an editor with its in-place option. A move or a copy changes no file's text.
 */
export function editedInPlace(command: string): string[] {
  return parseShell(command)
    .flat()
    .flatMap((stage) => {
      const r = stageRun(stage.words, 0);
      if (!IN_PLACE_EDITORS.has(r.name) || !r.args.some((a) => /^-[a-z]*i|^--in-place\b/.test(a))) return [];
      return r.args.filter((w) => PATH_WORD.test(w));
    });
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
