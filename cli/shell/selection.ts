import type { Invocation } from "./program.ts";

// Which part of the code a command works on: the paths it names (`go vet ./internal/api/...`,
// `pytest tests/test_app.py`) and the tests it picks by name (`--filter=ReminderTest`, `-k parse`).
// A success of the same task answers a failure only when it checked what failed: a run of other
// tests, or of a narrower part of the code than the one the failure's report points into, is no fix.

/** Options that pick tests by name; the name follows after `=` or as the next word. */
const PICKS_TESTS = new Set(["--filter", "-k", "-run", "--run", "--grep", "--testNamePattern", "--test-name-pattern", "--tests", "--spec"]);
/** An operand that names a path: it has a slash or an extension (`src/`, `./...`, `app.test.ts`). */
const PATH_LIKE = /\/|^[\w@.+-]+\.[A-Za-z]\w{0,5}$/;

interface Selection {
  paths: string[];
  tests: string[];
}

/** A path as a scope: without `./`, go's `/...`, a pytest node id's `::…`, a trailing slash or glob. */
function scope(path: string): string {
  return path
    .replace(/::.*$/, "")
    .replace(/^(?:\.\/)+/, "")
    .replace(/\/?(?:\.\.\.|\*\*?)$/, "")
    .replace(/\/+$/, "")
    .replace(/^\.$/, "");
}

/**
 * What a command selects. A word right after another option is taken as that option's value, not
 * as a path (`tsc -p tsconfig.json`): unsure words are left out, which keeps the pairing as it was.
 */
function selectionOf({ args }: Invocation): Selection {
  const paths: string[] = [];
  const tests: string[] = [];
  for (const [i, a] of args.entries()) {
    const eq = a.indexOf("=");
    const option = eq === -1 ? a : a.slice(0, eq);
    if (PICKS_TESTS.has(option)) {
      const value = eq === -1 ? args[i + 1] : a.slice(eq + 1);
      if (value) tests.push(value);
      continue;
    }
    const after = args[i - 1];
    if (a.startsWith("-") || (after?.startsWith("-") && after !== "--") || PICKS_TESTS.has(after ?? "")) continue;
    if (PATH_LIKE.test(a)) paths.push(scope(a));
  }
  return { paths, tests };
}

/** The file or folder `path` lies in `within` (the whole tree when `within` is ""); either may be relative to the other's root. */
function inside(path: string, within: string): boolean {
  if (within === "") return true;
  const p = scope(path);
  return p === within || p.startsWith(`${within}/`) || `/${p}`.includes(`/${within}/`) || p.endsWith(`/${within}`);
}

/**
 * True when a success of the same task can have fixed the failure: it does not run other tests by
 * name, and when it narrows the failure's paths (`./...` to `./internal/api/...`), what the failure
 * reported (`diagnostics`) lies inside the narrower part.
 */
export function checksWhatFailed(failed: Invocation, worked: Invocation, diagnostics: string[]): boolean {
  const f = selectionOf(failed);
  const w = selectionOf(worked);
  if (f.tests.length && w.tests.length && !f.tests.some((a) => w.tests.some((b) => a.includes(b) || b.includes(a)))) return false;
  if (!f.paths.length || !w.paths.length || !diagnostics.length) return true;
  const narrower = w.paths.every((wp) => f.paths.some((fp) => wp !== fp && inside(wp, fp)));
  return !narrower || diagnostics.some((d) => w.paths.some((wp) => inside(d, wp)));
}
