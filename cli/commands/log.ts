import { lessonLog, recentLog } from "../kb/history.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { defineCommand } from "./_shared.ts";

const RECENT = 20;

export default defineCommand({
  name: "log",
  description: "The git history of one lesson (following renames), or the knowledge base's latest commits",
  examples: ["rkb log 7f3a9c2b41", "rkb log --toon"],
  input: (Type) =>
    Type.Object(
      { id: Type.Optional(Type.String({ description: "Lesson id; without it, the latest commits of the knowledge base" })) },
      { additionalProperties: false },
    ),
  cli: { positionals: ["id"] },
  run(input, ctx) {
    const { root, kb } = openKb(ctx, "read");
    if (!input.id) {
      const commits = recentLog(root, RECENT, ctx.env);
      return {
        data: { commits, help: ["rkb log <id>", "rkb changes --since '7 days ago'"] },
        human: commits.length ? commits.map((c) => `${c.commit}  ${c.date.slice(0, 10)}  ${c.subject}`).join("\n") : "No commits yet.",
      };
    }
    const lesson = findLesson(kb, input.id);
    const commits = lessonLog(root, lesson.path, ctx.env);
    const human = [`${lesson.id}  ${lesson.title}  (${lesson.path})`, ...commits.map((c) => `  ${c.commit}  ${c.date.slice(0, 10)}  ${c.subject}`)].join("\n");
    return { data: { id: lesson.id, path: lesson.path, commits, help: ["git show <commit>"] }, human };
  },
});
