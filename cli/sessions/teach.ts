import { editedInPlace } from "../shell/program.ts";
import { boundedDistance } from "../text/distance.ts";

// What a draft pitfall is worth: the key lines it quotes (the error lines, each once, none of the
// source lines a checker quotes around them, none too long to read), whether it only shows the
// agent fixing code it was writing (a checker's diagnostics in a file the agent changed, fixed by
// changing it), and a rank for keeping the best few of a session.

/** A diagnostic line: one that opens with a file location (`src/a.ts(3,9): …`, `a.py:12:4: …`). */
const LEADING_LOCATION = /^(?:\.{0,2}\/)?((?:[\w@.~+-]+\/)*[\w@.+-]+\.[A-Za-z]\w{0,5})(?::\d+(?::\d+)?\b|\(\d+(?:,\d+)?\))/;
/**
 * A file location as checkers print it, in one word: `src/a.ts:3:9`, `a.ts(3,9)`, `Foo.java:[31,16]`,
 * after `-->`, `at`, `❯`, `(`, a quote or `file://`. The path has an extension; its parts are words.
 */
const LOCATION = /^(?:file:\/\/)?((?:\.{1,2}\/|\/|~\/)?(?:[\w@.~+-]+\/){0,40}[\w@.+-]+\.[A-Za-z]\w{0,5})(?::\[?\d+|\(\d+(?:,\d+)?\))/;
/** What every LOCATION holds: a line without it is not split into words to look for one. */
const MAY_HOLD_LOCATION = /\.[A-Za-z]\w{0,5}(?::\[?\d|\(\d)/;
/** Characters that open a location's word (`(src/a.js:3:1)`, `"a.py:3"`, `[a.ts:1]`). */
const LOCATION_LEAD = /^[(["'`<]+/;
/** `File "a.py", line 3` (Python), `on main.tf line 41` (Terraform), `in a.php on line 9` (PHP): the line number after the path. */
const NAMED_LINE = /(?:^|\s)(?:File "([^"\n]{1,200})", line \d|(?:on|in) (\S{1,200}) (?:on )?line \d)/;
/** A path alone on its line, its diagnostics on the lines below (`line:col  error …`: ESLint's stylish format). */
const PATH_ALONE = /^(?:\S+:\s+)?((?:\.{0,2}\/|~\/)?(?:[\w@.~+-]+\/){0,40}[\w@.+-]+\.[A-Za-z]\w{0,5})$/;
const UNDER_PATH = /^(?:\S+:\s+)?\s*\d+:\d+\s+(?:error|warning|✖|×)/i;
/** Longer words are no location (a minified line, a blob). */
const LOCATION_WORD_CHARS = 300;
/** A source line quoted with its line number or under a gutter (`  12 │ code`, `> 205 | code`, `  |     ^^^`). */
const QUOTED_SOURCE = /^\s*>?\s*\d*\s*[│|┃]/;
/** A tool's prefix with nothing after it (`npm ERR!`, `error:`). */
const BARE_PREFIX = /^\S*\s*(?:ERR!|err!?|error:?|warn(?:ing)?:?)\s*$/i;
/** A key line longer than this is cut in the middle (a minified bundle line, a JSON blob). */
const KEY_LINE_CHARS = 300;

/** The key lines as a draft quotes them: quoted source dropped, repeats once with a count, long lines cut. */
export function draftKeyLines(lines: string[], max: number): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) if (!QUOTED_SOURCE.test(line) && !BARE_PREFIX.test(line)) counts.set(line, (counts.get(line) ?? 0) + 1);
  return [...counts].slice(0, max).map(([line, n]) => {
    const cut = line.length > KEY_LINE_CHARS ? `${line.slice(0, 200)} [… ${line.length - 280} chars cut] ${line.slice(-80)}` : line;
    return n > 1 ? `${cut} (×${n})` : cut;
  });
}

/**
 * What a package manager prints after a script it ran failed (`npm error Lifecycle script \`build\`
 * failed`, `npm ERR! code ELIFECYCLE`, yarn's `error Command failed with exit code 2`): the
 * script's own error was above, or cut off by the pipe that shortened the output.
 */
const RUNNER_TRAILER =
  /^(?:npm (?:ERR!|error)(?: (?:code|errno|path|workspace|location|command|syscall|signal)\b| Lifecycle script| Failed at| A complete log| This is probably not| \S+@\S+ \w+: `|\s*$)|error Command failed with exit code|info Visit https:\/\/yarnpkg|\s*ELIFECYCLE\b)/;

/** True when a failure's key lines are only its script runner's trailer: no error of its own to learn from. */
export function onlyRunnerTrailer(keyLines: string[]): boolean {
  return keyLines.length > 0 && keyLines.every((l) => RUNNER_TRAILER.test(l));
}

/** Characters a retyped word may differ by: a slip of the keys, not another name. */
const TYPO_CHARS = 2;

/**
 * True when the second command is the first with one argument's typo fixed (`-u ci_edge` → `-u
 * ci-edge`): the same words but one, that one no option, with the same digits, and within
 * TYPO_CHARS of the other. A changed option (`--no-cache` → `--nocache`) or version is a lesson
 * about the tool; a slip of the keys is none.
 */
export function retyped(failed: string, worked: string): boolean {
  const a = failed.trim().split(/\s+/);
  const b = worked.trim().split(/\s+/);
  if (a.length !== b.length) return false;
  const differ = a.flatMap((w, i) => (w === b[i] ? [] : [i]));
  if (differ.length !== 1) return false;
  const [x, y] = [a[differ[0]!]!, b[differ[0]!]!];
  // Other digits are another version or number, which may be the lesson (`react@19` → `react@18`).
  if (x.startsWith("-") || y.startsWith("-") || x.replace(/\D/g, "") !== y.replace(/\D/g, "")) return false;
  return Math.min(x.length, y.length) > TYPO_CHARS && boundedDistance(x, y, TYPO_CHARS) <= TYPO_CHARS;
}

/**
 * The files a failure's output points at. From a checker (a build, type check, lint or test run),
 * every location it prints, in any of the usual forms (see LOCATION, NAMED_LINE, PATH_ALONE); from
 * anything else, only lines that open with a location, as a checker's diagnostics do: a program's
 * own crash names its code too, but the cause may be what the program talked to.
 */
export function diagnosticFiles(output: string, checker: boolean): string[] {
  const files = new Set<string>();
  const lines = output.split("\n");
  for (const [i, line] of lines.entries()) {
    if (!checker) {
      const m = LEADING_LOCATION.exec(line.trimStart());
      if (m) files.add(m[1]!);
      continue;
    }
    if (MAY_HOLD_LOCATION.test(line))
      for (const word of line.split(/\s+/)) {
        if (!word || word.length > LOCATION_WORD_CHARS) continue;
        const m = LOCATION.exec(word.replace(LOCATION_LEAD, ""));
        if (m) files.add(m[1]!);
      }
    if (line.length > 2 * LOCATION_WORD_CHARS) continue;
    const named = line.includes(" line ") ? NAMED_LINE.exec(line) : null;
    if (named) files.add((named[1] ?? named[2])!);
    const alone = PATH_ALONE.exec(line.trim());
    if (alone && UNDER_PATH.test(lines[i + 1] ?? "")) files.add(alone[1]!);
  }
  return [...files];
}

/** `a/b/c.ts` names the same file as `/x/a/b/c.ts` or `./b/c.ts`: one ends the other on a path boundary. */
function sameFile(a: string, b: string): boolean {
  const x = a.replace(/^(?:\.{1,2}\/)+/, "");
  const y = b.replace(/^(?:\.{1,2}\/)+/, "");
  // A command's glob (`sed -i … utils/*.ts`) names every file it matches, at the end of a path.
  if (/[*?[]/.test(y)) {
    const glob = new Bun.Glob(y);
    return x.split("/").some((_, i, parts) => glob.match(parts.slice(i).join("/")));
  }
  return x === y || x.endsWith("/" + y) || y.endsWith("/" + x);
}

/**
 * The agent fixing code it is writing: the failure's diagnostics point into files the agent changed
 * in this session — all of them; from a checker, whose report also names files it only passed
 * through (a test calling the code), one is enough — the fix changes such a file, and nothing in the
 * fix prepares anything (an install or a setting would be a lesson of its own). A file changes by
 * an edit, or by a command of the fix that edits it in place (`sed -i … a.ts`).
 */
export function inProgress(checker: boolean, diagnostics: string[], changed: Set<string>, fix: FixStepLike[], prepares: (command: string) => boolean): boolean {
  if (!diagnostics.length) return false;
  const written = fix.flatMap((s) => (s.kind === "command" && s.ok && s.command !== undefined ? editedInPlace(s.command) : []));
  const paths = [...changed, ...written];
  const own = diagnostics.filter((d) => paths.some((p) => sameFile(d, p)));
  if (!own.length || (!checker && own.length < diagnostics.length)) return false;
  const ownFile = (p: string) => own.some((d) => sameFile(d, p));
  const touched = written.some(ownFile) || fix.some((s) => s.kind === "change" && s.path !== undefined && changedPaths(s.path).some(ownFile));
  return touched && !fix.some((s) => s.kind === "command" && s.ok && s.command !== undefined && prepares(s.command));
}

/** What inProgress reads of a fix step. */
interface FixStepLike {
  kind: string;
  ok?: boolean;
  command?: string;
  path?: string;
}

/** The paths a change names: omp's patches name several in one (`a.ts, b.ts`). */
export function changedPaths(path: string): string[] {
  return path.split(", ").filter(Boolean);
}

/**
 * How much a draft teaches, to keep the best few of a session: a fix that ran commands (an
 * install, a setting) or a changed command line says more than edits alone; repeated attempts
 * say it was hard; a long list of steps says less about which one mattered.
 */
export function draftRank(d: { attempts: number; fix: { kind: string; ok?: boolean }[]; failed: { command: string }; worked: { command: string } }): number {
  let rank = 0;
  if (d.fix.some((s) => s.kind === "command" && s.ok)) rank += 3;
  if (d.failed.command.trim() !== d.worked.command.trim()) rank += 2;
  rank += Math.min(2, d.attempts - 1);
  if (d.fix.length > 5) rank -= 1;
  return rank;
}
