import type { LessonWrite } from "../plan/changes.ts";
import { openKb } from "../kb/open.ts";
import { planRename } from "../plan/relocate.ts";
import { findLesson } from "../kb/store.ts";
import { transact, type Written, waitsForUser } from "../write/write.ts";
import { usageError } from "../base/errors.ts";
import { needsUserOutput, unchangedOutput, writtenOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "rename",
  description: "Give a lesson a new title; its file name (and images folder) follow, links to it are rewritten",
  examples: ['rkb rename 7f3a9c2b41 "CMake needs ZLIB_ROOT when zlib lives in /opt"', "rkb rename 7f3a9c2b41 --slug zlib-root   # only the file name"],
  input: (Type) =>
    Type.Object(
      {
        id: Type.String({ description: "Lesson id" }),
        title: Type.Optional(Type.String({ description: "The new title (the words after the id)" })),
        slug: Type.Optional(Type.String({ description: "Only rename the file to <slug>.md and keep the title (as the Rust rkb's `rename <id> <slug>`)" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["id"], variadic: "title", flags: { slug: { valueHint: "slug" } } },
  async run(input, ctx) {
    const hasTitle = input.title !== undefined && input.title.trim() !== "";
    if (hasTitle === (input.slug !== undefined))
      throw usageError(
        hasTitle ? "`rkb rename` takes a new title or --slug, not both" : "`rkb rename` needs a new title or --slug",
        'e.g. rkb rename <id> "A sharper title" or rkb rename <id> --slug new-name',
      );
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx, (kb) => planRename(kb, findLesson(kb, input.id), { title: input.title, slug: input.slug }));
    if (waitsForUser(written)) return needsUserOutput(written);
    const r = written.result;
    if ("unchanged" in r) return unchangedOutput(r.id, r.path, r.message);
    return writtenOutput(written as Written<LessonWrite>, [`rkb show ${input.id}`]);
  },
});
