import { planFlag } from "../plan/status.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { needsUserOutput, writtenOutput } from "../output/written.ts";
import { defineCommand, type TypeBuilder } from "./_shared.ts";

export const flagInput = (Type: TypeBuilder) =>
  Type.Object(
    { id: Type.String({ description: "Lesson id" }), reason: Type.Optional(Type.String({ description: "What is wrong with it" })) },
    { additionalProperties: false },
  );

export default defineCommand({
  name: "flag",
  description: "Mark a lesson stale, with the reason it may be wrong",
  examples: ['rkb flag 7f3a9c2b41 --reason "HDF5 2.0 ships a CMake config; the fix is no longer needed"'],
  input: flagInput,
  cli: { positionals: ["id"] },
  async run(input, ctx) {
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx, (kb) => planFlag(findLesson(kb, input.id), input.reason));
    if (waitsForUser(written)) return needsUserOutput(written);
    return writtenOutput(written, [`rkb edit ${input.id} --base <hash>  # fix the Evidence to make it active again`]);
  },
});
