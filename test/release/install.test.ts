// Runs install.sh against fake releases served on 127.0.0.1, laid out like GitHub's
// (<base>/latest/download/<file>, <base>/download/<tag>/<file>).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { BIN, ROOT, sandbox, type Sandbox } from "../helpers.ts";
import { TARGETS, checksumsText } from "../../scripts/release.ts";

const realBinary = readFileSync(BIN);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
/** Stand-ins for the binaries of other platforms: scripts that run here and say which file they are. */
const fake = (text: string) => Buffer.from(`#!/bin/sh\necho '${text}'\n`);

/** url path → body */
const files = new Map<string, Uint8Array>();
function publish(dir: string, assets: Record<string, Uint8Array>, sums: Record<string, string> = {}): void {
  for (const [name, bytes] of Object.entries(assets)) files.set(`${dir}/${name}`, bytes);
  const listed = Object.fromEntries(Object.entries(assets).map(([name, bytes]) => [name, sha256(bytes)]));
  files.set(`${dir}/SHA256SUMS`, Buffer.from(checksumsText({ ...listed, ...sums })));
}

const latest: Record<string, Uint8Array> = {};
for (const name of Object.keys(TARGETS)) latest[name] = name === "rkb-linux-x64" ? realBinary : fake(`fake ${name}`);
publish("/gh/releases/latest/download", latest);
publish("/gh/releases/download/v0.0.9", { ...latest, "rkb-linux-x64": fake("rkb 0.0.9 (older)") });
// A download corrupted in transit: one byte differs from what SHA256SUMS promises.
const corrupt = Buffer.from(realBinary);
corrupt[corrupt.length >> 1]! ^= 0xff;
publish("/bad/releases/latest/download", { ...latest, "rkb-linux-x64": corrupt }, { "rkb-linux-x64": sha256(realBinary) });
// SHA256SUMS that does not mention the binary at all.
files.set("/nosum/releases/latest/download/rkb-linux-x64", realBinary);
files.set("/nosum/releases/latest/download/SHA256SUMS", Buffer.from(checksumsText({ "rkb-darwin-x64": sha256(latest["rkb-darwin-x64"]!) })));

let server: ReturnType<typeof Bun.serve>;
const requested: string[] = [];
const boxes: Sandbox[] = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      requested.push(path);
      const body = files.get(path);
      return body ? new Response(body) : new Response("Not Found", { status: 404 });
    },
  });
});

afterAll(() => {
  server.stop(true);
  for (const box of boxes) rmSync(box.dir, { recursive: true, force: true });
});

/** A folder of executables to put first on PATH (fake `uname`, `sysctl`). */
function fakeTools(box: Sandbox, tools: Record<string, string>): string {
  const dir = join(box.dir, "fake-bin");
  mkdirSync(dir, { recursive: true });
  for (const [name, script] of Object.entries(tools)) writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return dir;
}

/** A PATH with every command this machine has except `missing`, to make install.sh pick its fallbacks. */
function pathWithout(box: Sandbox, missing: string[]): string {
  const dir = join(box.dir, "limited-bin");
  mkdirSync(dir, { recursive: true });
  for (const from of (process.env.PATH ?? "").split(delimiter)) {
    if (!from || !existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      if (missing.includes(name) || existsSync(join(dir, name))) continue;
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}

async function install(opts: { base?: string; args?: string[]; env?: Record<string, string>; path?: string } = {}) {
  const box = sandbox("rkb-install");
  boxes.push(box);
  const env = {
    ...box.env,
    PATH: opts.path ?? box.env.PATH!,
    RKB_DOWNLOAD_BASE: `http://127.0.0.1:${server.port}${opts.base ?? "/gh/releases"}`,
    SHELL: "/bin/bash",
    ...opts.env,
  };
  const proc = Bun.spawn(["sh", join(ROOT, "install.sh"), ...(opts.args ?? [])], {
    env,
    cwd: box.dir,
    stdin: "ignore", // not a terminal: install.sh must print its hints and never wait for an answer
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const binDir = join(box.home, ".local", "bin");
  return { box, stdout, stderr, exit, binDir };
}

describe("install.sh", () => {
  const onLinuxX64 = process.platform === "linux" && process.arch === "x64";

  test.skipIf(!onLinuxX64)("installs the latest linux-x64 binary to ~/.local/bin, and it runs", async () => {
    const r = await install();
    expect(r.stderr).toBe("");
    expect(r.exit).toBe(0);
    expect(readdirSync(r.binDir)).toEqual(["rkb"]);
    expect(readFileSync(join(r.binDir, "rkb")).equals(realBinary)).toBe(true);
    const version = Bun.spawnSync([join(r.binDir, "rkb"), "--version"]);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.toString()).toMatch(/^rkb \d+\.\d+\.\d+ \(\S+\)\n$/);
    expect(r.stdout).toContain(`Installed ${version.stdout.toString().trim()} to ${join(r.binDir, "rkb")}`);
    // Not on PATH: says how to add it, and the next commands use the full path so they work as printed.
    expect(r.stdout).toContain(`export PATH="${r.binDir}:$PATH"`);
    expect(r.stdout).toContain("~/.bashrc");
    expect(r.stdout).toContain(`${join(r.binDir, "rkb")} install pi`);
    expect(r.stdout).toContain(`${join(r.binDir, "rkb")} install omp`);
  });

  test.skipIf(!onLinuxX64)("installs a given release to $RKB_INSTALL_DIR; no PATH advice when it is on PATH", async () => {
    const box = sandbox("rkb-install-dir");
    boxes.push(box);
    const dir = join(box.dir, "tools");
    const r = await install({ args: ["0.0.9"], env: { RKB_INSTALL_DIR: dir }, path: `${dir}${delimiter}${process.env.PATH}` });
    expect(r.exit).toBe(0);
    expect(requested).toContain("/gh/releases/download/v0.0.9/rkb-linux-x64");
    expect(readFileSync(join(dir, "rkb"), "utf8")).toContain("rkb 0.0.9 (older)");
    expect(existsSync(r.binDir)).toBe(false);
    expect(r.stdout).not.toContain("export PATH");
    expect(r.stdout).toContain("  rkb install pi");
  });

  test("picks the binary from uname: Darwin arm64 → rkb-darwin-arm64", async () => {
    const box = sandbox("rkb-install-uname");
    boxes.push(box);
    const bin = fakeTools(box, { uname: `case "$1" in -s) echo Darwin ;; -m) echo arm64 ;; esac` });
    const r = await install({ path: `${bin}${delimiter}${process.env.PATH}` });
    expect(r.exit).toBe(0);
    expect(readFileSync(join(r.binDir, "rkb"), "utf8")).toContain("fake rkb-darwin-arm64");
  });

  test("an x86_64 shell under Rosetta gets the arm64 build", async () => {
    const box = sandbox("rkb-install-rosetta");
    boxes.push(box);
    const bin = fakeTools(box, {
      uname: `case "$1" in -s) echo Darwin ;; -m) echo x86_64 ;; esac`,
      sysctl: `[ "$2" = sysctl.proc_translated ] && echo 1`,
    });
    const r = await install({ path: `${bin}${delimiter}${process.env.PATH}` });
    expect(r.exit).toBe(0);
    expect(readFileSync(join(r.binDir, "rkb"), "utf8")).toContain("fake rkb-darwin-arm64");
  });

  test("Git Bash on Windows gets rkb.exe from rkb-windows-x64.exe", async () => {
    const box = sandbox("rkb-install-win");
    boxes.push(box);
    const bin = fakeTools(box, { uname: `case "$1" in -s) echo MINGW64_NT-10.0-19045 ;; -m) echo x86_64 ;; esac` });
    const r = await install({ path: `${bin}${delimiter}${process.env.PATH}` });
    expect(r.exit).toBe(0);
    expect(readdirSync(r.binDir)).toEqual(["rkb.exe"]);
    expect(readFileSync(join(r.binDir, "rkb.exe"), "utf8")).toContain("fake rkb-windows-x64.exe");
  });

  test("an unsupported processor is refused by name, nothing installed", async () => {
    const box = sandbox("rkb-install-riscv");
    boxes.push(box);
    const bin = fakeTools(box, { uname: `case "$1" in -s) echo Linux ;; -m) echo riscv64 ;; esac` });
    const r = await install({ path: `${bin}${delimiter}${process.env.PATH}` });
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("riscv64");
    expect(existsSync(r.binDir)).toBe(false);
  });

  test.skipIf(!onLinuxX64)("a corrupted download is refused with a clear message; the installed rkb is left alone", async () => {
    const box = sandbox("rkb-install-bad");
    boxes.push(box);
    const dir = join(box.dir, "tools");
    mkdirSync(dir);
    writeFileSync(join(dir, "rkb"), "previous rkb", { mode: 0o755 });
    const r = await install({ base: "/bad/releases", env: { RKB_INSTALL_DIR: dir } });
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("checksum mismatch for rkb-linux-x64");
    expect(r.stderr).toContain(sha256(realBinary));
    expect(r.stderr).toContain(sha256(corrupt));
    expect(r.stderr).toContain("nothing was installed");
    expect(r.stdout).not.toContain("Installed");
    // No new file, no staging leftovers, the old binary untouched.
    expect(readdirSync(dir)).toEqual(["rkb"]);
    expect(readFileSync(join(dir, "rkb"), "utf8")).toBe("previous rkb");
  });

  test.skipIf(!onLinuxX64)("a binary missing from SHA256SUMS is refused, nothing installed", async () => {
    const r = await install({ base: "/nosum/releases" });
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("SHA256SUMS has no entry for rkb-linux-x64");
    expect(existsSync(r.binDir)).toBe(false);
  });

  test("a release that does not exist is reported, nothing installed", async () => {
    const r = await install({ args: ["v9.9.9"] });
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("could not download");
    expect(r.stderr).toContain("v9.9.9");
    expect(existsSync(r.binDir)).toBe(false);
  });

  test.skipIf(!onLinuxX64 || !Bun.which("wget") || !Bun.which("shasum"))("works with wget and shasum when curl and sha256sum are missing", async () => {
    const box = sandbox("rkb-install-wget");
    boxes.push(box);
    const r = await install({ path: pathWithout(box, ["curl", "sha256sum"]) });
    expect(r.stderr).toBe("");
    expect(r.exit).toBe(0);
    expect(readFileSync(join(r.binDir, "rkb")).equals(realBinary)).toBe(true);
  });

  test("without curl or wget it says so and installs nothing", async () => {
    const box = sandbox("rkb-install-nodl");
    boxes.push(box);
    const r = await install({ path: pathWithout(box, ["curl", "wget"]) });
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("neither curl nor wget");
    expect(existsSync(r.binDir)).toBe(false);
  });
});
