// Runs scripts/release.ts once into a temporary folder, then checks what a user would download:
// each file is an executable for the platform in its name, the host's one runs, SHA256SUMS is right.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers.ts";
import pkg from "../../package.json" with { type: "json" };

const outdir = mkdtempSync(join(tmpdir(), "rkb-release-"));
const names = ["rkb-darwin-arm64", "rkb-darwin-x64", "rkb-linux-arm64", "rkb-linux-x64", "rkb-windows-x64.exe"];
let printed = "";

beforeAll(() => {
  const proc = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "release.ts"), "--outdir", outdir], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  printed = proc.stdout.toString();
  if (proc.exitCode !== 0) throw new Error(`release.ts failed (${proc.exitCode}):\n${printed}\n${proc.stderr.toString()}`);
}, 600_000);

// Each binary is ~100 MB; do not leave five of them in the temp folder.
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The executable format and CPU a file is for, read from its header bytes (no `file` needed). */
function executableKind(path: string): string {
  const fd = openSync(path, "r");
  const head = Buffer.alloc(4096);
  readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  // ELF: "\x7fELF", class 2 = 64-bit, data 1 = little-endian, e_machine at 18.
  if (head.readUInt32BE(0) === 0x7f454c46) {
    const machine = ({ 62: "x86-64", 183: "aarch64" } as Record<number, string>)[head.readUInt16LE(18)];
    return `ELF${head[4] === 2 ? "64" : "32"} ${machine ?? "other"}`;
  }
  // Mach-O 64-bit little-endian: magic 0xfeedfacf, then cputype (CPU_TYPE_X86_64 / CPU_TYPE_ARM64).
  if (head.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = ({ 16777223: "x86-64", 16777228: "arm64" } as Record<number, string>)[head.readUInt32LE(4)];
    return `Mach-O64 ${cpu ?? "other"}`;
  }
  // PE: "MZ", e_lfanew at 0x3c → "PE\0\0", COFF machine, then the optional header whose magic 0x20b = PE32+.
  if (head.toString("latin1", 0, 2) === "MZ") {
    const pe = head.readUInt32LE(0x3c);
    if (head.readUInt32BE(pe) !== 0x50450000) return "MZ without PE";
    const machine = head.readUInt16LE(pe + 4) === 0x8664 ? "x86-64" : "other";
    const optional = head.readUInt16LE(pe + 24);
    return `${optional === 0x20b ? "PE32+" : optional === 0x10b ? "PE32" : "PE?"} ${machine}`;
  }
  return "unknown";
}

const expected: Record<string, string> = {
  "rkb-linux-x64": "ELF64 x86-64",
  "rkb-linux-arm64": "ELF64 aarch64",
  "rkb-darwin-x64": "Mach-O64 x86-64",
  "rkb-darwin-arm64": "Mach-O64 arm64",
  "rkb-windows-x64.exe": "PE32+ x86-64",
};

describe("scripts/release.ts", () => {
  test("makes exactly the five binaries and SHA256SUMS, and says so", () => {
    expect(readdirSync(outdir).sort()).toEqual([...names, "SHA256SUMS"].sort());
    for (const name of names) expect(printed).toContain(name);
    expect(printed).toContain("SHA256SUMS");
  });

  for (const name of names) {
    test(`${name} is ${expected[name]}`, () => {
      expect(executableKind(join(outdir, name))).toBe(expected[name]!);
    });
  }

  test("SHA256SUMS lists every binary once with its real sha256", async () => {
    const lines = readFileSync(join(outdir, "SHA256SUMS"), "utf8").trimEnd().split("\n");
    const listed = new Map(lines.map((l) => [l.slice(66), l.slice(0, 64)]));
    expect(lines.every((l) => /^[0-9a-f]{64} {2}\S+$/.test(l))).toBe(true);
    expect([...listed.keys()].sort()).toEqual(names);
    for (const name of names) {
      const hash = createHash("sha256");
      for await (const chunk of Bun.file(join(outdir, name)).stream()) hash.update(chunk);
      expect(listed.get(name)).toBe(hash.digest("hex"));
    }
  });

  test.skipIf(!Bun.which("sha256sum"))("sha256sum -c accepts SHA256SUMS", () => {
    const proc = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: outdir });
    expect(proc.stdout.toString().match(/: OK$/gm)?.length).toBe(5);
    expect(proc.exitCode).toBe(0);
  });

  // Only the binary for this machine can run here; CI and developers are on linux-x64.
  const host = `rkb-${process.platform}-${process.arch}`;
  test.skipIf(host !== "rkb-linux-x64")("rkb-linux-x64 runs: --version names package.json's version and this commit", () => {
    const gitHead = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT });
    const commit = gitHead.exitCode === 0 ? gitHead.stdout.toString().trim() : "unknown";
    const proc = Bun.spawnSync([join(outdir, "rkb-linux-x64"), "--version"], { env: { PATH: process.env.PATH ?? "" } });
    expect(proc.stdout.toString()).toBe(`rkb ${pkg.version} (${commit})\n`);
    expect(proc.exitCode).toBe(0);
  });

  test.skipIf(host !== "rkb-linux-x64")("rkb-linux-x64 runs: --help prints usage and exits 0", () => {
    const home = mkdtempSync(join(tmpdir(), "rkb-release-home-"));
    try {
      const proc = Bun.spawnSync([join(outdir, "rkb-linux-x64"), "--help"], {
        env: { PATH: process.env.PATH ?? "", HOME: home, RKB_HOME: join(home, "kb"), NO_COLOR: "1" },
        cwd: home,
      });
      expect(proc.stdout.toString()).toContain("Usage:");
      expect(proc.exitCode).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
