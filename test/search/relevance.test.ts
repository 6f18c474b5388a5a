import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadKb } from "../../cli/kb/store.ts";
import { failureLines, quotedLines, quotedPhrase } from "../../cli/search/failure.ts";
import { buildIndex } from "../../cli/search/index.ts";
import { parseQuery, rank } from "../../cli/search/rank.ts";
import { fit, relevances } from "../../cli/search/relevance.ts";
import { searchKb } from "../../cli/search/search.ts";

const index = buildIndex(loadKb(join(import.meta.dir, "../fixtures/search-kb")));
const nowhere = { facts: {}, isAncestor: () => undefined };
const docOf = (id: string) => [...Array(index.size).keys()].find((i) => index.lesson(i).id === id)!;

describe("relevance", () => {
  test("coverage × evidence × score share: in 0..1, the first result highest", () => {
    const query = parseQuery(index, "undefined reference to vtable for my class");
    const ranked = rank(index, query);
    const rel = relevances(index, query, ranked, ranked.length);
    for (const r of rel) expect(r).toBeGreaterThanOrEqual(0), expect(r).toBeLessThanOrEqual(1);
    expect(rel[0]).toBe(Math.max(...rel));
    expect(index.lesson(ranked[0]!.doc).id).toBe("3c00000002");
  });
  test("a word no lesson uses lowers coverage; one shared rare word is little evidence", () => {
    const doc = docOf("3c00000002");
    const known = fit(index, parseQuery(index, "vtable undefined reference"), doc);
    const withUnknown = fit(index, parseQuery(index, "vtable undefined reference zorblatt frobnicator"), doc);
    expect(withUnknown.coverage).toBeLessThan(known.coverage);
    expect(fit(index, parseQuery(index, "vtable"), doc).evidence).toBeLessThan(known.evidence);
    expect(known.evidence).toBeLessThanOrEqual(1);
  });
});

describe("quoted phrase", () => {
  test("the lesson's code and title are its quotes, without paths and numbers", () => {
    const lines = quotedLines(index, docOf("3c00000002"));
    expect(lines[0]).toBe("Undefined reference to vtable means a virtual function has no definition");
    expect(lines).toContain("undefined reference to `vtable for ShapeRenderer'");
  });
  test("two adjacent words of a key line that the lesson quotes", () => {
    const lines = failureLines("shape.cpp:(.text+0x1b): undefined reference to `vtable for Widget'\ncollect2: error: ld returned 1 exit status");
    expect(quotedPhrase(index, lines, docOf("3c00000002"))).toBe("undefin referenc");
  });
  test("words the lesson uses only in prose, or a severity label, are no quote", () => {
    // "compiler emits" is in the Cause prose only; "CMake Error" starts every CMake failure.
    expect(quotedPhrase(index, ["error: the compiler emits garbage"], docOf("3c00000002"))).toBeUndefined();
    expect(quotedPhrase(index, ["CMake Error at line"], docOf("3c00000001"))).toBeUndefined();
  });
  test("a compound name counts on its own", () => {
    expect(quotedPhrase(index, ["cache holds Eigen3_DIR-NOTFOUND"], docOf("3c00000001"))).toBe("eigen3_dir-notfound");
  });
});

describe("search relevance is what the rules read", () => {
  test("hits carry the relevance of their rank", () => {
    const r = searchKb({ index, query: "cmake still cannot find Eigen3 after installing it", place: nowhere, limit: 3 });
    expect(r.hits[0]!.relevance).toBeGreaterThan(r.hits[1]?.relevance ?? 0);
  });
});
