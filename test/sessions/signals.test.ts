import { describe, expect, test } from "bun:test";
import { findSignals, userSignals } from "../../cli/sessions/signals.ts";
import type { SessionEvent } from "../../cli/sessions/reader.ts";

describe("userSignals", () => {
  test.each([
    "No, use the system zlib.",
    "no, it should go in /etc",
    "Actually the tests live in spec/",
    "That's wrong, the port is 8080.",
    "that is wrong",
    "Don’t push to main.",
    "Do not run the migrations.",
    "Stop doing that.",
    "Instead, call the API directly.",
    "ok. Don't touch the lockfile",
  ])("correction: %p", (text) => {
    expect(userSignals(text).correction).toBeDefined();
  });
  test.each([
    "Remember that the staging DB is read-only.",
    "Keep in mind the CI has no network",
    "Note that builds need -j4 here.",
    "don't forget to bump the version",
  ])("remember: %p", (text) => {
    expect(userSignals(text).remember).toBeDefined();
  });
  test.each([
    "Run the tests please.",
    "Is that wrong?",
    "Do you remember where the config is?",
    "I don't know what happened",
    "Nothing actually failed, all good",
    "The notes are in docs/",
  ])("nothing: %p", (text) => {
    expect(userSignals(text)).toEqual({});
  });
  test("a signal keeps its whole sentence: dots in words, abbreviations and wrapped lines do not cut it", () => {
    expect(userSignals("Remember to add src to sys.path before the tests. Thanks").remember).toBe("Remember to add src to sys.path before the tests.");
    expect(userSignals("Note that v1.2 of the plugin, e.g. the one in CI, needs Java 17.").remember).toBe(
      "Note that v1.2 of the plugin, e.g. the one in CI, needs Java 17.",
    );
    expect(userSignals("No, use the system zlib from\n/usr/lib instead of the bundled one.\n\nThen build.").correction).toBe(
      "No, use the system zlib from /usr/lib instead of the bundled one.",
    );
  });
});

const at = (line: number) => ({ line, entryId: `e${line}` });
const cmd = (line: number, command: string, ok: boolean, output = ""): SessionEvent => ({
  kind: "command",
  command,
  ok,
  output,
  exitCode: ok ? undefined : 1,
  ...at(line),
});

describe("findSignals", () => {
  test("a failure fixed by a later command of the same program makes one draft pitfall", () => {
    const f = findSignals([
      cmd(1, "cmake -B build", false, "CMake Error: Could not find ZLIB"),
      cmd(2, "ls /opt", true),
      cmd(3, "cmake -B build -DZLIB_ROOT=/opt/zlib", true),
      cmd(4, "cmake --build build", true),
    ]);
    expect(f.counts).toEqual({ failed: 1, fixed: 1, correction: 0, remember: 0, repeat: 0 });
    expect(f.drafts).toEqual([
      {
        program: "cmake",
        attempts: 1,
        failed: { command: "cmake -B build", exitCode: 1, keyLines: ["CMake Error: Could not find ZLIB"], entryId: "e1", line: 1, time: undefined },
        worked: { command: "cmake -B build -DZLIB_ROOT=/opt/zlib", entryId: "e3", line: 3, time: undefined },
        fix: [],
        fixDropped: 0,
      },
    ]);
    expect(f.labels).toEqual(["fixed cmake"]);
    expect(f.priority).toBe(1);
  });

  test("three failures in a row then a fix: one pair, higher priority; an unfixed failure stays open", () => {
    const f = findSignals([
      cmd(1, "make", false, "error: x"),
      cmd(2, "make", false, "error: x"),
      cmd(3, "make", false, "error: y"),
      cmd(4, "make", true),
      cmd(5, "npm test", false, "failed"),
    ]);
    expect(f.counts.fixed).toBe(1);
    expect(f.drafts[0]!.attempts).toBe(3);
    expect(f.drafts[0]!.failed.line).toBe(3);
    expect(f.priority).toBe(2);
    expect(Object.keys(f.openFailures)).toEqual(["npm"]);
  });

  test("a failure left open by an earlier read is fixed in this one", () => {
    const first = findSignals([cmd(1, "cargo build", false, "error[E0432]: unresolved import")]);
    const second = findSignals([cmd(9, "cargo build --features serde", true)], { openFailures: first.openFailures });
    expect(second.counts).toMatchObject({ failed: 0, fixed: 1 });
    expect(second.drafts[0]!.failed.line).toBe(1);
  });

  test("repeat: a signature seen elsewhere counts once per signature", () => {
    const f = findSignals([cmd(1, "make", false, "error: x"), cmd(2, "make", false, "error: x"), cmd(3, "make", false, "error: other")], {
      seenElsewhere: () => true,
    });
    expect(f.counts.repeat).toBe(2);
    expect(f.labels).toEqual(["repeat make"]);
  });

  test("user messages give corrections and requests to remember", () => {
    const f = findSignals([
      { kind: "user", text: "Remember: the VPN must be up. No, use the staging host.", ...at(1) },
      { kind: "user", text: "Run it again", ...at(2) },
    ]);
    expect(f.counts).toMatchObject({ correction: 1, remember: 1 });
    expect(f.priority).toBe(3);
  });
});
