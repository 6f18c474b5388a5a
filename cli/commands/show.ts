import { readFileSync } from "node:fs";
import { join } from "node:path";
import { folderCondition } from "../lesson/layout.ts";
import { contentHash, parseLesson, summary, type Lesson } from "../lesson/lesson.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { evaluateWhen, factFlag, type WhenVerdict } from "../place/when.ts";
import { docOfId } from "../kb/index.ts";
import { openSearch } from "../search/search.ts";
import { defineCommand, type TypeBuilder } from "./_shared.ts";

export const showInput = (Type: TypeBuilder) =>
  Type.Object({ id: Type.String({ description: "Lesson id, as search prints it" }) }, { additionalProperties: false });

export default defineCommand({
  name: "show",
  description: "Show a whole lesson, its content hash (for `rkb edit --base`) and whether it applies here",
  examples: ["rkb show 7f3a9c2b41", "rkb show 7f3a9c2b41 --with hdf5=1.14.3 --toon"],
  input: showInput,
  cli: { positionals: ["id"] },
  run(input, ctx) {
    // The index finds the file; an id it lacks gets the full load, which names a broken lesson.
    const { index, place, usage: uses } = openSearch(ctx.env, ctx.cwd, ctx.place);
    const doc = docOfId(index, input.id);
    const path = doc >= 0 ? index.lesson(doc).path : undefined;
    const lesson = path ? parseLesson(readFileSync(join(index.root, path), "utf8"), path) : findLesson(openKb(ctx, "read").kb, input.id);
    // The folder is a condition too: a lesson in systems/tuolumne/ holds there, even with no `when.system`.
    const applies = evaluateWhen({ ...folderCondition(lesson.path), ...lesson.when }, place.facts, place);
    const usage = uses.get(lesson.id) ?? { worked: 0, failed: 0, injected: 0, inferred: 0, irrelevant: 0 };
    const hash = contentHash(lesson.raw);
    const data = {
      id: lesson.id,
      path: lesson.path,
      title: lesson.title,
      type: lesson.type,
      status: lesson.status,
      hash,
      summary: summary(lesson),
      last_worked: usage.lastWorked ?? null,
      last_failed: usage.lastFailed ?? null,
      usage,
      applies,
      frontmatter: lesson.frontmatter,
      body: lesson.body,
      help: [`rkb edit ${lesson.id} --base ${hash} < new-file.md`, `rkb used ${lesson.id} --worked`],
    };
    const human = [`${lesson.path}  [${lesson.id}]  hash ${hash}  applies: ${applies.result}`, appliesLine(applies, lesson), "", lesson.raw.trimEnd()].join(
      "\n",
    );
    return { data, human };
  },
});

/** Whether the lesson applies here, and why, in one line: the conditions that decided it, what they want and what this place has. */
function appliesLine(applies: WhenVerdict, lesson: Lesson): string {
  if (!applies.keys.length) return "Applies anywhere: it sits in general/ and has no `when` conditions.";
  const deciding = applies.keys.filter((k) => k.result === applies.result);
  const said = deciding.map((k) => {
    const wants = Object.hasOwn(lesson.when, k.key)
      ? `when.${k.key} wants ${k.want}`
      : `its folder ${lesson.path.split("/").slice(0, 2).join("/")}/ wants ${k.key} ${k.want}`;
    if (k.key === "since" || k.key === "until") return `${wants}: ${k.reason}`;
    if (applies.result === "yes") return `${wants}, and here ${k.key} is ${k.have}`;
    const here = k.have === null ? `rkb knows no ${k.key} here` : `here ${k.key} is ${k.have}`;
    return `${wants}, ${here} (${factFlag(k.key)} sets it)`;
  });
  const verdict = { yes: "Applies here", no: "Does not apply here", unknown: "May not apply here" }[applies.result];
  return `${verdict}: ${said.join("; ")}`;
}
