import { existsSync } from "node:fs";
import { join } from "node:path";
import { lessonsUnder, topicCounts } from "../kb/overview.ts";
import { RkbError } from "../output/errors.ts";
import { indexedLessons } from "../search/index.ts";
import { openSearch } from "../search/search.ts";
import { Type } from "typebox";
import { defineCommand } from "./_shared.ts";

const MARK: Record<string, string> = { pitfall: "!", recipe: ">", fact: "=", decision: "#", preference: "~" };

export default defineCommand({
  name: "list",
  description: "Overview of the knowledge base, or the lessons of one folder",
  examples: ["rkb list", "rkb list general/git", "rkb list projects/dftracer --toon"],
  input: Type.Object(
    {
      folder: Type.Optional(Type.String({ description: "A scope, project, system or topic folder" })),
    },
    { additionalProperties: false },
  ),
  cli: { positionals: ["folder"] },
  run(input, ctx) {
    const { index } = openSearch(ctx.env, ctx.cwd, ctx.place);
    const all = indexedLessons(index);
    const folder = input.folder?.replace(/\/+$/, "");
    if (!folder) {
      const topics = topicCounts(all);
      const total = all.length;
      const human = [
        `${total} lessons in ${topics.length} topics`,
        ...topics.map((t) => `  ${t.folder.padEnd(40)} ${t.lessons}`),
        "Next: rkb list <folder>",
      ].join("\n");
      return { data: { lessons: total, topics, help: ["rkb list <folder> --toon"] }, human };
    }
    const lessons = lessonsUnder(all, folder);
    if (!lessons.length && !existsSync(join(index.root, folder))) {
      throw new RkbError("not_found", `no folder ${folder} in the knowledge base`, "run `rkb list` to see the folders");
    }
    const rows = lessons.map((l) => ({
      id: l.id,
      type: l.type,
      status: l.status,
      title: l.title,
      summary: l.summary,
      tags: l.tags.join(" "),
      when: Object.entries(l.when)
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("|") : v}`)
        .join(" "),
      verified: l.verified,
    }));
    const human = rows.length
      ? rows
          .map(
            (r) =>
              `${MARK[r.type] ?? "?"} ${r.id}  ${r.title}${r.status === "active" ? "" : `  (${r.status})`}${r.tags ? `  [${r.tags}]` : ""}${r.summary ? `\n    ${r.summary}` : ""}`,
          )
          .join("\n")
      : `no lessons under ${folder}`;
    return { data: { folder, lessons: rows, help: ["rkb show <id>"] }, human };
  },
});
