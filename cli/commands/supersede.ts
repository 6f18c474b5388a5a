import { planSupersede } from "../kb/changes.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact } from "../kb/write.ts";
import { usageError } from "../output/errors.ts";
import { writtenOutput } from "../output/written.ts";
import { defineRkbCommand } from "./_shared.ts";

export default defineRkbCommand({
  name: "supersede",
  description: "Replace a lesson by a newer one; the old one stays, marked superseded, with a link",
  examples: ['rkb supersede 5d2e8a1c90 --by 7f3a9c2b41 --reason "merged into one lesson"'],
  args: {
    id: { type: "positional", required: true, description: "Id of the lesson being replaced" },
    by: { type: "string", description: "Id of the lesson that replaces it" },
    reason: { type: "string", description: "Why" },
  },
  async run(ctx) {
    if (!ctx.args.by) throw usageError("`rkb supersede` needs --by <id>", "name the lesson that replaces it");
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx.env, (kb) => planSupersede(findLesson(kb, ctx.args.id), findLesson(kb, ctx.args.by!), ctx.args.reason));
    return writtenOutput(written);
  },
});
