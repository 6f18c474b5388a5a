import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { boundedDistance } from "../../cli/text/distance.ts";
import { parseLesson } from "../../cli/lesson/lesson.ts";
import { loadKb } from "../../cli/kb/store.ts";
import { tokenize } from "../../cli/text/tokenize.ts";
import { buildIndex, FIELD_WEIGHTS, lessonFields, lessonTerms, loadIndex } from "../../cli/kb/index.ts";
import { decodeIndex, encodeIndex, readCache } from "../../cli/kb/index-file.ts";
import { kbSignature } from "../../cli/kb/signature.ts";
import { parseQuery, rank, ranking } from "../../cli/search/rank.ts";
import { searchKb } from "../../cli/search/search.ts";
import { makeKb } from "../../scripts/bench-kb.ts";
import { sandbox, writeFile } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/search-kb");
const nowhere = { facts: {}, isAncestor: () => undefined };
const ids = (r: { hits: { lesson: { id: string } }[] }) => r.hits.map((h) => h.lesson.id);

describe("searchKb", () => {
  const index = buildIndex(loadKb(FIXTURE));
  test("ranks the lesson that holds the query's words first, with a relevance in 0..1", () => {
    const r = searchKb({ index, query: "undefined reference to vtable", place: nowhere });
    expect(ids(r)[0]).toBe("3c00000002");
    expect(r.hits[0]!.relevance).toBeGreaterThan(0.5);
    expect(r.hits[0]!.relevance).toBeLessThanOrEqual(1);
  });
  test("tolerates a typo and uses folder aliases", () => {
    expect(ids(searchKb({ index, query: "vtabel", place: nowhere }))[0]).toBe("3c00000002");
    expect(parseQuery(index, "c++ linker").terms.map((t) => t.term)).toContain("cpp");
  });
  test("hides lessons whose `when` says no, and --all shows them", () => {
    const place = { facts: { hdf5: "1.8.2" }, isAncestor: () => undefined };
    const hidden = searchKb({ index, query: "H5_USE_18_API", place });
    expect(hidden.hits).toEqual([]);
    expect(hidden.hidden).toBe(1);
    expect(hidden.hiddenBy).toEqual({ hdf5: 1 });
    const all = searchKb({ index, query: "H5_USE_18_API", place, all: true });
    expect(all.hits[0]!.applies).toBe("no");
  });
  test("system lessons are searched only at that system", () => {
    expect(ids(searchKb({ index, query: "request gpus", place: nowhere }))).not.toContain("3c00000005");
    const lab = { system: { name: "lab1", rule: "flag" }, facts: { system: "lab1" }, isAncestor: () => undefined };
    expect(ids(searchKb({ index, query: "request gpus", place: lab }))[0]).toBe("3c00000005");
  });
  test("archived lessons only with all statuses", () => {
    expect(ids(searchKb({ index, query: "vtable layout compilers", place: nowhere }))).not.toContain("3c00000004");
    expect(ids(searchKb({ index, query: "vtable layout compilers", place: nowhere, allStatuses: true }))).toContain("3c00000004");
  });
  test("literal and regex modes report the first matching line", () => {
    const lit = searchKb({ index, query: "Eigen3_DIR-NOTFOUND", mode: "literal", place: nowhere });
    expect(ids(lit)).toEqual(["3c00000001"]);
    expect(lit.hits[0]!.line).toMatch(/^\d+: CMake caches/);
    expect(ids(searchKb({ index, query: "H5[DG](open|create)", mode: "regex", place: nowhere }))).toEqual(["3c00000003"]);
    expect(() => searchKb({ index, query: "(", mode: "regex", place: nowhere })).toThrow("not a valid regular expression");
  });
});

describe("index terms", () => {
  // The index scans text for tokens instead of splitting it, and keeps a bounded memo of tokens:
  // a lesson's weighted terms must be what the tokenizer gives for each field.
  test("are the tokenizer's terms of each field, weighted by the field", () => {
    const odd = [
      "naïve café — déjà vu\ttabs\r\nCRLF «quotes» 日本語 emoji 🎉 mixed🎉word",
      `${"x".repeat(300)} hdf5::File H5Fopen -lfoo libbar.so.1 src/main.rs --start-group v1.14.2 snake_case @scope/pkg`,
      "..leading. trailing.. :colon: a-b-c a--b __init__ x",
      Array.from({ length: 60_000 }, (_, i) => `w${i.toString(36)}`).join(" "),
    ].join("\n\n");
    const text = `---\nschema: 1\nid: 3c000000ff\ntype: pitfall\nstatus: active\nverified: 2026-03-01\nverified_how: ran\ntags:\n  - café\n  - hdf5::File\n---\n\n# Odd tokens: naïve H5Fopen\n\n## Symptom\n${odd}\n\n## Cause\n${odd.slice(0, 500)}\n\n## Fix\nRun it.\n\n## Evidence\nRan it.\n`;
    const lesson = parseLesson(text, "general/odd/odd-tokens.md");
    const expected = new Map<string, number>();
    let length = 0;
    for (const { field, text } of lessonFields(lesson, new Map())) {
      for (const term of tokenize(text)) {
        expected.set(term, (expected.get(term) ?? 0) + FIELD_WEIGHTS[field]);
        length++;
      }
    }
    const counted = lessonTerms(lesson, new Map());
    expect(counted.length).toBe(length);
    expect([...counted.tf].sort()).toEqual([...expected].sort());
    expect(counted.tf.get("hdf5::file")).toBeGreaterThan(0);
  });
});

describe("typo candidates", () => {
  // The scan reads only the known terms that hold a piece of the word; it must find what comparing
  // the word with every known term finds. A five-letter alphabet (no letter the stemmer drops) makes near words common.
  test("are the closest known terms, as comparing with every term finds them", () => {
    let seed = 7;
    const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const word = (length: number) => Array.from({ length }, () => "abcko"[random(5)]).join("");
    const edit = (w: string) => {
      const i = random(w.length);
      const kind = random(4);
      if (kind === 0) return w.slice(0, i) + word(1) + w.slice(i);
      if (kind === 1) return w.slice(0, i) + w.slice(i + 1);
      if (kind === 2) return w.slice(0, i) + word(1) + w.slice(i + 1);
      return i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w;
    };
    const queries = Array.from({ length: 300 }, () => word(4 + random(8)));
    const known = new Set<string>();
    for (const q of queries) {
      known.add(edit(q));
      known.add(edit(edit(q)));
      known.add(q + word(2 + random(3)));
    }
    for (let i = 0; i < 3000; i++) known.add(word(3 + random(10)));
    for (const q of queries) known.delete(q);
    const terms = [...known].sort();
    const index = { ...buildIndex(loadKb(FIXTURE)), terms, vocabulary: terms.join("\n"), termStart: new Uint32Array(terms.length + 1), aliases: {} };
    const everyTerm = (q: string) => {
      const max = q.length >= 8 ? 2 : 1;
      // A known word of three letters is never a typo stand-in (issue 22: `noth` is one edit from `not`).
      return terms
        .filter((t) => t.length >= 4)
        .map((t) => ({
          t,
          d: t.length > q.length + 1 && t.startsWith(q) ? 1 : Math.abs(t.length - q.length) > max ? max + 1 : boundedDistance(q, t, max),
        }))
        .filter(({ d }) => d <= max)
        .sort((a, b) => a.d - b.d || (a.t < b.t ? -1 : 1))
        .slice(0, 3)
        .map(({ t }) => t);
    };
    let found = 0;
    for (const q of queries) {
      const typos = parseQuery(index, q)
        .terms.filter((t) => t.kind === "typo")
        .map((t) => t.term);
      expect(typos).toEqual(everyTerm(q));
      found += typos.length;
    }
    expect(found).toBeGreaterThan(300);
  });
});

describe("ranking", () => {
  test("read a few at a time, it is the order a full sort gives: score, then title", () => {
    const index = buildIndex(loadKb(makeKb(sandbox().dir, 400)));
    const query = parseQuery(index, "undefined symbol linker cache");
    const read = ranking(index, query);
    expect(read.length).toBeGreaterThan(100);
    const inTurn = [0, 1, 2, 5, 17, 18, 40, 41].map((i) => read.at(i)!);
    const all = read.first(read.length + 5);
    const full = [...all].sort((a, b) => b.score - a.score || index.titleOrder[a.doc]! - index.titleOrder[b.doc]!);
    expect(all).toEqual(full);
    expect(new Set(all.map((r) => r.doc)).size).toBe(read.length);
    expect(inTurn).toEqual([0, 1, 2, 5, 17, 18, 40, 41].map((i) => full[i]!));
    expect(read.at(read.length)).toBeUndefined();
    expect(rank(index, query)).toEqual(full);
  });
});

describe("index cache", () => {
  test("round-trips through its binary form", () => {
    const index = buildIndex(loadKb(FIXTURE));
    const bytes = encodeIndex(index, "sig");
    const reads: number[] = [];
    const read = (offset: number, length: number) => (reads.push(length), bytes.slice(offset, offset + length));
    const back = decodeIndex(read, bytes.length, index.root, "sig")!;
    expect(back.terms).toEqual(index.terms);
    for (const key of ["lengths", "docScope", "docCurrent", "titleOrder", "termStart"] as const) expect([...back[key]]).toEqual([...index[key]]);
    // A search reads the postings of the terms it asks for, not the whole file.
    expect(Math.max(...reads)).toBeLessThan(bytes.length / 2);
    index.terms.forEach((_, id) => {
      expect([...back.postings(id).docs]).toEqual([...index.postings(id).docs]);
      expect([...back.postings(id).tf]).toEqual([...index.postings(id).tf]);
    });
    expect([...back.allPostings().tf]).toEqual([...index.allPostings().tf]);
    for (let i = 0; i < index.size; i++) expect(back.lesson(i)).toEqual(index.lesson(i));
    expect(decodeIndex(read, bytes.length, index.root, "other")).toBeUndefined();
    // A file cut short or grown is not this header's: it is rebuilt, never half read.
    expect(decodeIndex(read, bytes.length - 4, index.root, "sig")).toBeUndefined();
    expect(decodeIndex(read, bytes.length + 4, index.root, "sig")).toBeUndefined();
  });
  test("an index read from the cache keeps reading its own file after a rebuild renames another over it", () => {
    const dir = mkdtempSync(join(tmpdir(), "rkb-index-"));
    try {
      const index = buildIndex(loadKb(makeKb(dir, 60)));
      const other = buildIndex(loadKb(makeKb(join(dir, "other"), 90)));
      const file = join(dir, "cache.idx");
      writeFileSync(file, encodeIndex(index, "sig"));
      const read = readCache(file, index.root, "sig")!;
      // Nothing but the small tables is read yet; now a rebuild puts another index in its place.
      writeFileSync(`${file}.tmp`, encodeIndex({ ...other, root: index.root }, "sig"));
      renameSync(`${file}.tmp`, file);
      for (let i = 0; i < index.size; i++) expect(read.lesson(i)).toEqual(index.lesson(i));
      index.terms.forEach((_, id) => expect([...read.postings(id).docs]).toEqual([...index.postings(id).docs]));
      expect(readCache(file, index.root, "sig")!.size).toBe(other.size);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a changed, added or removed lesson is seen by the next search", () => {
    const dir = mkdtempSync(join(tmpdir(), "rkb-index-"));
    const kb = join(dir, "kb");
    cpSync(FIXTURE, kb, { recursive: true });
    const env = { XDG_CACHE_HOME: join(dir, "cache") };
    const find = (q: string) => ids(searchKb({ index: loadIndex(kb, env), query: q, place: nowhere }));
    try {
      expect(find("vtable")).toContain("3c00000002");
      const before = kbSignature(kb);
      const file = join(kb, "general/cpp/missing-vtable.md");
      const text = require("node:fs").readFileSync(file, "utf8") as string;
      writeFileSync(file, text.replaceAll("vtable", "vtbl"));
      utimesSync(file, new Date(), new Date(Date.now() + 5000));
      expect(kbSignature(kb)).not.toBe(before);
      expect(find("vtable")).not.toContain("3c00000002");
      writeFileSync(join(kb, "general/cpp/new.md"), text.replace("3c00000002", "3c00000009"));
      expect(find("vtable")).toContain("3c00000009");
      rmSync(join(kb, "general/cpp/new.md"));
      expect(find("vtable")).not.toContain("3c00000009");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("a word and its synonyms count as one word: a lesson using three of them does not outrank one that holds more of the query", () => {
  const { kb } = sandbox("rkb-synonyms-once");
  const lesson = (id: string, title: string, body: string) =>
    `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: active\nverified: 2026-10-01\nverified_how: ran\n---\n\n# ${title}\n\n## Symptom\n${body}\n\n## Cause\nSee the title.\n\n## Fix\nDo the other thing.\n\n## Evidence\nIt worked.\n`;
  writeFile(
    join(kb, "general/x/a.md"),
    lesson("3c0000bb01", "Docker, podman and container engines compared", "docker and podman run a container; a container engine is docker or podman."),
  );
  writeFile(
    join(kb, "general/x/b.md"),
    lesson("3c0000bb02", "Rootless podman cannot save into a folder you own", "The folder is owned by you, yet the write fails."),
  );
  for (let i = 3; i < 9; i++)
    writeFile(join(kb, `general/x/f${i}.md`), lesson(`3c0000bb0${i}`, `Unrelated lesson number ${i} about gnuplot`, "Plots and axes."));
  const index = buildIndex(loadKb(kb));
  expect(ids(searchKb({ index, query: "container folder", place: nowhere }))[0]).toBe("3c0000bb02");
});
