import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { capture } from "../../cli/sessions/capture.ts";
import { parseDrafts } from "../../cli/inbox/draft.ts";
import { fileChange } from "../../cli/sessions/edits.ts";
import { listItems } from "../../cli/inbox/inbox.ts";
import { rkb, sandbox } from "../helpers.ts";
import { SECRETS } from "./secret-samples.ts";
import { SessionWriter, type Flavor } from "./session-writer.ts";

// Drafts keep the fix: sessions in pi, omp and Claude Code shapes where a failure is followed by
// the step that fixed it and then by the same program working. Each draft must name that step.

const FLAVORS: Flavor[] = ["pi", "omp", "claude-code"];

/** The edit tool call each agent makes to replace one line of a file. */
function editLine(w: SessionWriter, path: string, before: string, after: string): void {
  if (w.flavor === "pi") w.tool("edit", { path, edits: [{ oldText: before, newText: after }] }, `Successfully replaced text in ${path}.`);
  else if (w.flavor === "omp") w.tool("edit", { input: `*** Begin Patch\n[${path}#1a2b]\nPUT 3.=3:\n+${after}\n*** End Patch` }, `Updated ${path}`);
  else w.tool("Edit", { file_path: path, old_string: before, new_string: after }, `The file ${path} has been updated.`);
}

async function draftsOf(w: SessionWriter) {
  const box = sandbox("rkb-fix");
  const path = join(box.dir, "s.jsonl");
  writeFileSync(path, w.text());
  const r = await capture({ sessionFile: path, env: box.env });
  const [item] = listItems(box.env);
  return { r, item: item!, box };
}

describe.each(FLAVORS)("%s: a draft names the step that fixed the failure", (flavor) => {
  test("an install", async () => {
    const w = new SessionWriter(flavor);
    w.bash("cmake -S . -B build", "CMake Error at CMakeLists.txt:3 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)", 1);
    w.bash("ls /usr/include | grep zlib", "", 1);
    w.bash("sudo apt-get install -y zlib1g-dev", "Setting up zlib1g-dev (1:1.2.13) ...");
    w.bash("cmake -S . -B build", "-- Configuring done");
    const { r, item } = await draftsOf(w);
    expect(r.drafts).toHaveLength(1);
    expect(r.drafts[0]!.fix.map((s) => (s.kind === "command" ? s.command : s.path))).toEqual(["sudo apt-get install -y zlib1g-dev"]);
    expect(item.body).toContain("### `cmake` failed, then worked after `sudo apt-get install -y zlib1g-dev`");
    expect(item.body).toContain("    $ sudo apt-get install -y zlib1g-dev");
    // The excerpt shows every command in order, successes with their output left out.
    const excerpt = item.body.slice(item.body.indexOf("## Excerpt"));
    expect(excerpt.indexOf("[command ok] sudo apt-get install -y zlib1g-dev")).toBeGreaterThan(excerpt.indexOf("[command failed, exit 1] cmake -S . -B build"));
    expect(excerpt.indexOf("[command worked] cmake -S . -B build")).toBeGreaterThan(excerpt.indexOf("[command ok] sudo apt-get"));
    expect(excerpt).not.toContain("Setting up zlib1g-dev");
  });

  test("an edit by the agent's edit tool", async () => {
    const w = new SessionWriter(flavor);
    w.bash("pytest -q", "E   NameError: name 'reqests' is not defined", 1);
    w.tool(flavor === "claude-code" ? "Read" : "read", { path: "app.py" }, "import reqests");
    editLine(w, "app.py", "import reqests", "import requests");
    w.bash("pytest -q", "3 passed");
    const { r, item } = await draftsOf(w);
    const [step] = r.drafts[0]!.fix;
    expect(step).toMatchObject({ kind: "change", verb: "edited", path: "app.py" });
    expect(step!.kind === "change" && step!.diff).toContain("+import requests");
    expect(item.body).toContain("### `pytest` failed, then worked after editing app.py");
    expect(item.body).toContain("[edited app.py]");
    const [draft] = parseDrafts(item.body);
    expect(draft!.fix[0]).toMatchObject({ kind: "change", path: "app.py", diff: expect.arrayContaining(["+import requests"]) });
  });

  test("a sed", async () => {
    const w = new SessionWriter(flavor);
    w.bash("make -j4", "/usr/bin/ld: cannot find -lpng12\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:4: app] Error 1", 2);
    w.bash("grep -n png Makefile", "4:LIBS = -lpng12");
    w.bash("sed -i 's/-lpng12/-lpng16/' Makefile", "");
    w.bash("make -j4", "cc -o app main.o -lpng16");
    const { r, item } = await draftsOf(w);
    expect(r.drafts[0]!.fix).toMatchObject([{ kind: "command", command: "sed -i 's/-lpng12/-lpng16/' Makefile", ok: true }]);
    expect(item.body).toContain("after `sed -i 's/-lpng12/-lpng16/' Makefile`");
  });

  test("a success of the same program spelled differently", async () => {
    const w = new SessionWriter(flavor);
    w.bash("pytest -q", "E   ModuleNotFoundError: No module named 'requests'", 1);
    w.bash("pip install requests", "Successfully installed requests-2.32.3");
    w.bash("python -m pytest -q", "3 passed");
    const { r, item } = await draftsOf(w);
    expect(r.drafts).toHaveLength(1);
    expect(r.drafts[0]).toMatchObject({ program: "pytest", failed: { command: "pytest -q" }, worked: { command: "python -m pytest -q" } });
    expect(r.drafts[0]!.fix).toMatchObject([{ kind: "command", command: "pip install requests" }]);
    expect(parseDrafts(item.body)).toEqual([
      {
        program: "pytest",
        failedCommand: "pytest -q",
        keyLines: ["E   ModuleNotFoundError: No module named 'requests'"],
        fix: [{ kind: "command", command: "pip install requests" }],
        workedCommand: "python -m pytest -q",
        entries: `${r.drafts[0]!.failed.entryId}..${r.drafts[0]!.worked.entryId}`,
      },
    ]);
  });
});

describe("fix steps", () => {
  test("failed steps count too, read-only ones and failed edits do not, and only steps after the last failure", async () => {
    const w = new SessionWriter("pi");
    w.bash("cargo build", "error[E0432]: unresolved import `serde`", 101);
    w.bash("cargo build", "error[E0432]: unresolved import `serde`", 101);
    w.bash("git status", "On branch main");
    w.bash("cat Cargo.toml", "[dependencies]");
    w.tool("edit", { path: "Cargo.toml", edits: [{ oldText: "nope", newText: "x" }] }, "Could not find the exact text", true);
    w.bash("apt-get install libfoo", "E: Unable to locate package libfoo", 100);
    w.tool("write", { path: "Cargo.toml", content: '[dependencies]\nserde = "1"\n' }, "Wrote Cargo.toml");
    w.bash("cargo build", "Finished dev");
    const { r, item } = await draftsOf(w);
    expect(r.drafts).toHaveLength(1);
    expect(r.drafts[0]!.attempts).toBe(2);
    expect(r.drafts[0]!.fix).toMatchObject([
      { kind: "command", command: "apt-get install libfoo", ok: false, exitCode: 100 },
      { kind: "change", verb: "wrote", path: "Cargo.toml", diff: ["+[dependencies]", '+serde = "1"'] },
    ]);
    expect(item.body).toContain("    (exit 100) $ apt-get install libfoo");
    expect(item.body).toContain("### `cargo` failed, then worked after writing Cargo.toml");
  });

  test("a preparing command of the failed program is a step of the fix, not the success", async () => {
    const w = new SessionWriter("pi");
    w.bash("cargo build", "error[E0432]: unresolved import `serde`", 101);
    w.bash("cargo add serd", "error: the crate `serd` could not be found in registry index.", 101);
    w.bash("cargo add serde", "Adding serde v1.0.215 to dependencies");
    w.bash("cargo build", "Finished dev");
    const { r } = await draftsOf(w);
    // The typo'd crate name fixed by typing it again is no draft of its own (teach.ts retyped).
    expect(r.drafts.map((d) => [d.failed.command, d.worked.command, d.fix.map((s) => s.kind === "command" && s.command)])).toEqual([
      ["cargo build", "cargo build", ["cargo add serd", "cargo add serde"]],
    ]);
  });

  test("a fix that spans two captures (compaction, then shutdown) is kept by the cursor", async () => {
    const box = sandbox("rkb-fix");
    const path = join(box.dir, "s.jsonl");
    const w = new SessionWriter("omp");
    w.bash("pytest", "E   ModuleNotFoundError: No module named 'yaml'", 1);
    w.bash("pip install pyyaml", "Successfully installed pyyaml-6.0.2");
    writeFileSync(path, w.text());
    await capture({ sessionFile: path, env: box.env, reason: "pre-compact" });
    w.compaction();
    w.bash("pytest", "1 passed");
    writeFileSync(path, w.text());
    const r = await capture({ sessionFile: path, env: box.env, reason: "session-end" });
    expect(r.drafts[0]!.fix).toMatchObject([{ kind: "command", command: "pip install pyyaml" }]);
  });

  test("only the steps right before the success are kept, with a count of the rest", async () => {
    const w = new SessionWriter("pi");
    w.bash("make", "error: missing config.h", 2);
    for (let i = 0; i < 15; i++) w.bash(`touch step${i}`, "");
    w.bash("make", "ok");
    const { r, item } = await draftsOf(w);
    expect(r.drafts[0]!.fix).toHaveLength(10);
    expect(r.drafts[0]!.fixDropped).toBe(5);
    expect(r.drafts[0]!.fix.at(-1)).toMatchObject({ command: "touch step14" });
    expect(item.body).toContain("Fix (10 steps between the failure and the success; 5 earlier steps left out):");
  });
});

describe("fileChange", () => {
  test("every edit shape gives its path and a short diff", () => {
    expect(fileChange("edit", { path: "a.py", oldText: "x = 1\ny = 2\nz = 3", newText: "x = 1\ny = 20\nz = 3" })).toEqual({
      verb: "edited",
      path: "a.py",
      diff: ["-y = 2", "+y = 20"],
    });
    expect(fileChange("edit", { path: "a.py", old_string: "a", new_string: "b" })).toEqual({ verb: "edited", path: "a.py", diff: ["-a", "+b"] });
    expect(
      fileChange("MultiEdit", {
        file_path: "b.ts",
        edits: [
          { old_string: "a", new_string: "b" },
          { old_string: "c", new_string: "d" },
        ],
      }),
    ).toEqual({ verb: "edited", path: "b.ts", diff: ["-a", "+b", "-c", "+d"] });
    expect(fileChange("edit", { path: "c.rs", edits: [{ op: "update", diff: "@@\n-old\n+new\n" }] })).toEqual({
      verb: "edited",
      path: "c.rs",
      diff: ["-old", "+new"],
    });
    expect(fileChange("edit", { input: "*** Begin Patch\n*** Update File: src/d.go\n@@ func main\n-\tfoo()\n+\tbar()\n*** End Patch" })).toEqual({
      verb: "edited",
      path: "src/d.go",
      diff: ["-\tfoo()", "+\tbar()"],
    });
    expect(fileChange("Write", { file_path: "e.txt", content: "one\ntwo\n" })).toEqual({ verb: "wrote", path: "e.txt", diff: ["+one", "+two"] });
    expect(fileChange("NotebookEdit", { notebook_path: "n.ipynb", new_source: "print(1)" })).toEqual({ verb: "edited", path: "n.ipynb", diff: ["+print(1)"] });
    expect(fileChange("read", { path: "a.py" })).toBeUndefined();
    expect(fileChange("edit", "nonsense")).toBeUndefined();
  });
  test("a diff is at most 12 lines, each cut to a readable length", () => {
    const big = fileChange("write", { path: "big.txt", content: Array.from({ length: 500 }, (_, i) => `line ${i} ${"x".repeat(400)}`).join("\n") })!;
    expect(big.diff).toHaveLength(12);
    expect(big.diff.at(-1)).toBe("… 489 more lines");
    expect(Math.max(...big.diff.map((l) => l.length))).toBeLessThanOrEqual(160);
  });
});

describe("secrets in fix steps", () => {
  test.each(FLAVORS)("%s: no secret from a command or an edit reaches any file rkb writes", async (flavor) => {
    const box = sandbox("rkb-fix-secrets");
    const sessions = join(box.dir, "sessions");
    const w = new SessionWriter(flavor);
    w.bash("twine upload dist/*", "HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\nInvalid or non-existent authentication information.", 1);
    w.bash(`echo "//registry.npmjs.org/:_authToken=${SECRETS.npm}" > ~/.npmrc`, "");
    w.bash(`export GITHUB_TOKEN=${SECRETS.github} && git push https://x-access-token:${SECRETS.githubPat}@github.com/acme/app.git`, "");
    editLine(w, ".env", "API_KEY=", `API_KEY=${SECRETS.openai}`);
    w.tool(
      flavor === "claude-code" ? "Write" : "write",
      { path: "deploy.key", file_path: "deploy.key", content: `-----BEGIN RSA PRIVATE KEY-----\n${SECRETS.pemBody}\n-----END RSA PRIVATE KEY-----\n` },
      "Wrote deploy.key",
    );
    w.bash("twine upload dist/*", "View at: https://pypi.org/project/app/1.0.0/");
    require("node:fs").mkdirSync(sessions);
    writeFileSync(join(sessions, "s.jsonl"), w.text());
    const run = await rkb(["extract", sessions, "--report", join(box.dir, "report.md"), "--format", "json"], { env: box.env });
    expect(run.exit).toBe(0);
    expect(run.json().drafts[0].fix).toHaveLength(4);
    const written = [run.stdout, run.stderr, ...filesUnder(box.home), readFileSync(join(box.dir, "report.md"), "utf8")].join("\n");
    expect(written).toContain("registry.npmjs.org");
    expect(written).toContain("API_KEY=");
    for (const secret of Object.values(SECRETS)) expect(written).not.toContain(secret);
  });
});

/** The text of every file below dir (SQLite files included, as bytes read as text). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out.push(readFileSync(path, "latin1"));
  }
  return out;
}
