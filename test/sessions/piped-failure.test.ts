import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { capture } from "../../cli/sessions/capture.ts";
import { readSession } from "../../cli/sessions/reader.ts";
import { statusHiddenByPipe } from "../../cli/shell/program.ts";
import { sandbox } from "../helpers.ts";
import { SessionWriter, type Flavor } from "./session-writer.ts";

// A pipeline's exit status is its last stage's: `pip install … 2>&1 | tail -3` exits 0 whatever pip
// did. Agents pipe builds, installs and test runs into tail and head all the time; the failure is
// then only in what the program printed last.

describe("statusHiddenByPipe", () => {
  test.each([
    ["npm test 2>&1 | tail -20", true],
    ["pip install -r requirements.txt 2>&1 | tail -3", true],
    ["cd web && cargo build 2>&1 | grep -E 'error|warning' | head -30", true],
    ["make 2>&1 | tee build.log", true],
    ["npm test", false], // no pipe: its own status
    ["cat build.log | tail -20", false], // the program is a filter: it shows a log, it did not fail
    ["git log --oneline | head -5", false], // read-only: it shows what it read
    ["grep -rn 'Error:' src | head", false],
    ["npm test 2>&1 | tail -5; echo done", false], // the last pipeline is echo's
    ["npm test | node summarize.js", false], // the last stage is a program, not a filter
  ])("%s → %p", (command, hidden) => expect(statusHiddenByPipe(command)).toBe(hidden));
});

const FLAVORS: Flavor[] = ["pi", "omp", "claude-code"];
const PIP_FAILED =
  "Collecting numpy==1.99.0\nERROR: Could not find a version that satisfies the requirement numpy==1.99.0 (from versions: 1.26.3, 1.26.4)\nERROR: No matching distribution found for numpy==1.99.0";

function editLine(w: SessionWriter, path: string, before: string, after: string): void {
  if (w.flavor === "pi") w.tool("edit", { path, edits: [{ oldText: before, newText: after }] }, `Successfully replaced text in ${path}.`);
  else if (w.flavor === "omp") w.tool("edit", { path, old_string: before, new_string: after }, `Updated ${path}`);
  else w.tool("Edit", { file_path: path, old_string: before, new_string: after }, `The file ${path} has been updated.`);
}

async function read(w: SessionWriter) {
  const box = sandbox("rkb-piped");
  const path = join(box.dir, "s.jsonl");
  writeFileSync(path, w.text());
  return { read: await readSession(path), captured: await capture({ sessionFile: path, env: box.env, dryRun: true }) };
}

describe("a failure behind a pipe", () => {
  for (const flavor of FLAVORS)
    test(`${flavor}: an install that failed behind \`| tail\`, fixed by an edit, is a draft pitfall`, async () => {
      const w = new SessionWriter(flavor);
      w.user("install the dependencies");
      w.bash("pip install -r requirements.txt 2>&1 | tail -3", PIP_FAILED);
      editLine(w, "requirements.txt", "numpy==1.99.0", "numpy==1.26.4");
      w.bash("pip install -r requirements.txt 2>&1 | tail -3", "Installing collected packages: numpy\nSuccessfully installed numpy-1.26.4");
      const { read: r, captured } = await read(w);
      const commands = r.events.filter((e) => e.kind === "command");
      expect(commands.map((e) => e.ok)).toEqual([false, true]);
      expect(commands[0]!.output).toContain("No matching distribution found for numpy==1.99.0");
      expect(commands[1]!.output).toBe("");
      expect(r.counts.failedBash).toBe(1);
      expect(captured.drafts).toHaveLength(1);
      expect(captured.drafts[0]!.failed.keyLines.join("\n")).toContain("No matching distribution found");
      expect(captured.drafts[0]!.fix.map((s) => (s.kind === "change" ? s.path : s.command))).toEqual(["requirements.txt"]);
    });

  test.each([
    ["npm run build 2>&1 | tail -2", "webpack 5.91.0 compiled with 1 error in 2113 ms", true],
    ["npx vite build 2>&1 | tail -3", 'error during build:\n[vite]: Rollup failed to resolve import "zod" from "src/api.ts".', true],
    ["go test ./... 2>&1 | tail -3", "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: want 3, got 2\nFAIL\texample.com/p\t0.004s", true],
    ["npx eslint . | tail -2", "✖ 3 problems (3 errors, 0 warnings)", true],
    ["mvn -q package | tail -2", "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile", true],
    ["dotnet build | tail -2", "Build FAILED.\n    1 Error(s)", true],
    ["python -m pytest 2>&1 | tail -2", "FAILED tests/test_api.py::test_get - KeyError: 'id'\n========= 1 failed, 12 passed in 0.31s =========", true],
    ["cargo build 2>&1 | tail -2", 'error: could not compile `app` (bin "app") due to 1 previous error', true],
    ["docker build . 2>&1 | tail -1", 'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1', true],
    [
      "vendor/bin/phpstan analyse 2>&1 | tail -3",
      "PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in phar:///w/vendor/phpstan/phpstan/phpstan.phar/src/Analyser/NodeScopeResolver.php on line 3067",
      true,
    ],
    [
      "vendor/bin/phpstan analyse 2>&1 | tail -4",
      " -- ------------------\n\n [ERROR] Found 1 error\n\nPHPStan process crashed because it reached configured PHP memory limit: 128M",
      true,
    ],
    ["php artisan migrate | tail -1", 'Parse error: syntax error, unexpected token "}" in /w/app/Models/User.php on line 41', true],
    ["npm run build 2>&1 | tail -2", "webpack 5.91.0 compiled successfully in 2113 ms", false],
    ["npx tsc --watch 2>&1 | head -3", "Found 0 errors. Watching for file changes.", false],
    ["mvn -q package | tail -2", "[INFO] BUILD SUCCESS\n[INFO] Total time: 4.2 s", false],
    ["dotnet build | tail -2", "Build succeeded.\n    0 Error(s)", false],
    ["python -m pytest 2>&1 | tail -1", "========= 13 passed in 0.31s =========", false],
    ["npm test 2>&1 | tail -2", "Tests:       0 failed, 12 passed, 12 total", false],
    ["node gen.js | head -2", "wrote src/errors.ts\nwrote src/error-codes.ts", false],
  ])("`%s` ending %j: failed %p", async (command, output, failed) => {
    const w = new SessionWriter("claude-code");
    w.user("go");
    w.bash(command, output);
    const { read: r } = await read(w);
    expect(r.events.filter((e) => e.kind === "command").map((e) => !e.ok)).toEqual([failed]);
  });

  test("the same words from a filter, a read-only command or a command without a pipe are no failure", async () => {
    const w = new SessionWriter("claude-code");
    w.user("look at the last build");
    w.bash("cat build.log | tail -3", PIP_FAILED);
    w.bash("git log -3 --format=%s | head -3", "Error: handle a missing config\nfix the build\ninit");
    w.bash("python report.py", 'Traceback (most recent call last):\n  File "report.py", line 3\nValueError: printed on purpose');
    w.bash("npm test 2>&1 | tail -3", "Tests:       12 passed, 12 total\nTime:        1.2 s");
    const { read: r, captured } = await read(w);
    expect(r.events.filter((e) => e.kind === "command").map((e) => [e.ok, e.output])).toEqual([
      [true, ""],
      [true, ""],
      [true, ""],
      [true, ""],
    ]);
    expect(captured.counts.failed).toBe(0);
  });

  test("a tail that kept only npm's trailer holds no error to learn from: a failure, no draft", async () => {
    const w = new SessionWriter("claude-code");
    w.user("build it");
    w.bash("npm run build 2>&1 | tail -3", "npm error Lifecycle script `build` failed with error:\nnpm error code 2\nnpm error command failed");
    editLine(w, "src/app.ts", "a", "b");
    w.bash("npm run build 2>&1 | tail -3", "built in 1.2s");
    const { captured } = await read(w);
    expect(captured.counts).toMatchObject({ failed: 1, fixed: 0 });
  });

  test("a build in another package's folder does not answer the failed one", async () => {
    const w = new SessionWriter("pi");
    w.user("build both");
    w.bash("cd packages/api && cargo build", "error[E0432]: unresolved import `serde_json`", 101);
    w.bash("cd packages/api && cargo add serde_json", "Adding serde_json v1.0.128 to dependencies");
    w.bash("cd packages/web && cargo build", "Finished dev profile");
    w.bash("cd packages/api && cargo build", "Finished dev profile");
    const { captured } = await read(w);
    expect(captured.drafts.map((d) => d.worked.command)).toEqual(["cd packages/api && cargo build"]);
  });

  test("a success's long output is read only at its end: a failure printed early and gone on from is no failure", async () => {
    const w = new SessionWriter("pi");
    w.user("build it");
    w.bash("make 2>&1 | tee build.log", `error: a transient fetch, retrying\n${"[ 50%] compiling\n".repeat(400)}[100%] done`);
    const { read: r } = await read(w);
    expect(r.events.filter((e) => e.kind === "command").map((e) => e.ok)).toEqual([true]);
  });
});
