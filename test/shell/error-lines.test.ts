import { describe, expect, test } from "bun:test";
import { errnoSays } from "../../cli/shell/errno.ts";
import { errorShaped, joinBoxed, joinContinued, lineSpeaker } from "../../cli/shell/error-lines.ts";
import { familyOthers } from "../../cli/shell/family.ts";
import { readFailure } from "../../cli/shell/failure.ts";
import { termSequence } from "../../cli/text/tokenize.ts";

describe("lines tools print as errors", () => {
  test.each([
    ["Makefile:14: *** missing separator.  Stop.", true],
    ["curl: (60) SSL certificate problem: certificate has expired", true],
    ["/usr/bin/ld: obj/io.o:(.bss+0x0): multiple definition of `g_config'", true],
    ["Active: failed (Result: exit-code)", false],
    ["Compiling probe v0.1.0", false],
  ])("%s", (line, shaped) => expect(errorShaped(line)).toBe(shaped));
  test("the program a line starts with", () => {
    expect(lineSpeaker("npm ERR! code EACCES")).toBe("npm");
    expect(lineSpeaker("ModuleNotFoundError: No module named 'x'")).toBeUndefined();
  });
  test("make's *** messages and program-prefixed lines are key lines, its aftermath is not", () => {
    const f = readFailure("make", "build.mk:22: *** missing separator (did you mean TAB instead of 8 spaces?).  Stop.\nmake: *** [Makefile:9: all] Error 2");
    expect(f.lines).toEqual([": *** missing separator (did you mean TAB instead of spaces?). Stop."]);
    expect(readFailure("curl https://x.test", "curl: (60) SSL certificate problem: certificate has expired").lines).toEqual([
      "curl: ( ) SSL certificate problem: certificate has expired",
    ]);
  });
  test("a usage synopsis restates the command, the line after it says what went wrong", () => {
    const f = readFailure("gizmo run", "ERROR: usage: gizmo [options] [target] [...]\ngizmo: error: unrecognized arguments: --trace");
    expect(f.lines).toEqual(["gizmo: error: unrecognized arguments: --trace"]);
  });
});

describe("messages laid out over several lines", () => {
  test("an error header with its indented block is one line", () => {
    const lines = ["CMake Error at CMakeLists.txt:1 (cmake_minimum_required):", "  CMake 3.27 or higher is required.", "", "-- Configuring incomplete"];
    expect(joinContinued(lines)).toEqual([
      "CMake Error at CMakeLists.txt:1 (cmake_minimum_required): CMake 3.27 or higher is required.",
      "",
      "-- Configuring incomplete",
    ]);
    expect(joinContinued(["PackagesNotFoundError: not available from current channels:", "", "  - pytorch-cuda=12.1", ""])).toEqual([
      "PackagesNotFoundError: not available from current channels: - pytorch-cuda=12.1",
      "",
    ]);
  });
  test("a header that introduces what led to the error keeps its lines apart", () => {
    const lines = ["Traceback (most recent call last):", '  File "app.py", line 4, in <module>'];
    expect(joinContinued(lines)).toEqual(lines);
  });
  test("a paragraph inside terraform's box is one line, wherever it wrapped", () => {
    expect(joinBoxed(["│ Could not retrieve the versions for provider", "│ acme/thing: the version is gone", "│", "│ Next"])).toEqual([
      "│ Could not retrieve the versions for provider acme/thing: the version is gone",
      "│",
      "│ Next",
    ]);
  });
  test("a new message does not continue a wrapped line", () => {
    const f = readFailure("npm i", "npm ERR! command sh -c node-pre-gyp install --fallback-to-build\nnpm ERR! gyp info it worked if it ends with ok");
    expect(f.text.split("\n")).toHaveLength(2);
  });
});

describe("what differs between two runs of one error is noise", () => {
  test("a file and line, a UUID and a quoted path", () => {
    const f = readFailure(
      "x",
      "Makefile:14: error: bad\nError: ref ac37f2bc-8d81-4cac-8430-5155da5cdbf6 not found\nError: The repository 'https://host.test/deb stable Release' no longer has a Release file.",
    );
    expect(f.textLines).toEqual([": error: bad", "Error: ref not found", "Error: The repository no longer has a Release file."]);
  });
});

describe("facts about tools and the system", () => {
  test("an errno name and its message say the same", () => {
    expect(errnoSays(termSequence("EADDRINUSE")[0]!, termSequence("address already in use"))).toBe(true);
    expect(errnoSays(termSequence("EACCES")[0]!, termSequence("address already in use"))).toBe(false);
  });
  test("tool families", () => {
    expect(familyOthers("vitest")).toContain("jest");
    expect(familyOthers("podman")).toContain("docker");
    expect(familyOthers("make")).toEqual([]);
  });
});
