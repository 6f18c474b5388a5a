// The similarity measure behind `rkb dupes`, add's "looks like" note and the content/near-duplicate
// warning: the pruned pair search finds exactly what comparing every pair finds, and the index
// built from the cached search index (dupes, add) measures as the one built from parsed lessons (lint).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { lessonSimilarity, searchIndexSimilarity, similarityTerms, type Comparable, type SimilarityIndex } from "../../cli/search/similarity.ts";
import { loadKb } from "../../cli/kb/store.ts";
import { buildIndex } from "../../cli/kb/index.ts";
import { sandbox, writeFile } from "../helpers.ts";

const LESSONS = 1200;
/** Every PLANT-th lesson is a reworded copy of the one before it, in another folder. */
const PLANT = 40;

/**
 * Lessons over a small made-up vocabulary drawn with a strong skew: many words are in more than 2%
 * of the lessons (never indexed by the pair search), most are rare, and a lesson holds more than
 * the 64 terms a vector keeps.
 */
function generatedKb(): string {
  const box = sandbox("rkb-similarity");
  const syllables = "ba be bi bo bu da de di do du ka ke ki ko ku ma me mi mo mu na ne ni no nu ra re ri ro ru ta te ti to tu".split(" ");
  const vocabulary = Array.from({ length: 3000 }, (_, i) => syllables[i % 35]! + syllables[Math.floor(i / 35) % 35]! + syllables[Math.floor(i / 1225)]! + "q");
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const words = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!);
  let previous: string[][] = [];
  for (let i = 0; i < LESSONS; i++) {
    let parts = [words(6), words(25), words(35), words(30), words(12)];
    // A near-copy keeps most words; a looser copy keeps about half, so pairs fall at many similarities.
    if (i % PLANT === 1) parts = previous.map((p) => p.map((w, k) => (k % 7 === 0 ? words(1)[0]! : w)));
    if (i % PLANT === 2) parts = previous.map((p) => p.map((w, k) => (k % 2 === 0 ? words(1)[0]! : w)));
    previous = parts;
    const [title, symptom, cause, fix, evidence] = parts.map((p) => p.join(" "));
    const id = (0x7a00000000 + i).toString(16);
    writeFile(
      join(box.kb, "general", `topic-${i % 30}`, `lesson-${i}.md`),
      `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: ${i % 50 === 0 ? "archived" : "active"}\nverified: 2026-11-01\nverified_how: ran\ntags:\n  - ${words(1)[0]}\n---\n\n# ${title}\n\n## Symptom\n${symptom}.\n\n## Cause\n${cause}.\n\n## Fix\n${fix}.\n\n## Evidence\n${evidence}.\n`,
    );
  }
  return box.kb;
}

type Pair = [string, string, number];

function pairsOf(index: SimilarityIndex<Comparable>, min: number): Pair[] {
  return index.pairs(min).map((p) => [p.a.path, p.b.path, p.similarity]);
}

describe("similarity", () => {
  const root = generatedKb();
  const kb = loadKb(root);
  const fromIndex = searchIndexSimilarity(buildIndex(kb));
  const fromLessons = lessonSimilarity(kb.lessons, kb.notes);
  // Every pair, each lesson compared with every other one.
  const everyPair: Pair[] = [];
  const byPath = new Map(kb.lessons.map((l) => [l.path, l]));
  for (const item of fromIndex.items) {
    for (const s of fromIndex.similarTo(similarityTerms(byPath.get(item.path)!, kb.notes), 0.05))
      if (item.path < s.item.path) everyPair.push([item.path, s.item.path, s.similarity]);
  }
  const ordered = (pairs: Pair[]) => [...pairs].sort((x, y) => y[2] - x[2] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : 1));

  test("the pair search finds every pair that comparing all of them finds, at the thresholds in use", () => {
    expect(fromIndex.items.length).toBe(LESSONS - LESSONS / 50);
    for (const min of [0.2, 0.3, 0.4, 0.6, 0.8]) expect(pairsOf(fromIndex, min)).toEqual(ordered(everyPair.filter((p) => p[2] >= min)));
    // Those thresholds cut through pairs of every kind, not only the planted near-copies.
    expect(everyPair.filter((p) => p[2] >= 0.2 && p[2] < 0.8).length).toBeGreaterThan(50);
    // Far below the default, pairs that share little but words in more than 2% of the lessons are
    // left out on purpose (shared vocabulary, not a subject); what is listed is still exact.
    for (const min of [0.05, 0.1]) {
      const all = new Map(everyPair.map((p) => [`${p[0]} ${p[1]}`, p[2]]));
      const found = pairsOf(fromIndex, min);
      expect(found.length).toBeGreaterThan(0);
      for (const [a, b, similarity] of found) expect(all.get(`${a} ${b}`)).toBe(similarity);
    }
  });

  test("the planted near-copies are the pairs at the default threshold; archived lessons are not compared", () => {
    const number = (c: Comparable) => parseInt(c.id, 16) - 0x7a00000000;
    const pairs = fromIndex.pairs(0.4).map((p) => [number(p.a), number(p.b)].sort((x, y) => x - y) as [number, number]);
    const planted = ([x, y]: [number, number]) => Math.floor(x / PLANT) === Math.floor(y / PLANT) && x % PLANT <= 2 && y % PLANT <= 2;
    expect(pairs.filter((p) => !planted(p))).toEqual([]);
    const archived = (i: number) => i % 50 === 0;
    const nearCopies = Array.from({ length: LESSONS / PLANT }, (_, k) => k * PLANT + 1).filter((i) => !archived(i) && !archived(i - 1));
    expect(nearCopies.length).toBe(24);
    for (const i of nearCopies) expect(pairs).toContainEqual([i - 1, i]);
  });

  test("dupes and add (from the search index) measure exactly as lint (from parsed lessons)", () => {
    for (const min of [0.1, 0.4]) expect(pairsOf(fromLessons as SimilarityIndex<Comparable>, min)).toEqual(pairsOf(fromIndex, min));
    const lesson = byPath.get(fromIndex.items[5]!.path)!;
    const terms = similarityTerms(lesson, kb.notes);
    const simple = (hits: { similarity: number; item: Comparable }[]) => hits.map((h) => [h.item.path, h.similarity]);
    expect(simple(fromLessons.similarTo(terms, 0.1))).toEqual(simple(fromIndex.similarTo(terms, 0.1)));
    expect(fromIndex.similarTo(terms, 0.1)[0]).toMatchObject({ similarity: 1, item: { path: lesson.path, id: lesson.id, title: lesson.title } });
  });
});
