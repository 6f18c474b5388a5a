import { planArchive } from "../kb/changes.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact } from "../kb/write.ts";
import { writtenOutput } from "../output/written.ts";
import { Type } from "typebox";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "archive",
  description: "Take a lesson out of search, keeping its file and history",
  examples: ['rkb archive 2b81d05e77 --reason "the cluster was retired"'],
  input: Type.Object(
    {
      id: Type.String({ description: "Lesson id" }),
      reason: Type.Optional(Type.String({ description: "Why it is archived" })),
    },
    { additionalProperties: false },
  ),
  cli: { positionals: ["id"] },
  async run(input, ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx.env, (kb) => planArchive(findLesson(kb, input.id), input.reason));
    return writtenOutput(written, [`rkb unarchive ${input.id}`]);
  },
});
