import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  distilledSince,
  expireState,
  hookErrorsSince,
  KEEP,
  loadSignatures,
  logHookError,
  readRecords,
  recordDistilled,
  saveSignatures,
  statePath,
  updateRecords,
} from "../cli/machine/state.ts";
import { sandbox } from "./helpers.ts";
import { SECRETS } from "./sessions/secret-samples.ts";

const now = () => Math.floor(Date.now() / 1000);

describe("session records", () => {
  test("a decision sees the records before it and appends with a time", () => {
    const { env } = sandbox();
    const first = updateRecords(env, "s1", (records) => ({ append: [{ kind: "failed", program: "make" }], result: records.length }));
    const second = updateRecords(env, "s1", (records) => ({ append: [], result: records.map((r) => r.kind) }));
    expect(first).toBe(0);
    expect(second).toEqual(["failed"]);
    const [r] = readRecords(env, "s1");
    expect(r).toMatchObject({ kind: "failed", program: "make" });
    expect(typeof r!.time).toBe("number");
    expect(readRecords(env, "other")).toEqual([]);
  });

  test("reading before anything was written creates nothing", () => {
    const { env } = sandbox();
    expect(readRecords(env, "s")).toEqual([]);
    expect(existsSync(statePath(env))).toBe(false);
  });

  test("concurrent processes never lose a record", async () => {
    const { env, dir } = sandbox();
    const script = join(dir, "append.ts");
    writeFileSync(
      script,
      `import { updateRecords } from ${JSON.stringify(join(import.meta.dir, "../cli/machine/state.ts"))};\n` +
        `for (let i = 0; i < 10; i++) updateRecords(process.env, "s", (r) => ({ append: [{ kind: "fixed", program: "p" + process.argv[2] + "-" + r.length }], result: 0 }));\n`,
    );
    const procs = Array.from({ length: 6 }, (_, i) => Bun.spawn([process.execPath, script, String(i)], { env, stderr: "pipe" }));
    for (const p of procs) expect(await p.exited).toBe(0);
    const records = readRecords(env, "s");
    expect(records).toHaveLength(60);
    // Each decision saw every record before it: the counts it wrote are 0..59, each once.
    expect(records.map((r) => Number((r as { program: string }).program.split("-")[1])).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  test("program names and ids are masked before they are stored", () => {
    const { env } = sandbox();
    updateRecords(env, "s", () => ({ append: [{ kind: "failed", program: SECRETS.github }], result: 0 }));
    expect(JSON.stringify(readRecords(env, "s"))).not.toContain(SECRETS.github);
    expect(readFileSync(statePath(env)).includes(SECRETS.github)).toBe(false);
  });

  test("sessions untouched for two weeks are removed, with one DELETE", () => {
    const { env } = sandbox();
    updateRecords(env, "old", () => ({ append: [{ kind: "remember" }], result: 0 }));
    updateRecords(env, "new", () => ({ append: [{ kind: "remember" }], result: 0 }));
    expect(expireState(env, now() + KEEP.sessionRecords - 60)).toBe(0);
    updateRecords(env, "new", () => ({ append: [{ kind: "asked" }], result: 0 }));
    const db = new Database(statePath(env));
    db.run("UPDATE session_record SET time = time - ? WHERE data LIKE '%remember%'", [KEEP.sessionRecords + 60]);
    db.close();
    // "new" has a fresh record, so both of its records stay; "old" goes.
    expect(expireState(env)).toBe(1);
    expect(readRecords(env, "old")).toEqual([]);
    expect(readRecords(env, "new").map((r) => r.kind)).toEqual(["remember", "asked"]);
  });
});

describe("signatures, distill log, hook errors", () => {
  test("signatures older than the window are neither read nor kept", () => {
    const { env } = sandbox();
    saveSignatures(env, [
      { sig: "a", session: "x" },
      { sig: "b", session: "y" },
    ]);
    saveSignatures(env, [{ sig: "a", session: "x" }]);
    expect(
      loadSignatures(env)
        .map((s) => s.sig)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(loadSignatures(env, now() + KEEP.signatures + 60)).toEqual([]);
    expect(expireState(env, now() + KEEP.signatures + 60)).toBe(2);
  });

  test("the distill log keeps outcomes, with signals masked", () => {
    const { env } = sandbox();
    recordDistilled(env, [
      { item: "abc", kind: "transcript", signals: [`fixed ${SECRETS.npm}`], op: "add", lesson: "x-y" },
      { item: "abc", kind: "transcript", signals: [], op: "noop" },
    ]);
    const rows = distilledSince(env, now() - 60);
    expect(rows.map((r) => [r.item, r.op, r.lesson])).toEqual([
      ["abc", "add", "x-y"],
      ["abc", "noop", undefined],
    ]);
    expect(JSON.stringify(rows)).not.toContain(SECRETS.npm);
  });

  test("hook errors are masked, clipped, newest first, and at most 100 are kept", () => {
    const { env } = sandbox();
    logHookError(env, "tool-failed", "pi", new Error(`JSON Parse error: {"command": "deploy --token ${SECRETS.github}"}`));
    logHookError(env, "prompt", undefined, "x".repeat(10_000));
    const [latest, first] = hookErrorsSince(env, 0);
    expect(first!.error).not.toContain(SECRETS.github);
    expect(first!.error).toContain("JSON Parse error");
    expect(first!.harness).toBe("pi");
    expect(latest!.event).toBe("prompt");
    expect(latest!.error.length).toBeLessThanOrEqual(501);
    for (let i = 0; i < 120; i++) logHookError(env, "stop", "pi", `error ${i}`);
    expireState(env);
    const kept = hookErrorsSince(env, 0);
    expect(kept).toHaveLength(100);
    expect(kept[0]!.error).toBe("error 119");
  });
});

describe("the state file", () => {
  test("a new state file leaves the Rust rkb's files of the same names in that folder alone", () => {
    const { env } = sandbox();
    const dir = join(env.XDG_STATE_HOME!, "rkb");
    mkdirSync(join(dir, "sessions"), { recursive: true });
    mkdirSync(join(dir, "heartbeat"), { recursive: true });
    const files = ["sessions/s.jsonl", "signatures.jsonl", "hook-errors.log", "heartbeat/pi"];
    for (const f of files) writeFileSync(join(dir, f), "the Rust rkb's\n");
    expect(readRecords(env, "s")).toEqual([]); // creates the state file
    logHookError(env, "stop", "pi", "an error");
    for (const f of files) expect(readFileSync(join(dir, f), "utf8")).toBe("the Rust rkb's\n");
  });

  test("an older rkb's JSONL files and raw cursor commands are gone after the first open", () => {
    const { env } = sandbox();
    const dir = join(env.XDG_STATE_HOME!, "rkb");
    mkdirSync(join(dir, "sessions"), { recursive: true });
    mkdirSync(join(dir, "heartbeat"), { recursive: true });
    for (const f of ["sessions/s.jsonl", "signatures.jsonl", "distilled.jsonl", "hook-errors.log", "heartbeat/pi"])
      writeFileSync(join(dir, f), `{"error": "${SECRETS.github}"}\n`);
    const old = new Database(join(dir, "cursors.sqlite"));
    old.run("PRAGMA journal_mode = WAL");
    old.run("CREATE TABLE cursor (file TEXT PRIMARY KEY, data TEXT NOT NULL)");
    const cursor = {
      file: "/s.jsonl",
      offset: 10,
      line: 2,
      openFailures: { deploy: { program: "deploy", command: `deploy --password ${SECRETS.envPassword}`, keyLines: [], line: 1, attempts: 1 } },
      pendingCalls: {},
      updated: 1,
    };
    old.query("INSERT INTO cursor VALUES (?, ?)").run("/s.jsonl", JSON.stringify(cursor));
    old.close();
    expect(readRecords(env, "s")).toEqual([]); // opens (and upgrades) the state
    expect(readdirSync(dir).sort()).toEqual(["cursors.sqlite", ...readdirSync(dir).filter((n) => n.startsWith("cursors.sqlite-"))].sort());
    for (const name of readdirSync(dir)) {
      expect(readFileSync(join(dir, name)).includes(SECRETS.envPassword)).toBe(false);
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    }
  });
});
