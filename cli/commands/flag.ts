import { planFlag } from "../kb/changes.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact } from "../kb/write.ts";
import { writtenOutput } from "../output/written.ts";
import { defineRkbCommand } from "./_shared.ts";

export default defineRkbCommand({
  name: "flag",
  description: "Mark a lesson stale, with the reason it may be wrong",
  examples: ['rkb flag 7f3a9c2b41 --reason "HDF5 2.0 ships a CMake config; the fix is no longer needed"'],
  args: {
    id: { type: "positional", required: true, description: "Lesson id" },
    reason: { type: "string", description: "Why the lesson may be wrong" },
  },
  async run(ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx.env, (kb) => planFlag(findLesson(kb, ctx.args.id), ctx.args.reason));
    return writtenOutput(written, [`rkb edit ${ctx.args.id} --base <hash>  # fix the Evidence to make it active again`]);
  },
});
