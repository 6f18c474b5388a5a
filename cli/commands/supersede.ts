import { planSupersede } from "../plan/status.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { usageError } from "../base/errors.ts";
import { needsUserOutput, writtenOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "supersede",
  description: "Replace a lesson by a newer one; the old one stays, marked superseded, with a link",
  examples: ['rkb supersede 5d2e8a1c90 --by 7f3a9c2b41 --reason "merged into one lesson"'],
  input: (Type) =>
    Type.Object(
      {
        id: Type.String({ description: "Id of the lesson being replaced" }),
        by: Type.Optional(Type.String({ description: "Id of the lesson that replaces it" })),
        reason: Type.Optional(Type.String({ description: "Why" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["id"] },
  async run(input, ctx) {
    if (!input.by) throw usageError("`rkb supersede` needs --by <id>", "name the lesson that replaces it");
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx, (kb) => planSupersede(findLesson(kb, input.id), findLesson(kb, input.by!), input.reason));
    if (waitsForUser(written)) return needsUserOutput(written);
    return writtenOutput(written);
  },
});
