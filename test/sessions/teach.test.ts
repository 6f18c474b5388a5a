import { describe, expect, test } from "bun:test";
import { diagnosticFiles, inProgress } from "../../cli/sessions/teach.ts";

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
  ] as const)("%#: checker %p, report %j, changed %j: %p", (checker, diagnostics, changed, yes, fix) => {
    expect(inProgress(checker, [...diagnostics], new Set(changed), [...fix], installs)).toBe(yes);
  });
});
