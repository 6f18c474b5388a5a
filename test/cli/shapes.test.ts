// `rkb extract` over the shape fixtures (test/fixtures/shapes, invented sessions that reproduce
// what real ones hold): each file read as what it is, the drafts that teach something and none of
// the probes, the user's words wherever they were typed, and no home folder in what is kept.
import { describe, expect, test } from "bun:test";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox } from "../helpers.ts";

const SHAPES = join(import.meta.dir, "../fixtures/shapes");

async function extracted() {
  const box = sandbox("rkb-shapes");
  const dir = join(box.home, "archive");
  cpSync(SHAPES, dir, { recursive: true });
  const r = await rkb(["extract", dir, "--format", "json", "--report", join(box.home, "report.md")], { env: box.env });
  expect(r.exit).toBe(0);
  const s = r.json();
  const name = (path: string) => path.slice(dir.length + 1);
  return { box, dir, s, name };
}

describe("rkb extract on the shapes of real sessions", async () => {
  const { box, s, name } = await extracted();
  const drafts = (file: string) => s.drafts.filter((d: any) => name(d.file) === file);
  const said = (file: string, kind: string) => s.signals.filter((h: any) => name(h.file) === file && h.kind === kind).map((h: any) => [h.line, h.text]);

  test("every file has a status: sessions by harness, the others named by what they look like", () => {
    expect(Object.fromEntries(s.files.map((f: any) => [name(f.path), f.status === "session" ? f.harness : f.looks_like]))).toEqual({
      "claude-compaction.jsonl": "claude-code",
      "claude-parallel.jsonl": "claude-code",
      "claude-pasted-summary.jsonl": "claude-code",
      "claude-queued.jsonl": "claude-code",
      "claude-rejection.jsonl": "claude-code",
      "codex-exec.jsonl": "codex",
      "codex-shell.jsonl": "codex",
      "not-session-dump.jsonl": "one JSON document over several lines (a JSON dump), not JSON lines",
      "not-session-steps.jsonl": 'JSON lines of another tool (entries of type "USER_INPUT", "PLANNER_RESPONSE", "CODE_ACTION")',
      "not-session-utf16.jsonl": "UTF-16 text, not UTF-8 JSON lines",
      "pi-corrections.jsonl": "pi",
      "pi-old-header.jsonl": "pi",
      "pi-probes.jsonl": "pi",
    });
    expect(s.skipped).toEqual([]);
  });

  test("Claude Code: a failure before a compaction is paired with its fix after it", () => {
    expect(drafts("claude-compaction.jsonl")).toMatchObject([
      {
        program: "git",
        failed: { command: "cd . && git push origin release", line: 5 },
        fix: [{ command: "git pull --rebase origin release" }],
        worked: { line: 15 },
      },
    ]);
  });

  test("Claude Code: the result of a parallel call, hanging off its own call, is read", () => {
    expect(drafts("claude-parallel.jsonl")).toMatchObject([
      {
        program: "pytest",
        failed: { line: 4, keyLines: expect.arrayContaining(["E   ModuleNotFoundError: No module named 'yaml'"]) },
        fix: [{ command: "pip install pyyaml" }],
      },
    ]);
  });

  test("Claude Code: a refused call's reason is a correction, and so are the user's words after they stopped a call; the refusal no failure; a queued message is the user's words", () => {
    expect(said("claude-rejection.jsonl", "correction")).toEqual([
      [4, "keep dist, it holds the signed installers; only remove build"],
      [12, "never mind, I'll start it myself"],
    ]);
    expect(drafts("claude-rejection.jsonl")).toEqual([]);
    expect(said("claude-rejection.jsonl", "remember")).toEqual([]);
    expect(said("claude-queued.jsonl", "correction")).toEqual([[8, "no, put it under Unreleased instead of 2.3.0"]]);
  });

  test("pasted text is not the user's: a summary at the start, a traceback, a skill block", () => {
    expect(s.signals.filter((h: any) => name(h.file) === "claude-pasted-summary.jsonl")).toEqual([]);
    expect(said("pi-corrections.jsonl", "correction").map(([line]: [number]) => line)).not.toContain(23);
  });

  test("Codex CLI: shell calls with the exit code in the output text, old and new", () => {
    expect(drafts("codex-exec.jsonl")).toMatchObject([
      {
        program: "cargo",
        failed: { command: "cargo test", exitCode: 101 },
        fix: [{ command: "cargo add serde --features derive" }],
        worked: { command: "cargo test" },
      },
    ]);
    expect(drafts("codex-shell.jsonl")).toMatchObject([
      { program: "npm", failed: { command: "npm run build", exitCode: 2 }, fix: [{ command: "npm install zod" }] },
    ]);
    // The typed message; not the AGENTS.md, the environment or the summary after a compaction, which Codex sends as the user.
    expect(said("codex-exec.jsonl", "correction")).toEqual([[26, "no, use cargo nextest instead of cargo test here"]]);
    // Bookkeeping types of newer releases (world_state, token_usage_record) are read past, not reported.
    expect(s.files.find((f: any) => name(f.path) === "codex-exec.jsonl").skipped_lines).toBe(0);
  });

  test("pi's older header and the user's own `!` commands", () => {
    expect(drafts("pi-old-header.jsonl").map((d: any) => [d.failed.command, d.worked.command])).toEqual([
      ["make", "make -f Makefile.linux"],
      ["cd . && ./run_tests.sh", "cd . && ./run_tests.sh"],
    ]);
  });

  test("probes, code being written and unrelated successes make no draft; the real failures do, with their key lines", () => {
    const found = drafts("pi-probes.jsonl");
    expect(found.map((d: any) => [d.failed.command, d.worked.command])).toEqual([
      ["npm ci", "npm install"],
      ["npx vite build", "npx vite build"],
    ]);
    const [npm, vite] = found;
    expect(npm.failed.keyLines).not.toContain("npm ERR!");
    // The minified line and the seven quoted source lines are not key lines; the error is.
    expect(vite.failed.keyLines.some((l: string) => l.includes("Top-level await is not available"))).toBe(true);
    expect(vite.failed.keyLines.every((l: string) => l.length < 320 && !l.includes("│"))).toBe(true);
    expect(s.failed).toBeGreaterThan(15);
  });

  test("corrections in many forms and standing rules, typos included, in other languages too; questions and bug reports are none", () => {
    expect(said("pi-corrections.jsonl", "correction").map(([line]: [number]) => line)).toEqual([7, 9, 11, 13, 15, 25]);
    expect(said("pi-corrections.jsonl", "remember").map(([line]: [number]) => line)).toEqual([17, 19, 21]);
  });

  test("no home folder in anything rkb wrote: items, report, state", () => {
    const written = readdirSync(join(box.home, ".local/state/rkb"), { recursive: true })
      .map((n) => join(box.home, ".local/state/rkb", String(n)))
      .filter((p) => !p.endsWith("inbox"))
      .concat(join(box.home, "report.md"));
    for (const path of written) {
      const text = readFileSync(path).toString("latin1");
      expect(text, path).not.toMatch(/\/(?:Users|home)\/(?:alice|bob|carol|dave|erin|frank|gina|hana|ivan|judy)\b/);
      expect(text, path).not.toContain(box.home);
    }
  });
});

test("a copy of a session read again, in the same run or a later one, is one item", async () => {
  const box = sandbox("rkb-shapes-copy");
  const a = join(box.home, "a");
  const b = join(box.home, "b");
  cpSync(join(SHAPES, "claude-parallel.jsonl"), join(a, "s.jsonl"));
  cpSync(join(SHAPES, "claude-parallel.jsonl"), join(a, "copy.jsonl"));
  cpSync(join(SHAPES, "claude-parallel.jsonl"), join(b, "s.jsonl"));
  const first = (await rkb(["extract", a, "--format", "json"], { env: box.env })).json();
  expect(first.items_written).toBe(1);
  expect(first.files.map((f: any) => f.status).sort()).toEqual(["duplicate", "session"]);
  const second = (await rkb(["extract", b, "--format", "json"], { env: box.env })).json();
  expect(second).toMatchObject({ items_written: 0, files: [{ status: "duplicate" }] });
});
