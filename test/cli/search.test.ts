import { describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeKb } from "../../scripts/bench-kb.ts";
import { rkb, sandbox } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/search-kb");

function withKb() {
  const box = sandbox("rkb-search");
  cpSync(FIXTURE, box.kb, { recursive: true });
  return box;
}

describe("rkb search", () => {
  test("human text by default, JSON and TOON rows on request", async () => {
    const { env } = withKb();
    const human = await rkb(["search", "undefined reference to vtable"], { env });
    expect(human.exit).toBe(0);
    expect(human.stdout).toContain("1. Undefined reference to vtable");
    const json = (await rkb(["search", "undefined reference to vtable", "--format", "json"], { env })).json();
    expect(json.mode).toBe("ranked");
    expect(json.results[0]).toMatchObject({ id: "3c00000002", type: "pitfall", applies: "yes", worked: 0 });
    expect(json.results[0].relevance).toBeGreaterThan(0);
    const toon = await rkb(["search", "undefined reference to vtable", "--toon"], { env });
    expect(toon.stdout).toMatch(/results\[\d+\]\{id,type,title,path,status,applies,worked,failed,injected,irrelevant,relevance,summary\}:/);
    expect(toon.stdout).toContain("hidden: 0");
  });
  test("hidden lessons are counted, --all shows them", async () => {
    const { env } = withKb();
    const r = (await rkb(["search", "H5_USE_18_API", "--with", "hdf5=1.8", "--format", "json"], { env })).json();
    expect(r.results).toEqual([]);
    // One by its `when`, one by its place: a lesson of another system's folder.
    expect(r.hidden_by).toEqual({ hdf5: 1, "systems/lab1": 1 });
    const all = (await rkb(["search", "H5_USE_18_API", "--with", "hdf5=1.8", "--all", "--format", "json"], { env })).json();
    expect(all.results[0].applies).toBe("no");
  });
  test("literal, regex and limit", async () => {
    const { env } = withKb();
    const lit = (await rkb(["search", "--literal", "Eigen3_DIR-NOTFOUND", "--format", "json"], { env })).json();
    expect(lit.results[0].line).toMatch(/^\d+: /);
    const bad = await rkb(["search", "--regex", "(", "--format", "json"], { env });
    expect(bad.exit).toBe(2);
    expect(bad.json().error.code).toBe("usage");
    const one = (await rkb(["search", "cmake vtable hdf5", "--limit", "1", "--format", "json"], { env })).json();
    expect(one.results.length).toBe(1);
    expect((await rkb(["search"], { env })).exit).toBe(2);
  });
  test("a cache file cut short, grown or overwritten is rebuilt: the answer stays the same", async () => {
    const { env } = withKb();
    const query = ["search", "undefined reference to vtable", "--format", "json"];
    const first = await rkb(query, { env });
    expect(first.exit).toBe(0);
    const dir = join(env.XDG_CACHE_HOME!, "rkb", "search");
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith(".idx"))!);
    const whole = readFileSync(file);
    const damages: [string, () => void][] = [
      ["cut inside the postings", () => truncateSync(file, whole.length - 1000)],
      ["one byte short", () => truncateSync(file, whole.length - 1)],
      ["grown", () => writeFileSync(file, Buffer.concat([whole, Buffer.alloc(8)]))],
      ["zeroed after its header", () => writeFileSync(file, Buffer.concat([whole.subarray(0, 2000), Buffer.alloc(whole.length - 2000)]))],
    ];
    for (const [how, damage] of damages) {
      damage();
      const again = await rkb(query, { env });
      expect({ how, exit: again.exit, stdout: again.stdout }).toEqual({ how, exit: 0, stdout: first.stdout });
      expect(readFileSync(file).equals(whole)).toBe(true);
    }
  });
  test("searches running while edits rebuild the cache all answer, each result whole", async () => {
    const box = sandbox("rkb-search-race");
    const env = { ...box.env, RKB_HOME: makeKb(box.dir, 300) };
    const query = ["search", "undefined symbol after linker cache rebuild", "--format", "json", "--limit", "50"];
    expect((await rkb(query, { env })).exit).toBe(0); // the first cache file
    // Each edit changes the knowledge base's signature: the next search rebuilds the cache and
    // renames the new file over the one other searches are reading.
    let editing = true;
    const edits = (async () => {
      for (let round = 0; round < 12; round++) {
        appendFileSync(join(env.RKB_HOME, "general", `topic-${round % 40}`, `lesson-${round}.md`), `More evidence ${round}.\n`);
        await Bun.sleep(15);
      }
      editing = false;
    })();
    const answers: { exit: number; stdout: string; stderr: string }[] = [];
    while (editing || answers.length < 24) answers.push(...(await Promise.all([1, 2, 3].map(() => rkb(query, { env })))));
    await edits;
    for (const answer of answers) {
      expect({ exit: answer.exit, stderr: answer.stderr }).toEqual({ exit: 0, stderr: "" });
      const results = JSON.parse(answer.stdout).results as { title: string; path: string }[];
      expect(results.length).toBeGreaterThan(10);
      // A record read from another file than its offsets would be cut, or another lesson's.
      for (const r of results) expect(readFileSync(join(env.RKB_HOME, r.path), "utf8")).toContain(`\n# ${r.title}\n`);
    }
  });
  test("a folder that is no knowledge base is an error with a fix", async () => {
    const { env } = sandbox("rkb-search-none");
    const r = await rkb(["search", "anything", "--format", "json"], { env });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("not_a_kb");
  });
  test("--explain: the evidence behind each score and whether prompt recall would inject", async () => {
    const { env } = withKb();
    const d = (await rkb(["search", "undefined reference to vtable for my class", "--explain", "--format", "json"], { env })).json();
    const e = d.results[0].explain;
    expect(e).toMatchObject({ id: "3c00000002", relevance: d.results[0].relevance });
    expect(e.relevance).toBeCloseTo(e.coverage * e.evidence * e.share, 1);
    expect(e.matched.find((m: any) => m.term === "vtabl").fields).toEqual(expect.arrayContaining(["title", "tags", "lead"]));
    expect(e.missing).toContain("class");
    expect(d.recall).toEqual({ inject: "3c00000002", reason: expect.stringContaining("relevance") });
    const human = await rkb(["search", "undefined reference to vtable for my class", "--explain"], { env });
    expect(human.stdout).toMatch(/relevance [\d.]+ = coverage [\d.]+ × evidence [\d.]+ × score share [\d.]+/);
    expect(human.stdout).toContain("Prompt recall: would inject 3c00000002");
    // A word whose term another word already brought (a compound's part here) is matched, never also "not in it".
    const twice = (await rkb(["search", "UndefinedReference undefined vtable class", "--explain", "--format", "json"], { env })).json().results[0].explain;
    expect(twice.matched.map((m: any) => m.term)).toContain("undefin");
    expect(twice.missing).toEqual(["class"]);
  });
  test("show and list read the index, and see an edit made in place", async () => {
    const { env, kb } = withKb();
    expect((await rkb(["search", "vtable", "--format", "json"], { env })).exit).toBe(0); // builds the index
    const file = join(kb, "general/cpp/missing-vtable.md");
    writeFileSync(file, readFileSync(file, "utf8").replace("# Undefined reference to vtable", "# Edited: undefined reference to vtable"));
    const shown = (await rkb(["show", "3c00000002", "--format", "json"], { env })).json();
    expect(shown.title).toStartWith("Edited:");
    const listed = (await rkb(["list", "general/cpp", "--format", "json"], { env })).json();
    expect(listed.lessons.find((l: any) => l.id === "3c00000002").title).toStartWith("Edited:");
    const overview = (await rkb(["list", "--format", "json"], { env })).json();
    expect(overview.topics).toContainEqual({ folder: "general/cpp", lessons: expect.any(Number) });
    expect((await rkb(["show", "ffffffffff", "--format", "json"], { env })).json().error.code).toBe("not_found");
    expect((await rkb(["list", "general/nothing", "--format", "json"], { env })).json().error.code).toBe("not_found");
  });
});
