// `rkb mcp` on the compiled binary: through the official MCP client (@modelcontextprotocol/sdk), and
// with raw JSON lines for what a well-behaved client never sends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, rkb, sandbox, type Sandbox } from "../helpers.ts";

const LESSON = `---
type: pitfall
verified_how: ran
tags:
  - cmake
---

# cmake cannot find zlib on the build machine

## Symptom
\`cmake ..\` fails with \`Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\`.

## Cause
zlib is installed under /opt/zlib, outside cmake's search path.

## Fix
Pass \`-DZLIB_ROOT=/opt/zlib\` to cmake.

## Evidence
With \`-DZLIB_ROOT=/opt/zlib\` the configure step passed.
`;

let box: Sandbox;
let lessonId: string;

beforeAll(async () => {
  box = sandbox("rkb-mcp");
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  const added = await rkb(["add", "--topic", "cmake", "--format", "json"], { env: box.env, stdin: LESSON });
  expect(added.exit).toBe(0);
  lessonId = added.json().id;
});

const text = (result: any): string => result.content.map((c: any) => c.text).join("");
/** The lesson ids of a search result's TOON rows (`results[N]{id,…}:` then one indented row each). */
const resultIds = (toon: string): string[] =>
  [...(/^results\[\d+\][^\n]*\n((?: {2}[^\n]*\n)*)/m.exec(toon + "\n")?.[1] ?? "").matchAll(/^ {2}([^,]+),/gm)].map((m) => m[1]!);
const field = (toon: string, key: string) => new RegExp(`^${key}: (.*)$`, "m").exec(toon)?.[1];

describe("rkb mcp with the official MCP client", () => {
  let client: Client;
  let transport: StdioClientTransport;

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: BIN, args: ["mcp"], env: box.env, cwd: box.home, stderr: "pipe" });
    client = new Client({ name: "rkb-test", version: "1.0.0" });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  test("initialize names the server, its tools capability and instructions", () => {
    // connect() refuses a server whose protocol version the SDK does not support.
    expect(client.getServerVersion()).toEqual({ name: "rkb", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toContain("lessons-learned knowledge base");
  });

  test("tools/list serves the schemas `rkb tools` prints", async () => {
    const listed = await client.listTools();
    const printed = (await rkb(["tools", "--format", "json"], { env: box.env })).json().tools;
    expect(listed.tools.map((t) => t.name)).toEqual(printed.map((t: any) => t.name));
    for (const [i, t] of listed.tools.entries()) {
      expect(t.inputSchema).toEqual(printed[i].inputSchema);
      expect(t.description).toBe(printed[i].description);
    }
  });

  test("tools/call runs the tool and answers in the TOON `rkb tool` prints", async () => {
    const result = await client.callTool({ name: "rkb_search", arguments: { query: "Could NOT find ZLIB" } });
    expect(result.isError).toBe(false);
    const viaTool = await rkb(["tool", "rkb_search"], { env: box.env, stdin: JSON.stringify({ query: "Could NOT find ZLIB" }), cwd: box.home });
    expect(text(result)).toBe(viaTool.stdout.trimEnd());
    expect(resultIds(text(result))).toEqual([lessonId]);
  });

  test("a tool error is a result with isError, which the model can read and correct", async () => {
    const wrongArgument = await client.callTool({ name: "rkb_search", arguments: { words: "zlib" } });
    expect(wrongArgument.isError).toBe(true);
    expect(text(wrongArgument)).toContain("`words` is not an argument of rkb_search");
    const missing = await client.callTool({ name: "rkb_show", arguments: { id: "p-000000" } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("code: not_found");
  });

  test("an unknown tool is a protocol error", async () => {
    await expect(client.callTool({ name: "rkb_nope", arguments: {} })).rejects.toThrow(/unknown tool `rkb_nope`/);
  });

  test("ping", async () => {
    expect(await client.ping()).toEqual({});
  });

  test("the index the server holds follows writes through the server and edits outside it", async () => {
    const search = async (query: string) => resultIds(text(await client.callTool({ name: "rkb_search", arguments: { query } })));
    expect(await search("pnpm lockfile")).toEqual([]);
    const added = await client.callTool({
      name: "rkb_add",
      arguments: {
        type: "pitfall",
        title: "pnpm install fails on an outdated lockfile in CI",
        topic: "pnpm",
        symptom: "`pnpm install --frozen-lockfile` fails with `ERR_PNPM_OUTDATED_LOCKFILE`.",
        cause: "package.json changed without running pnpm install.",
        fix: "Run `pnpm install` locally and commit pnpm-lock.yaml.",
        evidence: "After committing the lockfile the CI install passed.",
      },
    });
    expect(added.isError).toBe(false);
    const newId = field(text(added), "id")!;
    expect(await search("pnpm lockfile")).toEqual([newId]);

    // An edit in place by another process (an editor, git pull) shows in the next call.
    const shown = (await rkb(["show", lessonId, "--format", "json"], { env: box.env })).json();
    const file = join(box.kb, shown.path);
    writeFileSync(file, readFileSync(file, "utf8").replace("cmake cannot find zlib on the build machine", "cmake cannot find zlib, a quokka story"));
    expect(await search("quokka")).toEqual([lessonId]);
  });
});

/** A raw client: writes bytes to `rkb mcp`, reads one reply line at a time. */
function rawServer(env: Record<string, string>) {
  const proc = Bun.spawn([BIN, "mcp"], { env, cwd: env.HOME, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let buffered = "";
  const decoder = new TextDecoder();
  return {
    proc,
    send(data: string | Uint8Array) {
      proc.stdin.write(data);
      proc.stdin.flush();
    },
    async reply(): Promise<any> {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`rkb mcp closed its output (exit ${await proc.exited}): ${await new Response(proc.stderr).text()}`);
        buffered += decoder.decode(value, { stream: true });
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return JSON.parse(line);
    },
    /** Closes stdin and returns the exit code and whatever output was still unread. */
    async end(): Promise<{ exit: number; rest: string }> {
      proc.stdin.end();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
      }
      return { exit: await proc.exited, rest: buffered };
    },
  };
}

const request = (id: number | string, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }) + "\n";

describe("rkb mcp with raw JSON lines", () => {
  test("initialize echoes a supported version and offers the newest for any other", async () => {
    const s = rawServer(box.env);
    for (const [asked, got] of [
      ["2024-11-05", "2024-11-05"],
      ["2025-06-18", "2025-06-18"],
      ["1999-01-01", LATEST_PROTOCOL_VERSION],
      [undefined, LATEST_PROTOCOL_VERSION],
    ]) {
      s.send(request(1, "initialize", { protocolVersion: asked, capabilities: {}, clientInfo: { name: "raw", version: "0" } }));
      const r = await s.reply();
      expect(r.result.protocolVersion).toBe(got);
      expect(r.result.capabilities).toEqual({ tools: { listChanged: false } });
    }
    expect((await s.end()).exit).toBe(0);
  });

  test("notifications and responses get no reply; errors carry the JSON-RPC codes; the server goes on", async () => {
    const s = rawServer(box.env);
    s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    s.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}\n');
    s.send('{"jsonrpc":"2.0","id":99,"result":{}}\n');
    s.send(request("a", "ping"));
    expect(await s.reply()).toEqual({ jsonrpc: "2.0", id: "a", result: {} });
    s.send(request(2, "resources/list"));
    expect((await s.reply()).error.code).toBe(-32601);
    s.send("{not json\n");
    expect(await s.reply()).toMatchObject({ id: null, error: { code: -32700 } });
    s.send(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    expect(await s.reply()).toMatchObject({ id: null, error: { code: -32700, message: expect.stringContaining("UTF-8") } });
    s.send('[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n');
    expect((await s.reply()).error.code).toBe(-32600);
    s.send('{"id":4,"method":"ping"}\n');
    expect(await s.reply()).toMatchObject({ id: 4, error: { code: -32600 } });
    s.send(request(5, "tools/call", { arguments: {} }));
    expect(await s.reply()).toMatchObject({ id: 5, error: { code: -32602 } });
    s.send(request(6, "tools/call", { name: "rkb_search", arguments: "zlib" }));
    expect(await s.reply()).toMatchObject({ id: 6, error: { code: -32602 } });
    s.send("\n   \r\n");
    // One request written in pieces, with a CRLF ending.
    const split = request(7, "ping").replace("\n", "\r\n");
    s.send(split.slice(0, 10));
    await Bun.sleep(20);
    s.send(split.slice(10));
    expect(await s.reply()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    const { exit, rest } = await s.end();
    expect(exit).toBe(0);
    expect(rest).toBe(""); // nothing answered the notifications
  });

  test("a huge line is skipped without being held, and the next request is answered", async () => {
    const s = rawServer(box.env);
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "rkb_note", arguments: { text: "x".repeat(6 * 1024 * 1024) } },
    });
    // Written in 64 KB pieces, as a pipe delivers it.
    for (let at = 0; at < huge.length; at += 65536) s.send(huge.slice(at, at + 65536));
    s.send("\n");
    s.send(request(2, "ping"));
    const skipped = await s.reply();
    expect(skipped).toMatchObject({ id: null, error: { code: -32700 } });
    expect(skipped.error.message).toContain(`${huge.length} bytes`);
    expect(await s.reply()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    // Nothing of it reached the inbox.
    expect((await rkb(["inbox", "--format", "json"], { env: box.env })).json().items ?? []).toEqual([]);
    // A last request without a newline is still answered when the input ends.
    s.send(request(3, "ping").trimEnd());
    const { exit, rest } = await s.end();
    expect(exit).toBe(0);
    expect(JSON.parse(rest)).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  test("deeply nested arguments are an error reply, not a crash", async () => {
    const s = rawServer(box.env);
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rkb_search","arguments":{"query":${deep}}}}\n`);
    const r = await s.reply();
    expect(r.id).toBe(1);
    expect(r.result.isError).toBe(true);
    expect(r.result.content[0].text).toContain("`query` of rkb_search must be a string");
    s.send(request(2, "ping"));
    expect(await s.reply()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect((await s.end()).exit).toBe(0);
  });
});
