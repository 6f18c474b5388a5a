import { planUnarchive } from "../plan/status.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { needsUserOutput, writtenOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "unarchive",
  description: "Bring an archived lesson back into search",
  examples: ["rkb unarchive 2b81d05e77"],
  input: (Type) =>
    Type.Object(
      {
        id: Type.String({ description: "Lesson id" }),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["id"] },
  async run(input, ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx, (kb) => planUnarchive(findLesson(kb, input.id)));
    if (waitsForUser(written)) return needsUserOutput(written);
    return writtenOutput(written);
  },
});
