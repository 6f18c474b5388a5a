import { describe, expect, test } from "bun:test";
import { parseLine, type Unread } from "../../cli/sessions/bulk.ts";
import { claudeFormat } from "../../cli/sessions/claude.ts";
import { piFormat } from "../../cli/sessions/pi.ts";
import { seededRandom } from "../helpers.ts";

// parseLine must give what JSON.parse gives wherever the format reads, and fail exactly where
// JSON.parse fails. Long strings of every shape: escapes of each kind, quotes escaped by runs of
// backslashes, a key that is long, a string that is not valid JSON.

const long = (n: number, unit = "build step ok\n") => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
/** Everything below `content` is unread: the line's one long string may be a stand-in there. */
const contentUnread: Unread = (obj) => (obj.content === undefined ? [] : [[obj, "content"]]);
const nothingUnread: Unread = () => [];

describe("parseLine", () => {
  test("a string the format reads comes back whole, whatever its escapes", () => {
    for (const unit of ['say "hi"\n', "C:\\\\dir\\\\", "tab\there é ☃ 😀", '\\u00e9\\\\\\"', "end\\"]) {
      const text = long(40_000, unit);
      const line = JSON.stringify({ type: "x", text, content: text });
      expect(parseLine(line, nothingUnread)).toEqual(JSON.parse(line));
      const read = parseLine(line, contentUnread) as any;
      expect(read.text).toBe(text);
      expect(read.type).toBe("x");
    }
  });

  test("a string left unread keeps at least its last 300 characters", () => {
    // Written with escapes all along, as JSON in JSON is: cut where no escape can be split.
    for (const unit of ["plain text ", "\\u0001 \\u0002 ", "a\\tbcdefgh", "😀", "\u0001\u0002\t"]) {
      const text = long(50_000, unit) + "Command exited with code 2";
      const read = parseLine(JSON.stringify({ content: text }), contentUnread) as any;
      expect(read.content.length).toBeLessThan(text.length);
      expect(text.endsWith(read.content.slice(-300))).toBe(true);
    }
    // Backslashes everywhere: no place to cut, so the string is read whole.
    const dense = long(50_000, '\\"');
    expect((parseLine(JSON.stringify({ content: dense }), contentUnread) as any).content).toBe(dense);
  });

  test("broken lines fail as JSON.parse fails them", () => {
    const body = long(40_000);
    const broken = [
      `{"content":"${body}\u0001${body}"}`, // a control character inside the long string
      `{"content":"${body}\\x41${body}"}`, // an escape JSON does not know
      `{"content":"${body}\\u12G4${body}"}`,
      `{"content":"${body}`, // never closed
      `{"content":"${body}"`, // the object never closed
      `{"content":"${body}" "more":1}`,
      `{"content":"${body}\\\\"x"}`, // the quote after an escaped backslash ends the string
    ];
    for (const line of broken) {
      expect(() => JSON.parse(line)).toThrow();
      expect(() => parseLine(line, contentUnread)).toThrow();
    }
  });

  test("a long key, a long string in an array, a top-level string: as JSON.parse reads them", () => {
    const body = long(20_000, "word ");
    for (const line of [`{"${body}":1,"content":"${body}"}`, `{"content":["${body}",{"a":"${body}"}],"b":"${body}"}`, `"${body}"`, `["${body}"]`]) {
      const parsed = parseLine(line, (obj) => (obj.b !== undefined ? [[obj, "b"]] : []));
      const whole = JSON.parse(line);
      if (typeof whole !== "object" || Array.isArray(whole) || whole.b === undefined) expect(parsed).toEqual(whole);
      else expect({ ...(parsed as any), b: whole.b }).toEqual(whole);
    }
  });

  test("random lines: equal to JSON.parse outside the unread places, or both throw", () => {
    const random = seededRandom(0x5eed);
    const pieces = ['"', "\\", "\\\\", '\\"', "\\n", "\\u0041", "\\u12", "a", "é", "\u0001", "{", "}", ":", ","];
    for (let i = 0; i < 300; i++) {
      let s = "";
      while (s.length < 5000) s += random() < 0.97 ? "abcdefgh" : pieces[Math.floor(random() * pieces.length)];
      const line = `{"a":"${s}","content":"${s}","n":[1,"${s}"]}`;
      let whole: unknown;
      try {
        whole = JSON.parse(line);
      } catch {
        expect(() => parseLine(line, contentUnread)).toThrow();
        continue;
      }
      const parsed = parseLine(line, contentUnread) as any;
      expect({ ...parsed, content: (whole as any).content }).toEqual(whole);
    }
  });
});

describe("what the formats leave unread", () => {
  const output = long(100_000);
  test("pi: a quiet result's content, not a failed one's", () => {
    const result = (isError: boolean, text: string) =>
      JSON.stringify({
        type: "message",
        id: "r",
        parentId: "c",
        message: { role: "toolResult", toolCallId: "c", toolName: "bash", content: [{ type: "text", text }], isError },
      });
    expect((parseLine(result(false, output), piFormat.unread) as any).message.content[0].text.length).toBeLessThan(output.length);
    expect((parseLine(result(true, output), piFormat.unread) as any).message.content[0].text).toBe(output);
    const failed = `${output}\nCommand exited with code 1`;
    expect((parseLine(result(false, failed), piFormat.unread) as any).message.content[0].text).toBe(failed);
  });

  test("pi: an edit's arguments and the user's words are read whole; thinking is not", () => {
    const line = JSON.stringify({
      type: "message",
      id: "a",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: output },
          { type: "toolCall", id: "c", name: "write", arguments: { path: "a", content: output } },
          { type: "text", text: output },
        ],
      },
    });
    const read = parseLine(line, piFormat.unread) as any;
    expect(read.message.content[0].thinking.length).toBeLessThan(output.length);
    expect(read.message.content[1].arguments.content).toBe(output);
    expect(read.message.content[2].text).toBe(output);
  });

  test("Claude Code: its copy of a result and a quiet result are unread; a refusal's reason is read", () => {
    const entry = (isError: boolean, content: string) =>
      JSON.stringify({
        type: "user",
        uuid: "u",
        sessionId: "s",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content, is_error: isError }] },
        toolUseResult: { stdout: output },
      });
    const quiet = parseLine(entry(false, output), claudeFormat.unread) as any;
    expect(quiet.toolUseResult.stdout.length).toBeLessThan(output.length);
    expect(quiet.message.content[0].content.length).toBeLessThan(output.length);
    const refused = `The user doesn't want to proceed with this tool use. To tell you how to proceed, the user said:\n${output}`;
    expect((parseLine(entry(true, refused), claudeFormat.unread) as any).message.content[0].content).toBe(refused);
  });
});
