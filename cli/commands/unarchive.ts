import { planUnarchive } from "../kb/changes.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact } from "../kb/write.ts";
import { writtenOutput } from "../output/written.ts";
import { defineRkbCommand } from "./_shared.ts";

export default defineRkbCommand({
  name: "unarchive",
  description: "Bring an archived lesson back into search",
  examples: ["rkb unarchive 2b81d05e77"],
  args: { id: { type: "positional", required: true, description: "Lesson id" } },
  async run(ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx.env, (kb) => planUnarchive(findLesson(kb, ctx.args.id)));
    return writtenOutput(written);
  },
});
