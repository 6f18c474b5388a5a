import { describe, expect, test } from "bun:test";
import { findSignals } from "../../cli/sessions/signals.ts";
import type { SessionEvent } from "../../cli/sessions/reader.ts";

// What a user message says (userSignals) is tested in said.test.ts.

const at = (line: number) => ({ line, entryId: `e${line}` });
const cmd = (line: number, command: string, ok: boolean, output = ""): SessionEvent => ({
  kind: "command",
  command,
  ok,
  output,
  exitCode: ok ? undefined : 1,
  ...at(line),
});

const edit = (line: number, path: string): SessionEvent => ({
  kind: "tool",
  name: "edit",
  ok: true,
  change: { verb: "edited", path, diff: ["+x"] },
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
      cmd(4, "make CC=clang", true),
      cmd(5, "npm test", false, "failed"),
    ]);
    expect(f.counts.fixed).toBe(1);
    expect(f.drafts[0]!.attempts).toBe(3);
    expect(f.drafts[0]!.failed.line).toBe(3);
    expect(f.priority).toBe(2);
    expect(Object.keys(f.openFailures)).toEqual(["npm run test"]);
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
      { kind: "agent", text: "Connecting to the production host.", ...at(0) },
      { kind: "user", text: "Remember: the VPN must be up. No, use the staging host.", ...at(1) },
      { kind: "user", text: "Run it again", ...at(2) },
    ]);
    expect(f.counts).toMatchObject({ correction: 1, remember: 1 });
    expect(f.priority).toBe(3);
  });

  test("the first message of a session corrects nothing (the agent did nothing yet); a standing rule in it counts", () => {
    const f = findSignals([{ kind: "user", text: "Don't use the ORM. From now on always write plain SQL.", ...at(1) }]);
    expect(f.counts).toMatchObject({ correction: 0, remember: 1 });
  });

  test("the reason for refusing a tool call is a correction; the refused command is no failure", () => {
    const f = findSignals([
      { kind: "command", command: "rm -rf dist", ok: false, output: "", stopped: "rejected", ...at(1) },
      { kind: "user", text: "keep dist, only remove build", via: "rejection", ...at(1) },
    ]);
    expect(f.counts).toMatchObject({ failed: 0, correction: 1 });
    expect(f.hits.find((h) => h.kind === "correction")?.text).toBe("keep dist, only remove build");
  });

  test.each([
    ["cargo test", "aborted", "that runs the network tests too, use cargo test --lib", "that runs the network tests too, use cargo test --lib"],
    ["cargo test", "rejected", "the db lives behind the bastion. skip the db check", "the db lives behind the bastion."],
    ["while ! nc -z localhost 5432; do sleep 1; done", "aborted", "that will never come up here", "that will never come up here"],
    ["cargo test", "aborted", "ok, continue", undefined],
    ["sleep 5 && echo done", "aborted", "the header color is #336699", undefined],
  ] as const)("after the user stopped %p (%s), %p corrects: %p", (command, stopped, text, correction) => {
    const f = findSignals([
      { kind: "agent", text: "running the tests", ...at(1) },
      { kind: "command", command, ok: false, output: "", stopped, ...at(2) },
      { kind: "user", text, ...at(3) },
    ]);
    expect(f.hits.find((h) => h.kind === "correction")?.text).toBe(correction);
  });

  test("the same command working again with nothing in between explains nothing: no draft", () => {
    const f = findSignals([cmd(1, "npm test", false, "Error: flaky socket"), cmd(2, "npm  test", true)]);
    expect(f.drafts).toEqual([]);
    expect(f.counts).toMatchObject({ failed: 1, fixed: 0 });
  });

  test("a probe that failed is counted, opens nothing and repeats nothing", () => {
    const f = findSignals([cmd(1, "grep -n TODO src/a.ts", false, ""), cmd(2, "touch src/a.ts", true), cmd(3, "grep -n TODO src/a.ts", true)], {
      seenElsewhere: () => true,
    });
    expect(f.counts).toMatchObject({ failed: 1, fixed: 0, repeat: 0 });
    expect(f.failures).toEqual([]);
  });

  test("a checker's errors in files the agent is writing, fixed by editing them, make no draft; a fix that installs does", () => {
    const typeError = "src/app.ts(3,9): error TS2322: Type 'number' is not assignable to type 'string'.";
    const writing = findSignals([
      edit(1, "/home/dev/proj/src/app.ts"),
      cmd(2, "npx tsc --noEmit", false, typeError),
      edit(3, "/home/dev/proj/src/app.ts"),
      cmd(4, "npx tsc --noEmit", true),
    ]);
    expect(writing.drafts).toEqual([]);
    const missing = "src/app.ts(1,20): error TS2307: Cannot find module 'zod' or its corresponding type declarations.";
    const install = findSignals([
      edit(1, "src/app.ts"),
      cmd(2, "npx tsc --noEmit", false, missing),
      cmd(3, "npm install zod", true),
      cmd(4, "npx tsc --noEmit", true),
    ]);
    expect(install.drafts).toHaveLength(1);
  });

  test("code nobody changed yet that stops building, fixed by editing it, is a draft; code changed before, fixed the same way, is none", () => {
    const removed = "build.zig:17:32: error: no field named 'path' in union 'Build.LazyPath'";
    const upgrade = findSignals([cmd(1, "zig build", false, removed), edit(2, "build.zig"), cmd(3, "zig build", true)]);
    expect(upgrade.drafts.map((d) => d.failed.line)).toEqual([1]);
    const writing = findSignals([edit(1, "src/main.zig"), cmd(2, "zig build", false, removed), edit(3, "build.zig"), cmd(4, "zig build", true)]);
    expect(writing.drafts).toEqual([]);
    // An earlier read of the session may have changed the file: then the failure is the agent's work too.
    const later = findSignals([cmd(1, "zig build", false, removed), edit(2, "build.zig"), cmd(3, "zig build", true)], { agentChanged: true });
    expect(later.drafts).toEqual([]);
  });

  test("a failure whose error went away with the steps after it, before the task failed otherwise, is answered by the task's next success", () => {
    const f = findSignals([
      cmd(1, "ansible-playbook site.yml --check", false, "ERROR! couldn't resolve module/action 'community.postgresql.postgresql_db'."),
      cmd(2, "ansible-galaxy collection install community.postgresql", true),
      cmd(3, "ansible-playbook site.yml --check", false, 'fatal: [db1]: FAILED! => {"msg": "Failed to import the required Python library (psycopg2)"}'),
      cmd(4, "ansible db1 -m apt -a name=python3-psycopg2 --become", true),
      cmd(5, "ansible-playbook site.yml --check", true),
    ]);
    expect(f.drafts.map((d) => [d.failed.line, d.worked.line, d.fix.map((s) => (s.kind === "command" ? s.command : s.path))])).toEqual([
      [1, 5, ["ansible-galaxy collection install community.postgresql"]],
      [3, 5, ["ansible db1 -m apt -a name=python3-psycopg2 --become"]],
    ]);
    expect(f.counts.fixed).toBe(2);
    // The same error again is another attempt at one failure; never answered, nothing is drafted.
    const again = findSignals([
      cmd(1, "cmake -B build", false, "CMake Error: Could not find ZLIB"),
      cmd(2, "export ZLIB_ROOT=/opt", true),
      cmd(3, "cmake -B build", false, "CMake Error: Could not find ZLIB"),
      cmd(4, "sudo apt-get install -y zlib1g-dev", true),
      cmd(5, "cmake -B build", true),
    ]);
    expect(again.drafts.map((d) => [d.failed.line, d.attempts])).toEqual([[3, 2]]);
    const unanswered = findSignals([
      cmd(1, "ansible-playbook site.yml", false, "ERROR! couldn't resolve module/action 'x.y'."),
      cmd(2, "ansible-galaxy collection install x.y", true),
      cmd(3, "ansible-playbook site.yml", false, "fatal: [db1]: UNREACHABLE!"),
    ]);
    expect(unanswered.drafts).toEqual([]);
  });

  test("the same run with another output trim is the same command again; a changed environment is a fix", () => {
    const flaky = findSignals([
      cmd(1, "pytest tests/ -q 2>&1 | tail -6; exit ${PIPESTATUS[0]}", false, "FAILED tests/test_window.py::test_midnight - AssertionError"),
      cmd(2, "pytest tests/ -q 2>&1 | tail -3; exit ${PIPESTATUS[0]}", true),
    ]);
    expect(flaky.counts).toMatchObject({ failed: 1, fixed: 0 });
    const jdk = findSignals([
      cmd(1, "./gradlew build", false, "Unsupported class file major version 65"),
      cmd(2, "JAVA_HOME=$(/usr/libexec/java_home -v 17) ./gradlew build", true),
    ]);
    expect(jdk.drafts.map((d) => d.worked.command)).toEqual(["JAVA_HOME=$(/usr/libexec/java_home -v 17) ./gradlew build"]);
  });

  test("after a stop, words that say all is well correct nothing", () => {
    const stopped: SessionEvent = { kind: "command", command: "nix run .", ok: false, output: "", stopped: "aborted", ...at(1) };
    const user = (line: number, text: string): SessionEvent => ({ kind: "user", text, ...at(line) });
    expect(findSignals([stopped, user(2, "ok va bene così, grazie.")]).counts.correction).toBe(0);
    expect(findSignals([stopped, user(2, "thanks, that is enough")]).counts.correction).toBe(0);
    expect(findSignals([stopped, user(2, "run it against the staging config")]).counts.correction).toBe(1);
  });

  test("a formatter fixes nothing: a test that passes after one alone is no draft, and it is no step of another's fix", () => {
    const flaky = findSignals([
      cmd(1, "pytest -q", false, "E   psycopg.OperationalError: connection failed: Connection refused"),
      cmd(2, "ruff format src/ tests/", true),
      cmd(3, "pytest -q", true),
    ]);
    expect(flaky.counts).toMatchObject({ failed: 1, fixed: 0 });
    const fixed = findSignals([
      cmd(1, "cmake -B build", false, "CMake Error: Could not find ZLIB"),
      cmd(2, "npx prettier --write CMakeLists.txt", true),
      cmd(3, "sudo apt-get install -y zlib1g-dev", true),
      cmd(4, "cmake -B build", true),
    ]);
    expect(fixed.drafts.map((d) => d.fix.map((s) => (s.kind === "command" ? s.command : s.path)))).toEqual([["sudo apt-get install -y zlib1g-dev"]]);
  });

  test("the best drafts of a session are kept, the rest named", () => {
    const events: SessionEvent[] = [];
    for (let i = 0; i < 8; i++) {
      const n = i * 3;
      events.push(cmd(n + 1, `tool${i} run`, false, `error: broken ${i}`));
      // Even ones are fixed by a command (they teach more), odd ones by running it differently.
      events.push(i % 2 === 0 ? cmd(n + 2, `tool${i} setup`, true) : cmd(n + 2, "ls", true));
      events.push(cmd(n + 3, i % 2 === 0 ? `tool${i} run` : `tool${i} run --retry`, true));
    }
    const f = findSignals(events);
    expect(f.counts.fixed).toBe(8);
    expect(f.drafts.map((d) => d.program)).toEqual(["tool0", "tool1", "tool2", "tool4", "tool6"]);
    expect(f.draftsLeftOut).toEqual([
      { program: "tool3", line: 10 },
      { program: "tool5", line: 16 },
      { program: "tool7", line: 22 },
    ]);
  });
});
