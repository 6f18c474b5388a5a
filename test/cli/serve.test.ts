import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { join, relative } from "node:path";
import type { Sandbox } from "../helpers.ts";
import { HIDDEN, PUBLIC, siteKb, startServe } from "../site/site-kb.ts";

// `rkb serve` over HTTP: on 127.0.0.1 only, every page of the table answers, anything else is a
// 404, a path that tries to climb out is refused, and serving writes nothing anywhere.

let box: Sandbox;
let server: Bun.Subprocess<"ignore", "pipe", "pipe">;
let base: string;
let before: Map<string, string>;

/** Every file of the sandbox (knowledge base, state, cache, config, home) with its size, time and bytes' hash. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else out.set(relative(dir, path), `${s.size} ${s.mtimeMs} ${Bun.hash(readFileSync(path))}`);
    }
  };
  walk(dir);
  return out;
}

beforeAll(async () => {
  box = await siteKb("rkb-serve");
  before = snapshot(box.dir);
  ({ url: base, proc: server } = await startServe(box));
});

afterAll(async () => {
  server?.kill("SIGINT");
  await server?.exited;
});

/** A request written by hand: fetch would tidy `/../` away before sending it. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { port, hostname } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.on("end", () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]), body: data.slice(data.indexOf("\r\n\r\n") + 4) }));
    socket.on("error", reject);
  });
}

describe("rkb serve", () => {
  test("listens on 127.0.0.1 and on no other address", async () => {
    expect(base).toStartWith("http://127.0.0.1:");
    const port = Number(new URL(base).port);
    if (existsSync("/proc/net/tcp")) {
      // The listening sockets on that port: their local address is 127.0.0.1 (0100007F), never 0.0.0.0.
      const hex = port.toString(16).toUpperCase().padStart(4, "0");
      const rows = ["/proc/net/tcp", "/proc/net/tcp6"]
        .filter(existsSync)
        .flatMap((f) => readFileSync(f, "utf8").trim().split("\n").slice(1))
        .map((l) => l.trim().split(/\s+/))
        .filter((cols) => cols[1]!.endsWith(`:${hex}`) && cols[3] === "0A");
      expect(rows.map((cols) => cols[1])).toEqual([`0100007F:${hex}`]);
    }
    const outward = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal);
    if (outward) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect(port, outward.address, () => (socket.destroy(), resolve(true)));
        socket.on("error", () => resolve(false));
      });
      expect(reached).toBe(false);
    }
  });

  test("every page answers: home, folders, search, use, review, inbox, each lesson and folder, the assets", async () => {
    const paths = [
      "",
      "index.html",
      "tree/index.html",
      "tree/general/index.html",
      "tree/general/tar/index.html",
      "tree/projects/bluefalcon/contracts/index.html",
      "search.html",
      "use.html",
      "review.html",
      "inbox.html",
      "assets/site.css",
      "assets/site.js",
      "assets/search-index.bin",
      ...[...Object.values(PUBLIC), ...Object.values(HIDDEN)].map((l) => `lessons/${l.id}.html`),
    ];
    const answers = await Promise.all(paths.map(async (p) => ({ path: p, status: (await fetch(base + p)).status })));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    // For the owner everything is there, the inbox included.
    expect(await (await fetch(`${base}lessons/${HIDDEN.confidential.id}.html`)).text()).toContain(HIDDEN.confidential.title);
    expect(await (await fetch(`${base}inbox.html`)).text()).toContain("the staging db is reset every sunday");
    expect((await fetch(`${base}assets/site.js`)).headers.get("content-type")).toStartWith("text/javascript");
  });

  test("unknown paths are 404; other methods than GET and HEAD are 405", async () => {
    for (const path of [
      "nope",
      "lessons/0000000000.html",
      "lessons/5a00000001.md",
      "tree/general/nope/index.html",
      "files/kb.toml",
      "kb.toml",
      "assets/other.js",
    ]) {
      expect({ path, status: (await fetch(base + path)).status }).toEqual({ path, status: 404 });
    }
    expect((await fetch(base, { method: "POST", body: "x" })).status).toBe(405);
    expect((await fetch(base, { method: "HEAD" })).status).toBe(200);
  });

  test("path traversal is refused, written plainly or percent-encoded", async () => {
    const kbToml = readFileSync(join(box.kb, "kb.toml"), "utf8");
    for (const path of [
      "/../kb.toml",
      "/files/../../kb.toml",
      "/%2e%2e/kb.toml",
      "/files/%2e%2e%2fkb.toml",
      "/files/..%2f..%2fkb.toml",
      "/files/general/..%5c..%5ckb.toml",
      "/lessons/%2E%2E/%2E%2E/etc/passwd",
      "/files/%00kb.toml",
      "//etc/passwd",
    ]) {
      const answer = await rawGet(path);
      expect({ path, refused: answer.status === 400 || answer.status === 404 }).toEqual({ path, refused: true });
      expect(answer.body).not.toContain(kbToml.slice(0, 40));
      expect(answer.body).not.toContain("root:x:0:0");
    }
  });

  test("serving pages writes nothing: the knowledge base, state, cache and config are as they were", async () => {
    for (const path of ["", "use.html", "review.html", "inbox.html", `lessons/${PUBLIC.tar.id}.html`, "assets/search-index.bin"])
      await (await fetch(base + path)).arrayBuffer();
    const after = snapshot(box.dir);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
    expect(changed).toEqual([]);
  });

  test("a change to the knowledge base shows on the next page", async () => {
    const { writeFileSync } = await import("node:fs");
    const file = join(box.kb, "general/cmake/cmake-zlib.md");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("# cmake cannot find zlib without ZLIB_ROOT", "# cmake cannot find zlib unless ZLIB_ROOT is set"));
    await Bun.sleep(1100);
    expect(await (await fetch(`${base}lessons/${PUBLIC.cmake.id}.html`)).text()).toContain("cmake cannot find zlib unless ZLIB_ROOT is set");
    writeFileSync(file, text);
  });

  test("Ctrl-C stops it, with exit 0", async () => {
    server.kill("SIGINT");
    expect(await server.exited).toBe(0);
  });
});
