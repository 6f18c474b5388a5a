import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_KB_TOML } from "../cli/lesson/config.ts";
import { classify } from "../cli/lesson/layout.ts";
import { gitIn, rkb, sandbox, type Sandbox } from "../test/helpers.ts";

// The compiled binary over the Rust rkb's own knowledge bases: each is copied into a git repository
// (with the default kb.toml where the fixture has none, as `rkb init` writes it), then lint, list and
// show run on it as a user would.

const shared = join(import.meta.dir, "../../shared");
const fixtures = join(shared, "fixtures/rkb");
const KBS = ["kb", "search/kb", "eval/kb", "graph/kb"];

function copyOf(fixture: string): Sandbox {
  const box = sandbox("rkb-compat-cli");
  cpSync(join(fixtures, fixture), box.kb, { recursive: true });
  if (!existsSync(join(box.kb, "kb.toml"))) writeFileSync(join(box.kb, "kb.toml"), DEFAULT_KB_TOML);
  gitIn(box.kb, box.env, "init", "-q", "-b", "main");
  gitIn(box.kb, box.env, "add", "-A");
  gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-m", "fixture");
  // A host name no system note matches, and no user name or home folder a lesson mentions.
  box.env = { ...box.env, RKB_HOSTNAME: "laptop.example", USER: "" };
  return box;
}

/** The lesson files of a fixture (relative paths) with the id each declares. */
function lessonFiles(fixture: string): { path: string; id: string }[] {
  return [...new Glob("**/*.md").scanSync(join(fixtures, fixture))]
    .filter((rel) => classify(rel) === "lesson")
    .sort()
    .map((path) => ({ path, id: /^id: (\S+)$/m.exec(readFileSync(join(fixtures, fixture, path), "utf8"))![1]! }));
}

describe.skipIf(!existsSync(shared))("rkb on the Rust rkb's fixtures", () => {
  test.each(KBS)("lint %s: no error but graph/kb's two links to lessons the fixture left out", async (fixture) => {
    const r = await rkb(["lint", "--format", "json"], { env: copyOf(fixture).env });
    const errors = r.json().findings.filter((f: any) => f.severity === "error");
    if (fixture === "graph/kb") {
      expect(errors.map((f: any) => f.rule)).toEqual(["links/broken", "links/broken"]);
      expect(r.exit).toBe(1);
    } else {
      expect(errors).toEqual([]);
      expect(r.exit).toBe(0);
    }
    expect(r.json().findings.filter((f: any) => f.rule.startsWith("format/") || f.rule.startsWith("leak/"))).toEqual([]);
  });

  test.each(KBS)("list %s: every folder's count is the number of lesson files in it", async (fixture) => {
    const box = copyOf(fixture);
    const files = lessonFiles(fixture);
    const data = (await rkb(["list", "--format", "json"], { env: box.env })).json();
    expect(data.lessons).toBe(files.length);
    const expected = new Map<string, number>();
    for (const { path } of files) {
      const parts = path.split("/").slice(0, -1);
      for (let depth = 1; depth <= parts.length; depth++) {
        const folder = parts.slice(0, depth).join("/");
        expected.set(folder, (expected.get(folder) ?? 0) + 1);
      }
    }
    for (const scope of ["general", "projects", "systems"]) if (!expected.has(scope)) expected.set(scope, 0);
    expect(Object.fromEntries(data.tree.map((row: any) => [row.folder, row.lessons]))).toEqual(Object.fromEntries(expected));
    for (const topic of data.topics) {
      const listed = (await rkb(["list", topic.folder, "--format", "json"], { env: box.env })).json();
      expect(listed.lessons.map((l: any) => l.id).sort()).toEqual(
        files
          .filter((f) => f.path.startsWith(`${topic.folder}/`))
          .map((f) => f.id)
          .sort(),
      );
    }
  });

  test.each(KBS)("show %s: every lesson, by its id, with its path and a hash", async (fixture) => {
    const box = copyOf(fixture);
    for (const { path, id } of lessonFiles(fixture)) {
      const r = await rkb(["show", id, "--format", "json"], { env: box.env });
      expect({ id, exit: r.exit }).toEqual({ id, exit: 0 });
      expect(r.json()).toMatchObject({ id, path, hash: expect.stringMatching(/^[0-9a-f]{12}$/) });
    }
  });

  test("show kb: the tuolumne lessons do not apply on another system, and say which key decided", async () => {
    const box = copyOf("kb");
    const applies = async (id: string, ...flags: string[]) => (await rkb(["show", id, "--format", "json", ...flags], { env: box.env })).json().applies;
    // cmake-needs-hdf5-root: when.system tuolumne and when.hdf5 "1.12:1.14.2", in projects/dftracer.
    const nowhere = await applies("7f3a9c2b41", "--project", "dftracer");
    expect(nowhere.result).toBe("unknown");
    expect(nowhere.keys).toContainEqual(expect.objectContaining({ key: "system", want: "tuolumne", have: null, result: "unknown" }));
    const elsewhere = await applies("7f3a9c2b41", "--project", "dftracer", "--system", "hpc1");
    expect(elsewhere.result).toBe("no");
    expect(elsewhere.keys.filter((k: any) => k.result === "no").map((k: any) => k.key)).toEqual(["system"]);
    expect((await applies("7f3a9c2b41", "--project", "dftracer", "--system", "tuolumne", "--with", "hdf5=1.14.2")).result).toBe("yes");
    expect((await applies("7f3a9c2b41", "--project", "dftracer", "--system", "tuolumne", "--with", "hdf5=1.15.0")).keys).toContainEqual(
      expect.objectContaining({ key: "hdf5", result: "no" }),
    );
    // The system note's match_env places this machine on tuolumne without a flag.
    expect(
      (await rkb(["show", "2b81d05e77", "--format", "json", "--project", "dftracer"], { env: { ...box.env, LCSCHEDCLUSTER: "tuolumne" } })).json().applies
        .result,
    ).toBe("yes");
    // lustre-needs-striping-for-large-files sits in systems/tuolumne/ with no `when`: its folder decides.
    const bare = await applies("c04e11a9f3", "--system", "hpc1");
    expect(bare).toMatchObject({ result: "no", keys: [{ key: "system", want: "tuolumne", have: "hpc1", result: "no" }] });
    const line = (await rkb(["show", "7f3a9c2b41", "--system", "hpc1", "--project", "dftracer"], { env: box.env })).stdout.split("\n")[1];
    expect(line).toBe("Does not apply here: when.system wants tuolumne, here system is hpc1 (--system <name> sets it)");
  });
});
