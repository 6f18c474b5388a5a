import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseLesson } from "../../cli/lesson/lesson.ts";
import { distilledSince } from "../../cli/machine/state.ts";
import { kbFromFixture, rkb, sandbox } from "../helpers.ts";
import { SECRETS } from "../sessions/secret-samples.ts";
import { SessionWriter } from "../sessions/session-writer.ts";

// The learning loop on the compiled binary: a failure nothing covers in an archive of sessions, its
// inbox item turned into a lesson with `rkb add --from`, and the same failure then covered.

const WIDGET_ERROR = "widget: error: calibration table missing for sensor array (run widget-calibrate first)";

test("eval --replay is silent on a failure; add --from its inbox item; eval --replay then injects the new lesson for it", async () => {
  const box = sandbox("rkb-loop");
  kbFromFixture(box);
  const archive = join(box.dir, "archive");
  mkdirSync(archive);

  const a = new SessionWriter("pi");
  a.user("Build the firmware.");
  a.bash("widget build --target fw", `Loading config from /home/dev/fw/widget.toml\n${WIDGET_ERROR}`, 3);
  a.bash("cat widget.toml", "[target]");
  a.bash(`WIDGET_TOKEN=${SECRETS.github} widget-calibrate --all`, "calibrated 12 sensors");
  a.tool("edit", { path: "widget.toml", edits: [{ oldText: "calibrate = false", newText: "calibrate = true" }] }, "ok");
  a.bash("time widget build --target fw", "built fw.bin");
  writeFileSync(join(archive, "a.jsonl"), a.text());
  // Another session, another machine: the same failure with other paths.
  const b = new SessionWriter("omp");
  b.bash("widget build", `Loading config from /srv/ci/widget.toml\n${WIDGET_ERROR}`, 3);
  writeFileSync(join(archive, "b.jsonl"), b.text());

  const before = (await rkb(["eval", "--replay", archive, "--format", "json"], { env: box.env })).json();
  expect(before.failures).toBe(2);
  expect(before.covered).toBe(0);
  expect(before.uncovered).toEqual([expect.objectContaining({ program: "widget", count: 2, example: WIDGET_ERROR })]);

  expect((await rkb(["extract", archive], { env: box.env })).exit).toBe(0);
  const inbox = await rkb(["inbox", "--format", "json"], { env: box.env });
  // a's failure was fixed: a draft pitfall; b met it again unfixed: a repeat, without a draft.
  const items = inbox.json().items;
  expect(items).toHaveLength(2);
  const item = items.find((i: any) => i.add);
  const repeat = items.find((i: any) => !i.add);
  expect(repeat.signals).toEqual(["repeat widget"]);
  expect(item.add).toEqual([`rkb add --from ${item.id} --topic widget --cause "<why it failed>"`]);
  const human = await rkb(["inbox"], { env: box.env });
  expect(human.stdout).toContain(`rkb add --from ${item.id} --topic widget --cause "<why it failed>"`);

  const added = await rkb(
    [
      "add",
      "--from",
      item.id,
      "--topic",
      "widget",
      "--cause",
      "The sensor calibration table is generated, not checked in; a fresh checkout has none.",
      "--format",
      "json",
    ],
    {
      env: box.env,
    },
  );
  expect(added.exit).toBe(0);
  const id = added.json().id as string;
  const path = join(box.kb, added.json().path);
  const lesson = readFileSync(path, "utf8");
  expect(lesson).toContain(`queries:\n  - "${WIDGET_ERROR}"`);
  // Read as YAML: an id such as 577e373936 is written quoted, or it would read as a number.
  expect((parseLesson(lesson, path).frontmatter.meta as any).source.item).toBe(item.id);
  expect(lesson).toContain(`session: ${a.sessionId}`);
  expect(lesson).toContain("harness: pi");
  expect(lesson).toMatch(/entries: "?\w+\.\.\w+"?/);
  expect(lesson).toContain("widget-calibrate --all");
  expect(lesson).toContain("+calibrate = true");
  for (const secret of Object.values(SECRETS)) expect(lesson).not.toContain(secret);
  // The item is distilled: gone from the inbox, its outcome logged.
  expect((await rkb(["inbox", "--format", "json"], { env: box.env })).json().items.map((i: any) => i.id)).toEqual([repeat.id]);
  expect(distilledSince(box.env, 0)).toEqual([expect.objectContaining({ item: item.id, op: "add", lesson: id })]);

  const after = (await rkb(["eval", "--replay", archive, "--format", "json"], { env: box.env })).json();
  expect(after.covered).toBe(2);
  expect(after.lessons).toEqual([{ id, title: expect.stringContaining("widget fails"), count: 2 }]);

  // The summary is the whole first sentence of the filled Symptom, in search results too.
  const search = (await rkb(["search", "widget calibration table missing", "--format", "json"], { env: box.env })).json();
  expect(search.results[0].id).toBe(id);
  expect(search.results[0].summary).toBe(`Running \`widget build --target fw\` fails with \`${WIDGET_ERROR}\`.`);

  // Nothing rkb wrote holds the secret the fix step carried.
  for (const file of filesUnder(box.dir)) expect(readFileSync(file, "latin1")).not.toContain(SECRETS.github);
});

test("add --from errors name the fix: an unknown item, a draft it does not have", async () => {
  const box = sandbox("rkb-loop");
  kbFromFixture(box);
  const unknown = await rkb(["add", "--from", "0123456789", "--topic", "x", "--format", "json"], { env: box.env });
  expect(unknown.exit).toBe(1);
  expect(unknown.json().error).toMatchObject({ code: "not_found", message: "no inbox item `0123456789`" });
});

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((n) => join(dir, n)).filter((p) => statSync(p).isFile() && !p.includes(`${"/"}archive${"/"}`));
}

test("a Symptom wrapped over several lines shows whole in search results, list and the block injected into a failed command", async () => {
  const box = sandbox("rkb-loop");
  kbFromFixture(box);
  const lesson = `---
type: pitfall
tags:
  - widget
---

# widget needs its calibration table

## Symptom
\`widget build\` stops with \`calibration table missing for sensor array\`
when the checkout is fresh, e.g. on CI, because the table is generated by
widget-calibrate v1.2 and kept out of git. More text follows.

## Cause
The table is generated.

## Fix
Run \`widget-calibrate --all\`.

## Evidence
\`widget build\` then printed \`built fw.bin\`.
`;
  const added = await rkb(["add", "--topic", "widget", "--format", "json"], { env: box.env, stdin: lesson });
  expect(added.exit).toBe(0);
  const id = added.json().id;
  const whole =
    "`widget build` stops with `calibration table missing for sensor array` when the checkout is fresh, e.g. on CI, because the table is generated by widget-calibrate v1.2 and kept out of git.";
  const search = (await rkb(["search", "widget calibration table", "--format", "json"], { env: box.env })).json();
  expect(search.results[0].summary).toBe(whole);
  expect((await rkb(["list", "general/widget", "--format", "json"], { env: box.env })).json().lessons[0].summary).toBe(whole);
  expect((await rkb(["list", "general/widget"], { env: box.env })).stdout).toContain(whole);
  const hook = await rkb(["hook", "tool-failed"], {
    env: box.env,
    stdin: JSON.stringify({ session_id: "s", cwd: box.home, harness: "pi", command: "widget build", error: `${WIDGET_ERROR}\n\n\nCommand exited with code 3` }),
  });
  expect(hook.stdout).toContain(`<rkb-lesson id="${id}"`);
  expect(hook.stdout).toContain(whole);
});
