import { findTool, TOOL_NAMES, TOOLS, toolDefinition, type ToolHost } from "../tools/schemas.ts";

// The Model Context Protocol over stdio: newline-delimited JSON-RPC 2.0, one message a line. The
// server answers requests one at a time, in order, and decides nothing about tools itself: tools/list
// serves the schemas `rkb tools` prints, tools/call hands the arguments to the tool runner it was
// given. Nothing a client sends ends the server: a bad line gets an error reply and the next line is
// read; only the end of the input ends it.

/** Newest first. A client asking for another version gets the newest, and may then disconnect. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/**
 * The longest request line read. The largest real request is an rkb_edit carrying one lesson
 * (lint caps a lesson at 150 lines); a longer line is dropped unread, so memory stays bounded.
 */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export const ERROR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 } as const;

/** What running one tool gives: the command's exit code and its TOON text. */
export interface ToolResult {
  exit: number;
  text: string;
}
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

export interface ServerOptions {
  callTool: CallTool;
  /** Where tools/list reads each tool's parameters (the same as the tool runner's). */
  host: Pick<ToolHost, "toolInput">;
  version: string;
  instructions: string;
}

type Id = string | number | null;
export type Reply = { jsonrpc: "2.0"; id: Id; result: unknown } | { jsonrpc: "2.0"; id: Id; error: { code: number; message: string } };

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const fail = (id: Id, code: number, message: string): Reply => ({ jsonrpc: "2.0", id, error: { code, message } });

export function createServer(opts: ServerOptions) {
  // Built on the first tools/list.
  let tools: unknown[] | undefined;
  const listTools = () =>
    (tools ??= TOOLS.map((tool) => toolDefinition(tool, opts.host)).map((t) => ({
      name: t.name,
      title: t.label,
      description: t.description,
      inputSchema: t.inputSchema,
    })));

  const methods: Record<string, (params: Record<string, unknown>) => Promise<unknown> | unknown> = {
    initialize: (params) => {
      const asked = params.protocolVersion;
      const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
      return {
        protocolVersion,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "rkb", version: opts.version },
        instructions: opts.instructions,
      };
    },
    ping: () => ({}),
    "tools/list": () => ({ tools: listTools() }),
    "tools/call": async (params) => {
      const name = params.name;
      if (typeof name !== "string") throw new RpcError(ERROR.invalidParams, "tools/call needs `name`, the tool to run");
      if (!findTool(name)) throw new RpcError(ERROR.invalidParams, `unknown tool \`${name}\`; tools/list lists ${TOOL_NAMES.join(", ")}`);
      const args = params.arguments ?? {};
      if (typeof args !== "object" || args === null || Array.isArray(args))
        throw new RpcError(ERROR.invalidParams, "tools/call `arguments` must be a JSON object");
      const out = await opts.callTool(name, args as Record<string, unknown>);
      // Exit 3 (needs the user) is an answer the model acts on, not a failed call.
      return { content: [{ type: "text", text: out.text }], isError: out.exit === 1 || out.exit === 2 };
    },
  };

  /** The reply to one parsed message, or undefined for a notification or a client's response. */
  async function handleMessage(message: unknown): Promise<Reply | undefined> {
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      return fail(
        null,
        ERROR.invalidRequest,
        Array.isArray(message) ? "batches are not part of MCP; send one message a line" : "a message must be a JSON object",
      );
    }
    const m = message as Record<string, unknown>;
    const hasId = "id" in m;
    const id: Id = typeof m.id === "string" || typeof m.id === "number" ? m.id : null;
    if (m.jsonrpc !== "2.0") return fail(id, ERROR.invalidRequest, 'the message lacks "jsonrpc": "2.0"');
    if (typeof m.method !== "string") {
      // A response to a request of ours; the server sends none, so there is nothing to match.
      if ("result" in m || "error" in m) return undefined;
      return fail(id, ERROR.invalidRequest, "the message has no `method`");
    }
    if (!hasId) return undefined; // a notification: never answered
    if (id === null) return fail(null, ERROR.invalidRequest, "a request id must be a string or a number");
    const method = methods[m.method];
    if (!method) return fail(id, ERROR.methodNotFound, `unknown method \`${m.method}\`; rkb serves ${Object.keys(methods).join(", ")}`);
    const params = m.params ?? {};
    if (typeof params !== "object" || params === null || Array.isArray(params)) return fail(id, ERROR.invalidParams, "`params` must be a JSON object");
    try {
      return { jsonrpc: "2.0", id, result: await method(params as Record<string, unknown>) };
    } catch (e) {
      if (e instanceof RpcError) return fail(id, e.code, e.message);
      return fail(id, ERROR.internal, `rkb failed on ${m.method}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const decoder = new TextDecoder("utf-8", { fatal: true });

  /** The reply to one line as read from the client (without its newline). */
  async function handleLine(bytes: Uint8Array): Promise<Reply | undefined> {
    let message: unknown;
    try {
      message = JSON.parse(decoder.decode(bytes));
    } catch (e) {
      const why = e instanceof TypeError ? "the line is not valid UTF-8" : `the line is not valid JSON (${e instanceof Error ? e.message : String(e)})`;
      return fail(null, ERROR.parse, why);
    }
    return handleMessage(message);
  }

  return { handleMessage, handleLine };
}

export type Line = { bytes: Uint8Array } | { tooLong: number };

/**
 * Splits a byte stream into lines of at most `max` bytes, in one pass over the bytes. A longer line
 * is skipped without being held (its length is reported), so no input grows memory past `max`.
 * A last line without a newline still counts; a trailing `\r` is dropped.
 */
export async function* lines(input: AsyncIterable<Uint8Array>, max = MAX_REQUEST_BYTES): AsyncGenerator<Line> {
  let parts: Uint8Array[] = [];
  let held = 0;
  let skipping = false;
  let skipped = 0;
  const take = (): Line => {
    if (skipping) {
      const length = skipped;
      skipping = false;
      skipped = 0;
      return { tooLong: length };
    }
    let bytes = parts.length === 1 ? parts[0]! : new Uint8Array(held);
    if (parts.length > 1) {
      let at = 0;
      for (const p of parts) {
        bytes.set(p, at);
        at += p.length;
      }
    }
    parts = [];
    held = 0;
    if (bytes.length && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
    return { bytes };
  };
  const hold = (piece: Uint8Array) => {
    if (skipping) skipped += piece.length;
    else if (held + piece.length > max) {
      skipping = true;
      skipped = held + piece.length;
      parts = [];
      held = 0;
    } else if (piece.length) {
      parts.push(piece.slice()); // the reader may reuse its chunk
      held += piece.length;
    }
  };
  for await (const chunk of input) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      hold(chunk.subarray(start, nl));
      yield take();
      start = nl + 1;
    }
    hold(chunk.subarray(start));
  }
  if (skipping || held) yield take();
}

/** Serves one client until its input ends; `write` sends one reply line. */
export async function serve(input: AsyncIterable<Uint8Array>, write: (line: string) => Promise<unknown>, opts: ServerOptions): Promise<void> {
  const server = createServer(opts);
  for await (const line of lines(input)) {
    let reply: Reply | undefined;
    if ("tooLong" in line) {
      reply = fail(null, ERROR.parse, `request line of ${line.tooLong} bytes skipped: rkb reads lines up to ${MAX_REQUEST_BYTES} bytes`);
    } else {
      if (isBlank(line.bytes)) continue;
      reply = await server.handleLine(line.bytes);
    }
    if (reply) await write(JSON.stringify(reply) + "\n");
  }
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}
