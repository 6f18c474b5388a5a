// The MCP server's line framing: every way a pipe may cut the bytes gives the same lines.
import { expect, test } from "bun:test";
import { lines, type Line } from "../../cli/agent/mcp/server.ts";

async function* chunks(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.slice(at, cut);
    at = cut;
  }
}

const show = (l: Line) => ("tooLong" in l ? `<${l.tooLong} skipped>` : new TextDecoder().decode(l.bytes));

async function split(text: string, cuts: number[], max: number): Promise<string[]> {
  const out: string[] = [];
  for await (const l of lines(chunks(new TextEncoder().encode(text), cuts), max)) out.push(show(l));
  return out;
}

test("lines come out whole wherever the chunks are cut, long ones reported by length", async () => {
  const text = "abc\r\n\nlonger-than-ten-bytes\n0123456789\n" + "x".repeat(25) + "\nlast";
  const expected = ["abc", "", "<21 skipped>", "0123456789", "<25 skipped>", "last"];
  expect(await split(text, [], 10)).toEqual(expected);
  for (let cut = 0; cut <= text.length; cut++) expect(await split(text, [cut], 10)).toEqual(expected);
  const everyByte = Array.from({ length: text.length }, (_, i) => i);
  expect(await split(text, everyByte, 10)).toEqual(expected);
});

test("a long last line without a newline is reported, not lost", async () => {
  expect(await split("ok\n" + "y".repeat(11), [5], 10)).toEqual(["ok", "<11 skipped>"]);
});
