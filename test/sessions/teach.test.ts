import { describe, expect, test } from "bun:test";
import { diagnosticFiles, inProgress, onlyRunnerTrailer, retyped } from "../../cli/sessions/teach.ts";

// Where a failure's report points, and whether it only shows the agent fixing code it is writing.
// The reports are written here in the shape of each tool's output.

describe("diagnosticFiles", () => {
  test.each([
    ["src/app.ts(3,9): error TS2322: Type 'number' is not assignable", true, ["src/app.ts"]],
    ["lib/a.py:12:4: E501 line too long", false, ["lib/a.py"]],
    ["/work/web/src/Cart.tsx\n  14:7  error  'total' is never reassigned  prefer-const", true, ["/work/web/src/Cart.tsx"]],
    ["web:lint: src/Cart.tsx\nweb:lint:   14:7  error  'x' is unused  no-unused-vars", true, ["src/Cart.tsx"]],
    ["error[E0308]: mismatched types\n --> src/tiles.rs:6:8", true, ["src/tiles.rs"]],
    ["error: Uncaught TypeError: x is undefined\n    at file:///app/main.ts:8:36", true, ["/app/main.ts"]],
    ['warning: variable "x" is unused\n  └─ lib/relay/room.ex:14:8', true, ["lib/relay/room.ex"]],
    ['Error: Unsupported argument\n\n  on main.tf line 41, in resource "aws_s3_bucket" "logs":', true, ["main.tf"]],
    [" FAIL  src/sum.test.ts > sum\n ❯ src/sum.test.ts:6:5", true, ["src/sum.test.ts"]],
    ['  File "src/scraper/fetch.py", line 22, in get\n    raise ValueError', true, ["src/scraper/fetch.py"]],
    ["[ERROR] /app/src/main/java/Foo.java:[31,16] cannot find symbol", true, ["/app/src/main/java/Foo.java"]],
    ['PHP Parse error:  syntax error, unexpected token ";" in /w/tests/Unit/TaxTest.php on line 9', true, ["/w/tests/Unit/TaxTest.php"]],
    // a program's own crash: only locations that open a line
    ["Error: 403 Forbidden\n    at fetchPage (src/client.js:10:5)", false, []],
    ["src/client.js:10\n  throw err;", false, ["src/client.js"]],
    // no location in a minified line
    [`${"x".repeat(400)}.js:1:2 error`, true, []],
  ] as const)("%#: %p (a checker: %p) points at %j", (output, checker, files) => {
    expect(diagnosticFiles(output, checker)).toEqual([...files]);
  });
});

describe("inProgress", () => {
  const edit = (path: string) => ({ kind: "change", path });
  const run = (command: string) => ({ kind: "command", ok: true, command });
  const installs = (command: string) => command.startsWith("npm install");
  test.each([
    // a checker's report in the agent's file, fixed by editing it
    [true, ["src/a.ts"], ["/p/src/a.ts"], true, [edit("/p/src/a.ts")]],
    // a checker passing through a test file the agent did not change: one own location is enough
    [true, ["tests/test_parse.py", "src/parse.py"], ["src/parse.py"], true, [edit("src/parse.py")]],
    // any other program: every location must be the agent's
    [false, ["tests/test_parse.py", "src/parse.py"], ["src/parse.py"], false, [edit("src/parse.py")]],
    // the fix did not touch the file
    [true, ["src/a.ts"], ["src/a.ts"], false, [edit("src/b.ts")]],
    // the fix installed something: a lesson of its own
    [true, ["src/a.ts"], ["src/a.ts"], false, [edit("src/a.ts"), run("npm install zod")]],
    // no location at all
    [true, [], ["src/a.ts"], false, [edit("src/a.ts")]],
    // the fix changed the file with a command (imports rewritten by sed after a move), not with an edit
    [true, ["../app/src/core/tools/bash.ts"], [], true, [run("sed -i '' 's|../shell.js|../../utils/shell.js|g' core/tools/bash.ts")]],
    // …or a glob of them
    [true, ["src/utils/config.ts"], [], true, [run("sed -i 's|./a.js|../a.js|' utils/*.ts")]],
    // a command that only read the file, or moved it, changed no file's text (a rename to .mjs is a lesson)
    [true, ["src/a.ts"], [], false, [run("cat src/a.ts")]],
    [true, ["scripts/migrate.js"], [], false, [run("git mv scripts/migrate.js scripts/migrate.mjs")]],
  ] as const)("%#: checker %p, report %j, changed %j: %p", (checker, diagnostics, changed, yes, fix) => {
    expect(inProgress(checker, [...diagnostics], new Set(changed), [...fix], installs)).toBe(yes);
  });
});

describe("onlyRunnerTrailer", () => {
  test.each([
    [["npm error Lifecycle script `build` failed with error:", "npm error code 2", "npm error command failed"], true],
    [["npm ERR! code ELIFECYCLE", "npm ERR! errno 2", "npm ERR! app@1.0.0 build: `tsc`"], true],
    [["error Command failed with exit code 2."], true],
    [["npm ERR! code E404", "npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-pad2"], false],
    [["ERR_PNPM_BAD_PM_VERSION This project is configured to use v9 of pnpm"], false],
    [["src/a.ts(3,5): error TS2322: Type 'string' is not assignable", "npm error command failed"], false],
    [[], false],
  ] as const)("%j → %p", (lines, only) => expect(onlyRunnerTrailer([...lines])).toBe(only));
});

describe("retyped", () => {
  test.each([
    ["docker login reg.example.net -u ci_edge --password-stdin", "docker login reg.example.net -u ci-edge --password-stdin", true],
    ["git checkout mian", "git checkout main", true],
    ["docker build --no-cahce .", "docker build --no-cache .", false], // an option: a lesson about the tool
    ["pip install requets", "pip install httpx", false], // another name, not a slip
    ["npm test", "npm test -- --watch=false", false], // another command line
    ["cargo bulid --release", "cargo build --release", true],
    ["kubectl apply -f a.yaml", "kubectl apply -f b.yaml", true], // another file one letter off: a retry that learned nothing
    ["npm install react@19", "npm install react@18", false], // another version: the lesson may be which one works
    ["git chekcout v1.2.0", "git checkout v1.2.0", true],
  ] as const)("%s → %s: %p", (a, b, yes) => expect(retyped(a, b)).toBe(yes));
});
