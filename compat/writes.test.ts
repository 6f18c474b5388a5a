import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, sandbox, type Sandbox } from "../test/helpers.ts";

// move, rename and label on a copy of the Rust rkb's own knowledge base: each is one commit, the
// result still lints clean, the SVG image follows its lesson and the lesson linking to the moved one
// is rewritten, and a folder note the Rust rkb wrote keeps its other keys.

const shared = join(import.meta.dir, "../../shared");
const rustKb = join(shared, "fixtures/rkb/kb");
const IO = "projects/dftracer/lustre/io-bandwidth-drops-with-small-stripes";
const CMAKE = "projects/dftracer/cmake/cmake-needs-hdf5-root.md";

function rustCopy(): Sandbox {
  const box = sandbox("rkb-compat-writes");
  cpSync(rustKb, box.kb, { recursive: true });
  gitIn(box.kb, box.env, "init", "-q", "-b", "main");
  gitIn(box.kb, box.env, "add", "-A");
  gitIn(box.kb, box.env, "commit", "-q", "-m", "the Rust fixture");
  return box;
}

const json = (box: Sandbox, args: string[]) => rkb([...args, "--format", "json"], { env: box.env });
const subject = (box: Sandbox) => gitIn(box.kb, box.env, "log", "-1", "--format=%s").trim();
const read = (box: Sandbox, rel: string) => readFileSync(join(box.kb, rel), "utf8");

describe.skipIf(!existsSync(rustKb))("writes on the Rust rkb's knowledge base", () => {
  test("move, rename and label: one commit each, lint clean after each, images and links follow", async () => {
    const box = rustCopy();
    const svg = readFileSync(join(box.kb, `${IO}.assets/bandwidth-by-stripe-count.svg`));
    const lintClean = async () => expect((await json(box, ["lint"])).json()).toMatchObject({ errors: 0, warnings: 0 });

    const move = await json(box, ["move", "7f3a9c2b41", "build"]);
    expect(move.exit).toBe(0);
    expect(subject(box)).toBe("move(projects/dftracer/build): CMake cannot find HDF5 unless HDF5_ROOT is set [7f3a9c2b41]");
    expect(read(box, `${IO}.md`)).toContain("[CMake and HDF5](../build/cmake-needs-hdf5-root.md)");
    expect(existsSync(join(box.kb, CMAKE))).toBe(false);
    await lintClean();

    const rename = await json(box, ["rename", "2b81d05e77", "Small Lustre stripe counts cut IO bandwidth"]);
    expect(rename.exit).toBe(0);
    const renamed = "projects/dftracer/lustre/small-lustre-stripe-counts-cut-io-bandwidth";
    expect(rename.json().path).toBe(`${renamed}.md`);
    expect(subject(box)).toBe("rename(projects/dftracer/lustre): Small Lustre stripe counts cut IO bandwidth [2b81d05e77]");
    expect(readFileSync(join(box.kb, `${renamed}.assets/bandwidth-by-stripe-count.svg`)).equals(svg)).toBe(true);
    expect(read(box, `${renamed}.md`)).toContain(`](small-lustre-stripe-counts-cut-io-bandwidth.assets/bandwidth-by-stripe-count.svg)`);
    await lintClean();

    const slug = await json(box, ["rename", "2b81d05e77", "--slug", "io-bandwidth-drops-with-small-stripes"]);
    expect(slug.exit).toBe(0);
    expect(read(box, `${IO}.md`)).toContain("# Small Lustre stripe counts cut IO bandwidth");
    await lintClean();

    // tuolumne's note is public; confidential is stricter, so no question; the note keeps its keys.
    const note = read(box, "systems/tuolumne/README.md");
    const label = await json(box, ["label", "systems/tuolumne", "sensitivity=confidential"]);
    expect(label.exit).toBe(0);
    expect(subject(box)).toBe("label(systems/tuolumne): sensitivity confidential");
    expect(read(box, "systems/tuolumne/README.md")).toBe(note.replace("sensitivity: public", "sensitivity: confidential"));
    await lintClean();
    expect(Number(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim())).toBe(5);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
  });
});
