import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import type { Sandbox } from "../helpers.ts";
import { HIDDEN, PUBLIC, siteKb, startServe, whileServing } from "../site/site-kb.ts";

// The QA attacks on `rkb serve` (issue 24): requests written by hand (other hosts, methods, huge
// headers, encodings of `..`, slow clients) and a knowledge base that changes or breaks under it.
// The viewer shows everything to the owner, confidential lessons and the inbox included, so a page
// of another site must not be able to read it through the browser (DNS rebinding: that page's
// requests name its own host).

interface Answer {
  status: number;
  head: string;
  body: string;
}

/** One request written by hand on a fresh connection, the whole answer read. */
function raw(base: string, request: string): Promise<Answer> {
  const { port, hostname } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.on("end", () => {
      const split = data.indexOf("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]), head: data.slice(0, split), body: data.slice(split + 4) });
    });
    socket.on("error", reject);
  });
}

const get = (base: string, path: string, headers = "") =>
  raw(base, `GET ${path} HTTP/1.1\r\nHost: ${new URL(base).host}\r\n${headers}Connection: close\r\n\r\n`);

describe("rkb serve: requests written by hand", () => {
  let box: Sandbox;
  let server: Bun.Subprocess<"ignore", "pipe", "pipe">;
  let base: string;
  beforeAll(async () => {
    box = await siteKb("rkb-serve-attack");
    ({ url: base, proc: server } = await startServe(box));
  });
  afterAll(async () => {
    server?.kill("SIGINT");
    await server?.exited;
  });

  test("a request naming another host (a page of another site, DNS rebinding) is refused and shows nothing", async () => {
    const { port } = new URL(base);
    for (const host of ["evil.example", `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`, ""]) {
      const answer = await raw(base, `GET /lessons/${HIDDEN.confidential.id}.html HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect({ host, status: answer.status }).toEqual({ host, status: host ? 421 : 400 });
      expect(answer.body).not.toContain(HIDDEN.confidential.title);
    }
    // The URL rkb printed, and localhost on its port, are the viewer's own names.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const answer = await raw(base, `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
    // An absolute request target names its host too.
    const absolute = await raw(base, `GET http://evil.example:${port}/inbox.html HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`);
    expect(absolute.status).toBe(421);
    expect(absolute.body).not.toContain("staging db");
  });

  test("every method but GET and HEAD is 405; HEAD answers without a body", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"]) {
      const answer = await raw(base, `${method} /index.html HTTP/1.1\r\nHost: ${new URL(base).host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      expect({ method, status: answer.status }).toEqual({ method, status: 405 });
    }
    const head = await raw(base, `HEAD /lessons/${PUBLIC.tar.id}.html HTTP/1.1\r\nHost: ${new URL(base).host}\r\nConnection: close\r\n\r\n`);
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
  });

  test("double-encoded, mixed-case, backslashed, NUL and overlong paths are refused; the server still answers", async () => {
    const kbToml = readFileSync(join(box.kb, "kb.toml"), "utf8").slice(0, 40);
    const paths = [
      "/%252e%252e/kb.toml",
      "/files/%252e%252e%252fkb.toml",
      "/files/%2E%2e/%2e%2E/kb.toml",
      "/files/general\\..\\..\\kb.toml",
      "/files/..\\kb.toml",
      "/files/%c0%ae%c0%ae/kb.toml",
      "/files/kb.toml%00.png",
      "/files/%00",
      "/%",
      "/%zz",
      `/${"a/".repeat(20_000)}index.html`,
      `/tree/${"general/".repeat(5_000)}index.html`,
      `/lessons/${"5".repeat(100_000)}.html`,
    ];
    for (const path of paths) {
      const answer = await get(base, path);
      expect({ path: path.slice(0, 60), refused: answer.status >= 400 && answer.status < 500 }).toEqual({ path: path.slice(0, 60), refused: true });
      expect(answer.body).not.toContain(kbToml);
    }
    expect((await get(base, "/")).status).toBe(200);
  });

  test("huge headers are refused and the server goes on", async () => {
    const answer = await get(base, "/", `X-Big: ${"a".repeat(1 << 20)}\r\n`);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    const many = await get(base, "/", Array.from({ length: 5_000 }, (_, i) => `X-H${i}: v\r\n`).join(""));
    expect(many.status).toBeGreaterThanOrEqual(400);
    expect((await get(base, "/")).status).toBe(200);
  });

  test("slow clients that never finish their request do not stop it answering others", async () => {
    const { port, hostname } = new URL(base);
    const slow: Socket[] = [];
    for (let i = 0; i < 50; i++) {
      const socket = connect(Number(port), hostname);
      socket.on("error", () => {});
      socket.write(`GET / HTTP/1.1\r\nHost: ${new URL(base).host}\r\nX-Slow: `);
      slow.push(socket);
    }
    await Bun.sleep(200);
    for (const socket of slow) socket.write("a");
    const answer = await get(base, `/lessons/${PUBLIC.tar.id}.html`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(PUBLIC.tar.title);
    for (const socket of slow) socket.destroy();
  });
});

describe("rkb serve: the knowledge base changes and breaks under it", () => {
  test("a broken kb.toml gives a page that names the file and the fix (no stack, no source), and it recovers when fixed", async () => {
    const box = await siteKb("rkb-serve-attack");
    await whileServing(box, async (url) => {
      const toml = join(box.kb, "kb.toml");
      const good = readFileSync(toml, "utf8");
      // A lesson changes too: once kb.toml is fixed, its page must show the new text.
      const tar = join(box.kb, "general/tar/tar-symlink.md");
      const tarText = readFileSync(tar, "utf8");
      writeFileSync(toml, `${good}\n[[[\n`);
      writeFileSync(tar, `${tarText}\nOne more line.\n`);
      await Bun.sleep(1100);
      const broken = await get(url, "/");
      expect(broken.status).toBe(500);
      expect(broken.body).toContain("kb.toml");
      expect(broken.body).toContain("fix kb.toml");
      expect({ script: broken.body.includes("<script"), source: /\$bunfs|chunk-|stack/.test(broken.body) }).toEqual({ script: false, source: false });
      writeFileSync(toml, good);
      await Bun.sleep(1100);
      const fixed = await get(url, `/lessons/${PUBLIC.tar.id}.html`);
      expect(fixed.status).toBe(200);
      expect(fixed.body).toContain("One more line.");
      // A lesson deleted: its page goes; the knowledge base moved away: the pages still answer.
      rmSync(tar);
      await Bun.sleep(1100);
      expect((await get(url, `/lessons/${PUBLIC.tar.id}.html`)).status).toBe(404);
      renameSync(box.kb, `${box.kb}-moved`);
      await Bun.sleep(1100);
      const gone = await get(url, "/");
      expect(gone.status).toBeLessThan(600);
      expect(/\$bunfs|chunk-/.test(gone.body)).toBe(false);
      renameSync(`${box.kb}-moved`, box.kb);
      await Bun.sleep(1100);
      expect((await get(url, "/")).status).toBe(200);
    });
  }, 30_000);

  test("a change to kb.toml alone is seen on the next request", async () => {
    const box = await siteKb("rkb-serve-attack");
    await whileServing(box, async (url) => {
      const toml = join(box.kb, "kb.toml");
      const good = readFileSync(toml, "utf8");
      expect((await get(url, "/")).status).toBe(200);
      writeFileSync(toml, `${good}\n[[[\n`);
      await Bun.sleep(1100);
      expect((await get(url, "/")).status).toBe(500);
      writeFileSync(toml, good);
      await Bun.sleep(1100);
      expect((await get(url, "/")).status).toBe(200);
    });
  }, 30_000);
});
