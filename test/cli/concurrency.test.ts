import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseLesson } from "../../cli/lesson/lesson.ts";
import { gitIn, rkb, sandbox } from "../helpers.ts";

const lesson = (n: number) => `---
type: fact
verified_how: read
tags:
  - concurrency
---

# Fact number ${n} about parallel writers

## Statement
Writer ${n} wrote this lesson.

## Evidence
Written by process ${n} of 8.
`;

test("8 concurrent `rkb add` processes: 8 lessons, 8 commits, no corrupt file", async () => {
  const box = sandbox();
  await rkb(["init"], { env: box.env });
  const runs = await Promise.all(
    Array.from({ length: 8 }, (_, i) => rkb(["add", "--topic", "parallel", "--format", "json"], { env: box.env, stdin: lesson(i) })),
  );
  for (const r of runs) expect(r.exit).toBe(0);
  const ids = runs.map((r) => r.json().id);
  expect(new Set(ids).size).toBe(8);
  const subjects = gitIn(box.kb, box.env, "log", "--format=%s").trim().split("\n");
  expect(subjects.length).toBe(9);
  expect(subjects.filter((s) => s.startsWith("add(general/parallel): ")).length).toBe(8);
  for (const r of runs) {
    const { path, id } = r.json();
    const l = parseLesson(readFileSync(join(box.kb, path), "utf8"), path);
    expect(l.id).toBe(id);
    expect(l.sections.get("Statement")).toMatch(/^Writer \d wrote this lesson\.$/);
  }
  expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  expect((await rkb(["lint", "--format", "json"], { env: box.env })).json().errors).toBe(0);
});
