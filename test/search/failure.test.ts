import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadKb } from "../../cli/kb/store.ts";
import { decideFailureIn, failureQuery } from "../../cli/search/failure.ts";
import { buildIndex } from "../../cli/search/index.ts";
import { recallDecision } from "../../cli/search/recall.ts";
import { searchKb } from "../../cli/search/search.ts";

const index = buildIndex(loadKb(join(import.meta.dir, "../fixtures/search-kb")));
const nowhere = { facts: {}, isAncestor: () => undefined };

describe("failureQuery", () => {
  test("program and key error lines, without paths, hex ids, numbers or the harness trailer", () => {
    const q = failureQuery(
      "CC=gcc /usr/bin/make -j8",
      "main.c: In function 'main':\n/usr/bin/ld: /tmp/cc1a2b3c4d.o: undefined reference to `vtable for Shape'\ncollect2: error: ld returned 1 exit status\n\nCommand exited with code 2",
    );
    expect(q.startsWith("make ")).toBe(true);
    expect(q).toContain("undefined reference to `vtable for Shape'");
    expect(q).not.toMatch(/\/usr|cc1a2b3c4d|\b1\b|Command exited/);
  });
  test("stops before 40 terms", () => {
    const error = Array.from({ length: 30 }, (_, i) => `error: unknown option word${i} another${i}`).join("\n");
    expect(failureQuery("tool", error).split(" ").length).toBeLessThan(45);
  });
});

describe("inject or stay silent", () => {
  test("a failure whose error a lesson shows is injected", () => {
    const error = "/usr/bin/ld: shape.o: in function `ShapeRenderer::ShapeRenderer()':\nshape.cpp:(.text+0x1b): undefined reference to `vtable for ShapeRenderer'\ncollect2: error: ld returned 1 exit status";
    const d = decideFailureIn(index, nowhere, new Map(), "make", error);
    expect(d.lesson?.id).toBe("3c00000002");
  });
  test("an unrelated failure injects nothing", () => {
    const d = decideFailureIn(index, nowhere, new Map(), "git push", "! [rejected] main -> main (fetch first)\nerror: failed to push some refs");
    expect(d.lesson).toBeUndefined();
    expect(d.reason).not.toBe("");
  });
  test("a lesson that shares only the error's label and common words is not injected", () => {
    const error = "CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n  CMake 3.28 or higher is required.  You are running version 3.22.1\n\n-- Configuring incomplete, errors occurred!";
    const d = decideFailureIn(index, nowhere, new Map(), "cmake -B build", error);
    expect(d.lesson).toBeUndefined();
  });
  test("recall needs a clear winner", () => {
    expect(recallDecision(searchKb({ index, query: "undefined reference to vtable for my class", place: nowhere, limit: 2 })).lesson?.id).toBe("3c00000002");
    expect(recallDecision(searchKb({ index, query: "how do I plot a histogram in gnuplot", place: nowhere, limit: 2 })).lesson).toBeUndefined();
  });
});
