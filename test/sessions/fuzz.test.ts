import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSession } from "../../cli/sessions/reader.ts";

// Thousands of damaged copies of the fixture sessions: the reader must never throw, must report
// every line it cannot use at its line number, and must never drop an undamaged entry.

const FIXTURES = join(import.meta.dir, "../fixtures/sessions");
const VARIANTS_PER_FIXTURE = 750;
const tmp = mkdtempSync(join(tmpdir(), "rkb-fuzz-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Small seeded PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Label = "orig" | "bad" | "damaged";
interface Line {
  bytes: Buffer;
  label: Label;
}

function garbage(rand: () => number): Buffer {
  const kinds = [
    () => Buffer.from("#not json " + Math.floor(rand() * 1e9)),
    () => Buffer.from([0x23, 0xff, 0xfe, 0xc3, 0x28, 0x7b]), // invalid UTF-8
    () => Buffer.from('{"type":"mystery_' + Math.floor(rand() * 1000) + '","id":"00"}'),
    () => Buffer.from(JSON.stringify([1, "two", null])),
    () => Buffer.from('"just a string"'),
    () => Buffer.from('{"type":"message","message":{"role":"user","content":"unterminated'),
    () => Buffer.from([0x23, ...Array.from({ length: 20 }, () => 0x80 + Math.floor(rand() * 0x7f))]),
  ];
  return kinds[Math.floor(rand() * kinds.length)]!();
}

function damage(lines: Line[], rand: () => number): { lines: Line[]; truncated: boolean } {
  const out = lines.map((l) => ({ ...l }));
  let truncated = false;
  const ops = 1 + Math.floor(rand() * 4);
  for (let k = 0; k < ops; k++) {
    const i = Math.floor(rand() * out.length);
    switch (Math.floor(rand() * 7)) {
      case 0: // insert a line that cannot be an entry
        out.splice(i, 0, { bytes: garbage(rand), label: "bad" });
        break;
      case 1: // delete a line (breaks parent links, drops a header)
        if (out.length > 1) out.splice(i, 1);
        break;
      case 2: // duplicate a line
        out.splice(i, 0, { ...out[i]! });
        break;
      case 3: {
        // overwrite a byte
        const b = Buffer.from(out[i]!.bytes);
        if (b.length) b[Math.floor(rand() * b.length)] = [0x00, 0x22, 0x7d, 0xff, 0x41][Math.floor(rand() * 5)]!;
        out[i] = { bytes: b, label: "damaged" };
        break;
      }
      case 4: {
        // cut a line short
        const b = out[i]!.bytes;
        out[i] = { bytes: b.subarray(0, Math.floor(rand() * b.length)), label: "damaged" };
        break;
      }
      case 5: {
        // swap two lines (order, not content, changes)
        const j = Math.floor(rand() * out.length);
        [out[i], out[j]] = [out[j]!, out[i]!];
        break;
      }
      case 6:
        truncated = true;
        break;
    }
  }
  if (truncated && out.length) {
    const last = out[out.length - 1]!;
    out[out.length - 1] = { bytes: last.bytes.subarray(0, Math.floor(rand() * last.bytes.length)), label: "damaged" };
  }
  return { lines: out, truncated };
}

test(`${VARIANTS_PER_FIXTURE} damaged variants of each fixture never crash the reader and every skipped line is reported`, async () => {
  let variants = 0;
  let skippedTotal = 0;
  for (const name of readdirSync(FIXTURES)) {
    const original: Line[] = readFileSync(join(FIXTURES, name))
      .toString()
      .trimEnd()
      .split("\n")
      .map((l) => ({ bytes: Buffer.from(l), label: "orig" as Label }));
    const rand = rng(name.length * 7919);
    for (let v = 0; v < VARIANTS_PER_FIXTURE; v++) {
      const { lines, truncated } = damage(original, rand);
      const path = join(tmp, `${name}.${v}`);
      const parts = lines.flatMap((l, i) => (i < lines.length - 1 || !truncated ? [l.bytes, Buffer.from("\n")] : [l.bytes]));
      writeFileSync(path, Buffer.concat(parts));
      const r = await readSession(path);
      variants++;
      skippedTotal += r.skipped.length;
      const skippedAt = new Set(r.skipped.map((s) => s.line));
      const where = `${name} variant ${v}`;
      expect(skippedAt.size, where).toBe(r.skipped.length);
      lines.forEach((l, i) => {
        const blank = l.bytes.toString("latin1").trim() === "";
        if (l.label === "bad") expect(skippedAt.has(i + 1), `${where}: inserted bad line ${i + 1} not reported`).toBe(true);
        if (l.label === "orig") expect(skippedAt.has(i + 1), `${where}: intact line ${i + 1} was skipped`).toBe(false);
        if (blank) expect(skippedAt.has(i + 1), `${where}: blank line ${i + 1} reported`).toBe(false);
        if (l.label !== "orig" && !blank) {
          // A damaged line is either read as an entry or reported; it never vanishes silently.
          let parses = false;
          try {
            new TextDecoder("utf-8", { fatal: true }).decode(l.bytes);
            parses = typeof JSON.parse(l.bytes.toString()) === "object";
          } catch {}
          if (!parses) expect(skippedAt.has(i + 1), `${where}: unparseable line ${i + 1} not reported`).toBe(true);
        }
      });
      for (const s of r.skipped) expect(s.line >= 1 && s.line <= lines.length, where).toBe(true);
      rmSync(path);
    }
  }
  expect(variants).toBe(VARIANTS_PER_FIXTURE * readdirSync(FIXTURES).length);
  expect(skippedTotal).toBeGreaterThan(variants / 2);
});
