import { describe, expect, test } from "bun:test";
import { failureSignature, keyErrorLines, program, stripHarnessTrailer } from "../../cli/sessions/bash.ts";

describe("stripHarnessTrailer", () => {
  test("pi: the exit line goes, the code stays", () => {
    expect(stripHarnessTrailer("about-to-fail\n\n\nCommand exited with code 3")).toEqual({ text: "about-to-fail", exitCode: 3 });
  });
  test("omp: wall time before the exit line goes too", () => {
    expect(stripHarnessTrailer("about-to-fail\n\n\nWall time: 0.09 seconds\n\nCommand exited with code 3")).toEqual({ text: "about-to-fail", exitCode: 3 });
  });
  test("omp success: wall time alone, no exit code", () => {
    expect(stripHarnessTrailer("hello\n\n\nWall time: 0.01 seconds")).toEqual({ text: "hello" });
  });
  test("Claude Code and hook error text lead with Exit code N", () => {
    expect(stripHarnessTrailer("Exit code 1\nCMake Error: x")).toEqual({ text: "CMake Error: x", exitCode: 1 });
  });
  test("output that merely mentions an exit code keeps it", () => {
    const text = "the doc says: Command exited with code 3 means retry\nthen more";
    expect(stripHarnessTrailer(text)).toEqual({ text });
  });
});

describe("program", () => {
  test.each([
    ["CC=gcc make -j8", "make"],
    ["/usr/bin/cmake -B build", "cmake"],
    ["(cd build && ninja)", "cd"],
    ["'./configure' --prefix=/opt", "configure"],
    ["  FOO=1 BAR=2 python -m pytest", "python"],
    ["", ""],
    ["A=1", ""],
  ])("%p → %p", (command, expected) => {
    expect(program(command)).toBe(expected);
  });
});

describe("keyErrorLines", () => {
  test("lines naming an error, trimmed, without Exit code lines", () => {
    const text = "Exit code 1\n-- The C compiler identification is GNU\nCMake Error at CMakeLists.txt:5 (find_package):\n  Could NOT find ZLIB\n-- Configuring incomplete, errors occurred!";
    expect(keyErrorLines(text)).toEqual(["CMake Error at CMakeLists.txt:5 (find_package):", "Could NOT find ZLIB"]);
  });
  test("aftermath lines that only count the errors go when a specific line is left", () => {
    const link = "main.c:(.text+0x1b): undefined reference to `foo_init'\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:4: app] Error 1";
    expect(keyErrorLines(link)).toEqual(["main.c:(.text+0x1b): undefined reference to `foo_init'"]);
    const rust = "error[E0382]: borrow of moved value: `x`\nerror: could not compile `p` (lib) due to 1 previous error";
    expect(keyErrorLines(rust)).toEqual(["error[E0382]: borrow of moved value: `x`"]);
    expect(keyErrorLines("collect2: error: ld returned 1 exit status")).toEqual(["collect2: error: ld returned 1 exit status"]);
  });
  test("no matching line: the last three", () => {
    expect(keyErrorLines("a\nb\n\nc\nd\n")).toEqual(["b", "c", "d"]);
  });
  test.each(["fatal: not a git repository", "bash: foo: command not found", "Could not find a package configuration file provided by \"fmt\"", "Permission denied", "thread 'main' panicked at src/x.rs", "zsh: no matches found: *.o"])("%p is a key line", (line) => {
    expect(keyErrorLines(`noise\n${line}\nmore noise`)).toEqual([line]);
  });
});

describe("failureSignature", () => {
  test("the same failure in another place and time has the same signature", () => {
    const a = failureSignature("cmake", "CMake Error at /home/a/proj/CMakeLists.txt:5 (find_package):\nbuild 3f9a1c0d2e failed after 12 s");
    const b = failureSignature("cmake", "CMake Error at /tmp/ci/x/CMakeLists.txt:17 (find_package):\nbuild 77aa00bb11 failed after 3 s");
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{24}$/);
  });
  test("another program or another error differs", () => {
    const base = failureSignature("cmake", "CMake Error: could not find ZLIB");
    expect(failureSignature("make", "CMake Error: could not find ZLIB")).not.toBe(base);
    expect(failureSignature("cmake", "CMake Error: could not find PNG")).not.toBe(base);
  });
});
