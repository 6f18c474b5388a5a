import type { LessonWrite } from "../plan/changes.ts";
import { openKb } from "../kb/open.ts";
import { planMove } from "../plan/relocate.ts";
import { findLesson } from "../kb/store.ts";
import { transact, type Written, waitsForUser } from "../write/write.ts";
import { needsUserOutput, unchangedOutput, writtenOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "move",
  description: "Move a lesson (and its images) to another topic folder; links to it are rewritten",
  examples: ["rkb move 7f3a9c2b41 build-tools", "rkb move 7f3a9c2b41 projects/imgtool/cmake"],
  input: (Type) =>
    Type.Object(
      {
        id: Type.String({ description: "Lesson id" }),
        topic: Type.String({ description: "Topic of the lesson's scope (a name or an alias), or a full topic folder such as general/rust" }),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["id", "topic"] },
  async run(input, ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx, (kb) => planMove(kb, findLesson(kb, input.id), input.topic));
    if (waitsForUser(written)) return needsUserOutput(written);
    const r = written.result;
    if ("unchanged" in r) return unchangedOutput(r.id, r.path, r.message);
    return writtenOutput(written as Written<LessonWrite>, [`rkb show ${input.id}`]);
  },
});
