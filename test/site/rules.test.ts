import { describe, expect, test } from "bun:test";
import { sitePath } from "../../cli/site/serve.ts";
import { admits } from "../../cli/site/sink.ts";
import { weekOf } from "../../cli/site/stats.ts";

// The small rules under the site: which request paths the viewer looks up, which labels a sink
// admits, which week a time falls in.

describe("sitePath", () => {
  const cases: [string, string | undefined][] = [
    ["http://127.0.0.1:1/", ""],
    ["http://127.0.0.1:1/lessons/5a00000001.html?x=1#top", "lessons/5a00000001.html"],
    ["http://127.0.0.1:1/tree/general/git/", "tree/general/git/"],
    ["http://127.0.0.1:1/files/general/a%20b/x.png", "files/general/a b/x.png"],
    ["http://127.0.0.1:1/../kb.toml", undefined],
    ["http://127.0.0.1:1/files/%2e%2e/kb.toml", undefined],
    ["http://127.0.0.1:1/files/.%2E/kb.toml", undefined],
    ["http://127.0.0.1:1/files/a%2fb", undefined],
    ["http://127.0.0.1:1/files/a%5c..%5cb", undefined],
    ["http://127.0.0.1:1/files/a\\b", undefined],
    ["http://127.0.0.1:1/files/%00", undefined],
    ["http://127.0.0.1:1/./index.html", undefined],
    ["http://127.0.0.1:1//etc/passwd", undefined],
    ["http://127.0.0.1:1/%E0%A4%A", undefined],
  ];
  for (const [url, path] of cases) test(`${url} → ${path ?? "refused"}`, () => expect(sitePath(url)).toBe(path));
});

describe("admits", () => {
  const web = { kind: "sink" as const, name: "web", allow: { sensitivity: ["public"] } };
  const cases: [Record<string, string>, boolean][] = [
    [{ sensitivity: "public" }, true],
    [{ sensitivity: "internal" }, false],
    [{ sensitivity: "confidential" }, false],
    [{}, false],
    [{ sensitivity: "public", team: "a" }, true],
  ];
  for (const [labels, admitted] of cases) test(`[sinks.web] ${JSON.stringify(labels)} → ${admitted}`, () => expect(admits(web, labels)).toBe(admitted));
  test("two labels must both allow", () => {
    const both = { kind: "sink" as const, name: "x", allow: { sensitivity: ["public", "internal"], team: ["a"] } };
    expect(admits(both, { sensitivity: "internal", team: "a" })).toBe(true);
    expect(admits(both, { sensitivity: "internal", team: "b" })).toBe(false);
    expect(admits(both, { sensitivity: "internal" })).toBe(false);
  });
  test("the owner sees everything", () => expect(admits({ kind: "owner" }, { sensitivity: "confidential" })).toBe(true));
});

describe("weekOf", () => {
  const cases: [string, string | undefined][] = [
    ["2026-11-02T10:00:00Z", "2026-11-02"],
    ["2026-11-08T23:59:59Z", "2026-11-02"],
    ["2026-11-09T00:00:00Z", "2026-11-09"],
    ["2026-01-01T00:00:00Z", "2025-12-29"],
    ["not a time", undefined],
  ];
  for (const [time, week] of cases) test(`${time} → ${week}`, () => expect(weekOf(time)).toBe(week));
});
