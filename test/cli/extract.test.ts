import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox, writeFile } from "../helpers.ts";
import { writeCorpus } from "../sessions/corpus.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/sessions");
/** The four sessions these counts were written for (the folder also holds other agents' recordings). */
const FOUR = ["omp-pytest.jsonl", "pi-branched.jsonl", "pi-cmake-zlib.jsonl", "pi-quiet.jsonl"];
/** A folder of the four, as an archive to extract. */
function archiveOfFour(dir: string): string {
  const folder = join(dir, "archive");
  for (const name of FOUR) cpSync(join(FIXTURES, name), join(folder, name));
  return folder;
}
const box = () => sandbox("rkb-extract");
const inboxFiles = (env: Record<string, string>) => {
  const dir = join(env.XDG_STATE_HOME!, "rkb", "inbox");
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe("rkb extract", () => {
  test("a --report in a folder that cannot be made is refused before any session is read", async () => {
    const { env, dir } = box();
    writeFile(join(dir, "afile"), "x\n");
    const r = await rkb(["extract", FIXTURES, "--format", "json", "--report", join(dir, "afile", "report.md")], { env, cwd: dir });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("io");
    expect(r.json().error.message).toStartWith(`cannot write the report to ${join(dir, "afile", "report.md")}`);
    expect(inboxFiles(env)).toHaveLength(0);
  });

  test("reads a folder with sessions, an event log and a damaged file; summary, report, then a rerun writes nothing", async () => {
    const { env, dir } = box();
    const sessions = archiveOfFour(dir);
    writeFile(
      join(sessions, "nested", "events.jsonl"),
      '{"t":"2026-11-29T19:09:11Z","pid":1,"kind":"factory"}\n{"t":"2026-11-29T19:09:12Z","pid":1,"kind":"session_start"}\n',
    );
    const quiet = readFileSync(join(FIXTURES, "pi-quiet.jsonl"), "utf8").split("\n");
    writeFile(join(sessions, "nested", "damaged.jsonl"), [quiet[0], "garbage", ...quiet.slice(1, -2), quiet.at(-2)!.slice(0, 30)].join("\n"));
    const r = await rkb(["extract", sessions, "--format", "json", "--report", join(dir, "report.md")], { env, cwd: dir });
    expect(r.exit).toBe(0);
    const s = r.json();
    // pi-cmake-zlib: 3 failed, 2 fixed, 1 correction, 1 remember; omp-pytest: 1 failed, 1 fixed, 1 correction;
    // pi-branched: 1 failed, 1 fixed; pi-quiet and damaged: nothing.
    expect(s).toMatchObject({ sessions: 5, not_sessions: 1, skipped_lines: 4, failed: 5, fixed: 4, correction: 2, remember: 1, repeat: 0, items_written: 3 });
    // Bad lines of a session are listed; a file that is no session is named once, with what it looks like.
    expect(s.skipped).toEqual([
      { file: join(sessions, "nested", "damaged.jsonl"), line: 2, reason: "not valid JSON" },
      { file: join(sessions, "nested", "damaged.jsonl"), line: 8, reason: "truncated last line (no newline, not valid JSON)" },
    ]);
    expect(s.files.find((f: any) => f.path.endsWith("events.jsonl")).looks_like).toBe("JSON lines without a `type` field (an event log?)");
    expect(s.files.map((f: any) => [f.path.slice(sessions.length + 1), f.status, f.harness, f.skipped_lines])).toEqual([
      ["nested/damaged.jsonl", "session", "pi", 2],
      ["nested/events.jsonl", "not-session", undefined, 2],
      ["omp-pytest.jsonl", "session", "omp", 0],
      ["pi-branched.jsonl", "session", "pi", 0],
      ["pi-cmake-zlib.jsonl", "session", "pi", 0],
      ["pi-quiet.jsonl", "session", "pi", 0],
    ]);
    // Each correction and request to remember with the session line it was said on.
    expect(s.signals.map((h: any) => [h.file.slice(sessions.length + 1), h.kind, h.line])).toEqual([
      ["omp-pytest.jsonl", "correction", 17],
      ["pi-cmake-zlib.jsonl", "remember", 14],
      ["pi-cmake-zlib.jsonl", "correction", 16],
    ]);
    expect(inboxFiles(env)).toHaveLength(3);
    expect(r.stderr).toMatch(/rkb extract: 6\/6 files read/);
    const report = readFileSync(join(dir, "report.md"), "utf8");
    expect(report).toContain("| 5 | 4 | 5 | 4 | 2 | 1 | 0 | 3 |");
    expect(report).toContain("## Draft pitfalls");
    expect(report).toContain("- failed: `cmake -B build` (exit 1)");
    expect(report).toContain("- worked (line 13): `cmake -B build -DZLIB_ROOT=/opt/zlib`");

    const again = (await rkb(["extract", sessions, "--format", "json"], { env, cwd: dir })).json();
    expect(again).toMatchObject({ sessions: 5, failed: 0, fixed: 0, items_written: 0 });
    expect(inboxFiles(env)).toHaveLength(3);
  });

  test("--dry-run writes nothing; --since in the future leaves every session out", async () => {
    const { env, dir } = box();
    const four = archiveOfFour(dir);
    const human = await rkb(["extract", four, "--dry-run"], { env, cwd: dir });
    expect(human.exit).toBe(0);
    expect(human.stdout).toContain("would write 3 inbox items (dry run)");
    expect(existsSync(join(env.XDG_STATE_HOME!, "rkb"))).toBe(false);
    const later = (await rkb(["extract", join(four, "*.jsonl"), "--since", "2999-01-01", "--format", "json"], { env, cwd: dir })).json();
    expect(later).toMatchObject({ sessions: 4, older: 4, items_written: 0 });
  });

  test("exit 1 when nothing could be read; exit 2 without paths or with a bad date", async () => {
    const { env, dir } = box();
    writeFile(join(dir, "junk.jsonl"), "not a session\n");
    const junk = await rkb(["extract", join(dir, "junk.jsonl"), join(dir, "missing")], { env, cwd: dir });
    expect(junk.exit).toBe(1);
    expect(junk.stdout).toContain("nothing could be read");
    expect(junk.stdout).toContain(`${join(dir, "missing")}: does not exist`);
    expect((await rkb(["extract"], { env, cwd: dir })).exit).toBe(2);
    expect((await rkb(["extract", dir, "--since", "someday"], { env, cwd: dir })).exit).toBe(2);
  });

  test("1,000 generated sessions (over 200 MB) give the exact summary", async () => {
    const { env, dir } = box();
    const corpus = join(dir, "corpus");
    const expected = writeCorpus(corpus, 1000, 215_000);
    expect(expected.bytes).toBeGreaterThan(200 * 1024 * 1024);
    const r = await rkb(["extract", corpus, "--format", "json"], { env, cwd: dir });
    expect(r.exit).toBe(0);
    const s = r.json();
    for (const key of ["sessions", "skipped_lines", "failed", "fixed", "correction", "remember", "repeat", "items_written"])
      expect(typeof s[key]).toBe("number");
    expect(s).toMatchObject({
      sessions: expected.sessions,
      skipped_lines: 0,
      failed: expected.failed,
      fixed: expected.fixed,
      correction: expected.correction,
      remember: expected.remember,
      repeat: expected.repeat,
      items_written: expected.items,
    });
    expect(inboxFiles(env)).toHaveLength(expected.items);
    rmSync(corpus, { recursive: true, force: true });
  }, 120_000);
});
