// The two glob dialects of cli/base/glob.ts: they differ on purpose, and each is tested as what it is.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPathGlob, pathGlobFiles, wildcardMatches } from "../cli/base/glob.ts";

describe("wildcard (host names, `when` values)", () => {
  test("`*` matches any run, `/` included; `?` one character; classes; the whole value", () => {
    expect(wildcardMatches("orion*", "orion12.cluster")).toBe(true);
    expect(wildcardMatches("feature/*", "feature/a/b")).toBe(true);
    expect(wildcardMatches("1.14.?", "1.14.3")).toBe(true);
    expect(wildcardMatches("node[0-9]", "node7")).toBe(true);
    expect(wildcardMatches("node[!0-9]", "node7")).toBe(false);
    expect(wildcardMatches("orion", "orion12")).toBe(false);
    expect(wildcardMatches("1.14", "1x14")).toBe(false);
  });
});

describe("path glob (session files for extract and eval --replay)", () => {
  const dir = mkdtempSync(join(tmpdir(), "rkb-glob-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of ["a.jsonl", "sub/b.jsonl", "sub/deep/c.jsonl", "sub/notes.txt"]) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), "");
  }
  const names = (pattern: string) => [...pathGlobFiles(pattern, dir)].map((p) => p.slice(dir.length + 1)).sort();

  test("`*` stays inside one folder, `**` crosses folders", () => {
    expect(names("*.jsonl")).toEqual(["a.jsonl"]);
    expect(names("sub/*.jsonl")).toEqual(["sub/b.jsonl"]);
    expect(names("**/*.jsonl")).toEqual(["a.jsonl", "sub/b.jsonl", "sub/deep/c.jsonl"]);
  });

  test("a path is a glob when it has a wildcard", () => {
    expect(isPathGlob("sessions/**/*.jsonl")).toBe(true);
    expect(isPathGlob("sessions/x.jsonl")).toBe(false);
  });
});
