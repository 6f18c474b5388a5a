import { readFileSync } from "node:fs";
import { join } from "node:path";
import { contentHash, parseLesson, summary } from "../kb/lesson.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { evaluateWhen } from "../kb/when.ts";
import { docOfId } from "../search/index.ts";
import { openSearch } from "../search/search.ts";
import { Type } from "typebox";
import { defineCommand } from "./_shared.ts";

export const showInput = Type.Object({ id: Type.String({ description: "Lesson id from rkb_search" }) }, { additionalProperties: false });

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
    const applies = evaluateWhen(lesson.when, place.facts, place);
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
      usage,
      applies,
      frontmatter: lesson.frontmatter,
      body: lesson.body,
      help: [`rkb edit ${lesson.id} --base ${hash} < new-file.md`, `rkb used ${lesson.id} --worked`],
    };
    const human = [`${lesson.path}  [${lesson.id}]  hash ${hash}  applies: ${applies.result}`, "", lesson.raw.trimEnd()].join("\n");
    return { data, human };
  },
});
