// 10,000 damaged session files through the compiled binary in one `rkb extract` run: no file may
// crash it (a crash shows as a problem or a non-zero exit), and every line a damage inserted that
// cannot be an entry is reported as skipped, with its file and line number.
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox, seededRandom } from "../helpers.ts";

const FILES = 10_000;
const FIXTURES = join(import.meta.dir, "../fixtures/sessions");

// Lines that can never be a session entry, whatever is around them.
const BAD: ((r: () => number) => Buffer)[] = [
  (r) => Buffer.from(`not json ${Math.floor(r() * 1e9)}`),
  () => Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28]), // `{` then invalid UTF-8
  () => Buffer.from("[1,2,3]"),
  () => Buffer.from("\0\0\0{"),
  () => Buffer.from('{"type":"message","message":{"role":"user","content":"unterminated'),
  (r) => Buffer.from("x".repeat(1 + Math.floor(r() * 100_000))),
  () => Buffer.from('"a string"'),
  () => Buffer.from("nul\0inside"),
];

/** Bytes that damage a line in place: NUL, quote, brace, invalid UTF-8. */
const FLIPS = [0x00, 0x22, 0x7d, 0xff, 0x5c];

function damaged(original: Buffer[], r: () => number): { bytes: Buffer; badLines: number[] } {
  const lines = original.map((b) => ({ bytes: b, bad: false }));
  for (let ops = 1 + Math.floor(r() * 4); ops > 0; ops--) {
    const at = Math.floor(r() * lines.length);
    const op = Math.floor(r() * 4);
    if (op === 0) lines.splice(at, 0, { bytes: BAD[Math.floor(r() * BAD.length)]!(r), bad: true });
    else if (op === 1 && lines[at]) {
      const b = Buffer.from(lines[at]!.bytes);
      if (b.length) b[Math.floor(r() * b.length)] = FLIPS[Math.floor(r() * FLIPS.length)]!;
      lines[at] = { bytes: b, bad: false }; // may or may not still parse: only must not crash
    } else if (op === 2 && lines[at]) lines[at] = { bytes: lines[at]!.bytes.subarray(0, Math.floor(r() * lines[at]!.bytes.length)), bad: false };
    else if (lines.length > 1) lines.splice(at, 1);
  }
  const badLines = lines.flatMap((l, i) => (l.bad ? [i + 1] : []));
  return { bytes: Buffer.concat(lines.flatMap((l) => [l.bytes, Buffer.from("\n")])), badLines };
}

test(`${FILES.toLocaleString("en")} damaged session files: no crash, every bad line reported`, async () => {
  const box = sandbox("rkb-damaged");
  const dir = join(box.dir, "sessions");
  mkdirSync(dir);
  const sources = readdirSync(FIXTURES).map((name) =>
    readFileSync(join(FIXTURES, name))
      .toString()
      .trimEnd()
      .split("\n")
      .map((l) => Buffer.from(l)),
  );
  const expected = new Map<string, number[]>();
  for (let n = 0; n < FILES; n++) {
    const { bytes, badLines } = damaged(sources[n % sources.length]!, seededRandom(n + 1));
    const file = join(dir, `s${n}.jsonl`);
    writeFileSync(file, bytes);
    if (badLines.length) expected.set(file, badLines);
  }
  expect(expected.size).toBeGreaterThan(FILES / 3); // the damage is real

  const run = await rkb(["extract", dir, "--dry-run", "--format", "json"], { env: box.env });
  expect(run.stderr).not.toContain("bug in rkb");
  expect(run.exit).toBe(0);
  const summary = run.json();
  expect(summary.problems).toEqual([]);
  expect(summary.files).toHaveLength(FILES);
  expect(summary.sessions + summary.not_sessions + (summary.empty ?? 0)).toBe(FILES);

  const reported = new Set<string>(summary.skipped.map((s: { file: string; line: number }) => `${s.file}:${s.line}`));
  const missed: string[] = [];
  for (const [file, lines] of expected) for (const line of lines) if (!reported.has(`${file}:${line}`)) missed.push(`${file}:${line}`);
  expect(missed).toEqual([]);
  for (const s of summary.skipped) expect(s.reason.length).toBeGreaterThan(0);
}, 60_000);
