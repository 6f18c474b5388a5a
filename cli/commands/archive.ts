import { planArchive } from "../kb/changes.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact } from "../kb/write.ts";
import { writtenOutput } from "../output/written.ts";
import { defineRkbCommand } from "./_shared.ts";

export default defineRkbCommand({
  name: "archive",
  description: "Take a lesson out of search, keeping its file and history",
  examples: ['rkb archive 2b81d05e77 --reason "the cluster was retired"'],
  args: {
    id: { type: "positional", required: true, description: "Lesson id" },
    reason: { type: "string", description: "Why it is archived" },
  },
  async run(ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx.env, (kb) => planArchive(findLesson(kb, ctx.args.id), ctx.args.reason));
    return writtenOutput(written, [`rkb unarchive ${ctx.args.id}`]);
  },
});
