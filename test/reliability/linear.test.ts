// Linear time on any input. Each case runs at full size through the compiled binary under a
// generous bound (a slow machine passes; a hang or a quadratic path at this size does not), and the
// work inside is measured at two sizes four times apart: linear work grows about 4×, quadratic
// 16×, so a ratio under 8 catches a quadratic regression however slow the machine is. Precise
// figures: scripts/bench-linear.ts → BENCHMARKS.md.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseLesson } from "../../cli/lesson/lesson.ts";
import { scanBody, firstSentence } from "../../cli/lesson/body.ts";
import { rewriteLinks } from "../../cli/lesson/links.ts";
import { findLeaks, leakOptions } from "../../cli/lint/leak.ts";
import { flowStyleLines } from "../../cli/lesson/yaml.ts";
import { failureSignature, keyErrorLines, stripHarnessTrailer } from "../../cli/shell/result.ts";
import { readFailure } from "../../cli/shell/failure.ts";
import { stripInjected } from "../../cli/sessions/clean.ts";
import { exitCodeOf } from "../../cli/sessions/gemini.ts";
import { readOpencode } from "../../cli/sessions/opencode.ts";
import { renderExcerpt } from "../../cli/inbox/excerpt.ts";
import { userSignals } from "../../cli/sessions/said.ts";
import { personalMasker } from "../../cli/text/paths.ts";
import { decideFailureIn, failureQuery } from "../../cli/search/failure.ts";
import { tokenize } from "../../cli/text/tokenize.ts";
import { defang } from "../../cli/output/frame.ts";
import { isLessonForm, noteText, planImport } from "../../cli/plan/import.ts";
import { loadKb } from "../../cli/kb/store.ts";
import { renderLesson } from "../../cli/site/markdown.ts";
import { unlinkHidden } from "../../cli/site/published.ts";
import { encodeSiteIndex } from "../../cli/site/search-index.ts";
import { buildIndex } from "../../cli/kb/index.ts";
import { editTable } from "../../cli/install/toml-table.ts";
import { parseJsonc, setAt } from "../../cli/install/jsonc.ts";
import { proposedLesson } from "../../cli/proposals/lesson.ts";
import { proposalReport } from "../../cli/proposals/report.ts";
import type { Candidate, FixedFailure } from "../../cli/proposals/candidates.ts";
import type { ProposeResult } from "../../cli/proposals/propose.ts";
import { keyLine, parseToml } from "../../cli/base/toml.ts";
import { factLesson, kbFromFixture, rkb, sandbox } from "../helpers.ts";
import { brokenFrontmatter, lessonLinking, lessonWithDataUri, MiB, run, RUNS, sessionWithLongLines, svg } from "./adversarial.ts";

const BOUND_MS = 5_000;
const MAX_RATIO = 8;
// Below this the larger timing is noise (a GC pause, a busy core); no ratio is read from it.
const NOISE_MS = 250;

/** Best of two, in ms. */
function best(fn: () => unknown): number {
  let min = Infinity;
  for (let i = 0; i < 2; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

/** Fails when the time at 4× the size is more than MAX_RATIO times the time at 1×, measured twice (other work on the machine can spoil one measurement). */
function expectLinear(name: string, at: (size: number) => () => unknown, size: number): void {
  const measure = () => ({ small: best(at(size)), large: best(at(size * 4)) });
  const tooSlow = ({ small, large }: { small: number; large: number }) => large > NOISE_MS && large > MAX_RATIO * small;
  let m = measure();
  if (tooSlow(m)) m = measure();
  const { small, large } = m;
  if (tooSlow(m)) throw new Error(`${name}: ${small.toFixed(1)} ms at ${size}, ${large.toFixed(1)} ms at ${size * 4} (more than ${MAX_RATIO}×): quadratic`);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

describe("the binary under a generous bound, at full size", () => {
  test("a lesson whose 16,000-line frontmatter breaks on its last line: lint names that line", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const { text, badLine } = brokenFrontmatter(16_000);
    writeFileSync(join(box.kb, "general", "git", "broken.md"), text);
    const { ms, value } = await timed(() => rkb(["lint", "--format", "json"], { env: box.env }));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(value.exit).toBe(1);
    expect(value.json().findings).toContainEqual(expect.objectContaining({ path: "general/git/broken.md", line: badLine, rule: "format/parse" }));
  });

  test("a lesson with a 1 MiB SVG data URI and one linking a 1 MiB one-line SVG: lint and the pre-commit hook finish", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const topic = join(box.kb, "general", "git");
    writeFileSync(join(topic, "inline-diagram.md"), lessonWithDataUri(MiB));
    mkdirSync(join(topic, "diagram.assets"));
    writeFileSync(join(topic, "diagram.assets", "layout.svg"), svg(MiB - 1024));
    writeFileSync(join(topic, "diagram.md"), lessonLinking("diagram.assets/layout.svg"));
    const lint = await timed(() => rkb(["lint", "--format", "json"], { env: box.env }));
    expect(lint.ms).toBeLessThan(BOUND_MS);
    const paths = lint.value.json().findings.map((f: { path: string; rule: string }) => `${f.path} ${f.rule}`);
    expect(paths.filter((p: string) => p.includes("diagram"))).toEqual([]);
    // The knowledge base's own pre-commit hook lints what is staged.
    const git = (...args: string[]) =>
      Bun.spawnSync(["git", ...args], { cwd: box.kb, env: { ...box.env, PATH: `${join(import.meta.dir, "..", "..", "dist")}:${box.env.PATH}` } });
    expect(git("add", "-A").exitCode).toBe(0);
    const commit = await timed(async () => git("commit", "-q", "-m", "a diagram"));
    expect(commit.ms).toBeLessThan(BOUND_MS);
    expect(commit.value.exitCode).toBe(0);
  });

  test("a session of 10 MB lines: extract, and the hooks given 10 MB of error or prompt", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const file = join(box.dir, "long.jsonl");
    writeFileSync(file, sessionWithLongLines(10 * MiB));
    const extract = await timed(() => rkb(["extract", file, "--format", "json"], { env: box.env }));
    expect(extract.ms).toBeLessThan(BOUND_MS);
    expect(extract.value.json()).toMatchObject({ sessions: 1, skipped_lines: 0, failed: 1, fixed: 1 });
    const payload = (extra: object) => JSON.stringify({ session_id: "s1", cwd: box.kb, harness: "pi", ...extra });
    for (const error of [run("x", 10 * MiB), run("error: cannot find target ", 10 * MiB), run("\n", 10 * MiB)]) {
      const hook = await timed(() => rkb(["hook", "tool-failed"], { env: box.env, stdin: payload({ command: "make all", error }) }));
      expect(hook.ms).toBeLessThan(BOUND_MS);
      expect(hook.value.exit).toBe(0);
    }
    const prompt = await timed(() => rkb(["hook", "prompt"], { env: box.env, stdin: payload({ prompt: run("remember to rebuild the index ", 10 * MiB) }) }));
    expect(prompt.ms).toBeLessThan(BOUND_MS);
  });
});

describe("the work inside grows linearly (4× the input, under 8× the time)", () => {
  test("broken frontmatter: finding the bad line", () => {
    expectLinear(
      "parseLesson",
      (lines) => {
        const { text } = brokenFrontmatter(lines);
        return () => expect(() => parseLesson(text, "general/a/b.md")).toThrow();
      },
      4_000,
    );
  });

  test("an SVG data URI and a long SVG: body scan and leak scan", () => {
    const opts = leakOptions({ usernames: ["alice"], paths: [], allow: [] }, { USER: "bob", HOME: "/home/bob" });
    expectLinear(
      "scanBody",
      (bytes) => {
        const text = lessonWithDataUri(bytes);
        return () => scanBody(text);
      },
      MiB / 4,
    );
    expectLinear(
      "findLeaks",
      (bytes) => {
        const text = svg(bytes);
        return () => findLeaks(text, opts);
      },
      MiB / 4,
    );
  });

  test("rkb import: lessons and notes, 4× as many files", () => {
    const box = sandbox();
    kbFromFixture(box);
    const opts = { env: box.env, source: { harness: "cli", date: "2026-01-01" }, inboxMeta: { kind: "note", time: 0 }, ask: false };
    expectLinear(
      "planImport",
      (n) => {
        const files = Array.from({ length: n }, (_, i) => [
          { source: `topic-${i % 10}/lesson-${i}.md`, text: factLesson(`Fact ${i} about tool${i} and option${i * 7}`) },
          { source: `notes/note-${i}.md`, text: `# Note ${i}\n\nremember widget${i} needs flag${i * 3}\n` },
        ]).flat();
        return () => planImport(loadKb(box.kb), { folder: "notes", path: join(box.dir, "notes"), files, skipped: [] }, opts);
      },
      150,
    );
  });

  test("a line of links to a moved lesson: rewriting them", () => {
    expectLinear(
      "rewriteLinks",
      (links) => {
        const body = "# Links\n\n" + "[v](../cpp/missing-vtable.md#a) ".repeat(links) + "\n";
        return () =>
          rewriteLinks(body, "general/git/a.md", "general/git/a.md", (t) =>
            t === "general/cpp/missing-vtable.md" ? "general/git/missing-vtable.md" : undefined,
          );
      },
      10_000,
    );
  }, 30_000);

  test("a lesson linking 4× as many left-out lessons: the site unlinking them", () => {
    expectLinear(
      "unlinkHidden",
      (links) => {
        const body = Array.from({ length: links }, (_, i) => `See [lesson ${i}](../topic-${i}/hidden-${i}.md "t") and [ref ${i}][r${i}].`).join("\n");
        const refs = Array.from({ length: links }, (_, i) => `[r${i}]: ../topic-${i}/other-${i}.md`).join("\n");
        const text = `# Links\n\n${body}\n\n${refs}\n`;
        return () => unlinkHidden(text, () => true);
      },
      2_000,
    );
  }, 30_000);

  test("an opencode message of 4× as many parts: reading the session", () => {
    const dir = sandbox().dir;
    expectLinear(
      "readOpencode",
      (parts) => {
        const db = join(dir, `opencode-${parts}.db`);
        const store = new Database(db);
        store.exec("CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, time_created INTEGER)");
        store.exec("CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT)");
        store.exec("CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data TEXT)");
        store.query("INSERT INTO session VALUES ('ses_1', '/w', 1)").run();
        store.query(`INSERT INTO message VALUES ('msg_1', 'ses_1', 1, '{"role":"assistant","time":{"completed":2}}')`).run();
        const add = store.query("INSERT INTO part VALUES (?, 'msg_1', 'ses_1', ?)");
        store.transaction(() => {
          for (let i = 0; i < parts; i++) add.run(`prt_${String(i).padStart(8, "0")}`, JSON.stringify({ type: "text", text: `step ${i}` }));
        })();
        store.close();
        return () => readOpencode(`${db}#ses_1`);
      },
      20_000,
    );
  }, 60_000);

  test("the site's search index of 4× as many lessons", () => {
    const lessons = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        parseLesson(
          factLesson(`Fact ${i} about tool${i} and option${i * 7}`).replace("type: fact", `id: ${(0x1000000000 + i).toString(16)}\ntype: fact`),
          `general/t${i % 50}/f-${i}.md`,
        ),
      );
    expectLinear(
      "encodeSiteIndex",
      (n) => {
        const all = lessons(n);
        return () => {
          const index = buildIndex({ root: "/nowhere", files: all.map((l) => l.path), lessons: all, notes: [], broken: [] });
          const docs = all.map((l) => ({ id: l.id, title: l.title, path: l.path, type: l.type, status: l.status, summary: l.title }));
          return encodeSiteIndex(index, docs, new Float64Array(0));
        };
      },
      1_000,
    );
  }, 60_000);

  test("a TOML file of many settings broken on its last line, and one of many tables: parsing it, and finding the line", () => {
    let line = 0;
    expectLinear(
      "TOML error line",
      (settings) => {
        const text = Array.from({ length: settings }, (_, i) => `key${i} = "value ${i}"\n`).join("") + "last = nope\n";
        return () => {
          try {
            parseToml(text);
          } catch (e) {
            line = (e as { line: number }).line;
          }
        };
      },
      20_000,
    );
    expect(line).toBe(80_001);
    // Tables each of their own name (Bun's own TOML parser took 19 s for 40,000 of them).
    expectLinear(
      "TOML tables",
      (tables) => {
        const text = Array.from({ length: tables }, (_, i) => `[table${i}]\nkey = ${i}\n`).join("");
        return () => parseToml(text);
      },
      10_000,
    );
  }, 60_000);

  test("runs of one character through every text path", () => {
    const index = buildIndex(loadKb(join(import.meta.dir, "../fixtures/eval-kb")));
    const nowhere = { facts: {}, isAncestor: () => undefined };
    const opts = leakOptions({ usernames: ["alice"], paths: [], allow: [] }, { USER: "bob", HOME: "/home/bob" });
    const paths: Record<string, (s: string) => unknown> = {
      parseLessonBody: (s) => parseLesson(`---\nschema: 1\n---\n${s}`, "general/a/b.md"),
      parseLessonFrontmatter: (s) => {
        try {
          parseLesson(`---\n${s}\n---\n`, "general/a/b.md");
        } catch {
          // broken YAML is expected; only the time counts
        }
      },
      flowStyleLines,
      firstSentence,
      findLeaks: (s) => findLeaks(s, opts),
      stripHarnessTrailer,
      keyErrorLines,
      failureSignature: (s) => failureSignature("make", keyErrorLines(s)),
      failureLines: (s) => readFailure("make", s).lines,
      failureQuery: (s) => failureQuery(readFailure(s, s)),
      failureTextLines: (s) => readFailure("make", s).textLines,
      failureDecision: (s) => decideFailureIn(index, nowhere, new Map(), readFailure(s, s)),
      stripInjected,
      userSignals: (s) => userSignals(s),
      personalMasker: personalMasker("/home/dev/proj"),
      pathMaskerOwnHome: personalMasker("/root/proj", "/root"),
      geminiExitCode: (s) => exitCodeOf(s, false),
      excerpt: (s) =>
        renderExcerpt(
          [
            { kind: "user", text: s, line: 1 },
            { kind: "command", command: s, ok: false, output: s, line: 2 },
          ],
          new Set(),
        ),
      tokenize,
      defang,
      importNote: (s) => noteText({ source: "notes/a.md", text: s }),
      importLessonForm: (s) => isLessonForm(`---\n${s}`),
      siteMarkdown: (s) => renderLesson(s, "general/a/b.md", { lessonUrl: () => undefined, assetUrl: () => undefined }, "../"),
      siteUnlink: (s) => unlinkHidden(s, () => true),
      tomlEdit: (s) => refused(() => editTable(s, ["mcp_servers", "rkb"], '[mcp_servers.rkb]\ncommand = "rkb"\n', "config.toml")),
      tomlEditValue: (s) =>
        refused(() => editTable(`a = ${JSON.stringify(s)}\n`, ["mcp_servers", "rkb"], '[mcp_servers.rkb]\ncommand = "rkb"\n', "config.toml")),
      jsoncParse: (s) => refused(() => parseJsonc(s, "opencode.json")),
      jsoncSet: (s) => refused(() => setAt(`{\n  "a": ${JSON.stringify(s)} // ${s.replaceAll("\n", " ")}\n}\n`, ["mcp", "rkb"], { command: ["rkb", "mcp"] })),
      proposedLesson: (s) => proposedLesson(candidateOf(s)),
      proposalReport: (s) => proposalReport(reportOf(s)),
      // A broken TOML file: the line of its error, and the line of a key.
      tomlErrorLine: (s) => refused(() => parseToml(`a = 1\n${s}\nb = [`)),
      tomlKeyLine: (s) => keyLine(`[x]\n${s}\n`, ["x", "y"]),
    };
    const slow: string[] = [];
    for (const [name, fn] of Object.entries(paths)) {
      for (const pattern of RUNS) {
        try {
          expectLinear(
            `${name} on ${JSON.stringify(pattern)}`,
            (chars) => {
              const text = run(pattern, chars);
              return () => fn(text);
            },
            32 * 1024,
          );
        } catch (e) {
          slow.push((e as Error).message);
        }
      }
    }
    expect(slow).toEqual([]);
  }, 120_000);
});

/** Runs `fn`, whose refusal of broken input is expected: only the time counts. */
function refused(fn: () => unknown): void {
  try {
    fn();
  } catch {
    // a refusal with a clear error is the right answer to broken input
  }
}

/** A fixed failure whose every text (command, output, key line, fix step) is `s`. */
function candidateOf(s: string): Candidate & { fixed: FixedFailure } {
  return {
    signature: "sig",
    program: "make",
    keyLine: s,
    occurrences: 2,
    sessions: ["s1", "s2"],
    harnesses: ["pi"],
    firstSeen: "2026-11-02T10:00:00Z",
    lastSeen: "2026-11-03T10:00:00Z",
    fixed: {
      draft: {
        program: "make",
        failed: { command: `make ${s}`, exitCode: 2, keyLines: [s, s], line: 3, time: "2026-11-02T10:00:00Z" },
        attempts: 1,
        worked: { command: `make ${s}`, line: 9, time: "2026-11-02T10:01:00Z" },
        fix: [{ kind: "command", command: s, ok: true, line: 5 }],
        fixDropped: 0,
      },
      session: "s1",
      harness: "pi",
      command: `make ${s}`,
      error: s,
      order: "2026-11-02T10:00:00Z\ts1\t0000000003",
    },
  };
}

/** A run's result whose proposal, left-out entry and problem all say `s`. */
function reportOf(s: string): ProposeResult {
  return {
    branch: "rkb/proposals",
    base: "a".repeat(40),
    tip: "b".repeat(40),
    proposals: [
      {
        id: "0c93ce514e",
        path: "general/make/x.md",
        title: s,
        signature: "sig",
        occurrences: 2,
        sessions: 2,
        harnesses: ["pi"],
        first_seen: "2026-11-02T10:00:00Z",
        last_seen: "2026-11-03T10:00:00Z",
        today: { silent: true, reason: s },
        failed: s,
        key_line: s,
        worked: s,
        fix_steps: 2,
        last_steps: [s, s],
        commit: "c".repeat(40),
      },
    ],
    left_out: [{ signature: "sig2", title: s, reason: "invalid", detail: s }],
    unfixed: 0,
    too_few: 0,
    waiting: 0,
    declined: 0,
    files: 2,
    sessions: 2,
    not_sessions: 0,
    skipped_lines: 0,
    problems: [{ path: s, message: s }],
    min_sessions: 2,
  };
}
