import { planArchive, planArchiveFolder } from "../plan/status.ts";
import { SCOPES } from "../lesson/schema.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { needsUserOutput, writtenOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "archive",
  description: "Take a lesson out of search, keeping its file and history",
  examples: ['rkb archive 2b81d05e77 --reason "the cluster was retired"', 'rkb archive systems/old-cluster --reason "the cluster was retired"'],
  input: (Type) =>
    Type.Object(
      {
        id: Type.String({ description: "Lesson id, or a folder (archives every lesson in it; asks you first)" }),
        reason: Type.Optional(Type.String({ description: "Why it is archived" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["id"] },
  async run(input, ctx) {
    const { root } = openKb(ctx, "write");
    const { id, reason } = input;
    // A folder (it holds a `/`, or is a scope) archives every lesson in it, once the user allows it.
    const folder = id.includes("/") || (SCOPES as readonly string[]).includes(id);
    const written = await transact(root, ctx, (kb) => (folder ? planArchiveFolder(kb, id, reason) : planArchive(findLesson(kb, id), reason)));
    if (waitsForUser(written)) return needsUserOutput(written);
    return writtenOutput(written, [`rkb unarchive ${input.id}`]);
  },
});
