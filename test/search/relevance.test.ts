import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadKb } from "../../cli/kb/store.ts";
import { buildIndex } from "../../cli/kb/index.ts";
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

describe("search relevance is what the rules read", () => {
  test("hits carry the relevance of their rank", () => {
    const r = searchKb({ index, query: "cmake still cannot find Eigen3 after installing it", place: nowhere, limit: 3 });
    expect(r.hits[0]!.relevance).toBeGreaterThan(r.hits[1]?.relevance ?? 0);
  });
});
