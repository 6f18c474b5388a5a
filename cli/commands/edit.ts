import { planEdit } from "../plan/changes.ts";
import { openKb, provenance } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { CONTENT_HASH } from "../lesson/lesson.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { usageError } from "../base/errors.ts";
import { needsUserOutput, unchangedOutput, writtenOutput } from "../output/written.ts";
import { defineCommand, type TypeBuilder } from "./_shared.ts";

export const editInput = (Type: TypeBuilder) =>
  Type.Object(
    {
      id: Type.String({ description: "Lesson id" }),
      base: Type.Optional(Type.String({ description: "The lesson's hash that show printed for the version you edited" })),
      text: Type.Optional(Type.String({ description: "The whole new file: frontmatter and body" })),
      session: Type.Optional(Type.String({ description: "Session id to record as the editor" })),
    },
    { additionalProperties: false },
  );

export default defineCommand({
  name: "edit",
  description: "Replace a lesson with the whole new file from stdin, if nobody changed it since you read it",
  examples: ["rkb show 7f3a9c2b41 --format json   # note the hash", "rkb edit 7f3a9c2b41 --base 3c1f0a9e2b7d < lesson.md"],
  input: editInput,
  // The new file comes on stdin.
  cli: { positionals: ["id"], stdin: "text" },
  async run(input, ctx) {
    if (!input.base)
      throw usageError("`rkb edit` needs --base <hash>", "run `rkb show <id>` and pass the hash it prints, so a concurrent change is not overwritten");
    if (!CONTENT_HASH.test(input.base)) {
      const flag = ctx.caller.origin === "tool" ? "`base`" : "--base";
      throw usageError(
        `${flag} ${JSON.stringify(input.base)} is not a lesson hash (12 lowercase hex characters)`,
        `run \`rkb show ${input.id}\` and pass the hash it prints, e.g. ${flag} 3c1f0a9e2b7d`,
      );
    }
    const text = input.text ?? (await ctx.stdin());
    if (!text.trim()) throw usageError("no lesson on stdin", "pipe the whole new lesson file into `rkb edit`");
    const { root } = openKb(ctx, "write");
    const { id, base } = input;
    const written = await transact(root, ctx, (kb) => planEdit({ lesson: findLesson(kb, id), base, text, source: provenance(ctx.caller, input.session) }));
    if (waitsForUser(written)) return needsUserOutput(written);
    if ("unchanged" in written.result) return unchangedOutput(id, written.result.path, "the new text is the same as the lesson");
    return writtenOutput(written as any, [`rkb show ${id}`], { warnings: true });
  },
});
