import { changesSince } from "../kb/history.ts";
import { requireReadableKb } from "../lesson/layout.ts";
import { kbRoot } from "../machine/settings.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "changes",
  description: "What rkb changed in the knowledge base (adds, edits, flags, …) since a date, newest first",
  examples: ["rkb changes", 'rkb changes --since "2 weeks ago" --toon'],
  input: (Type) =>
    Type.Object(
      { since: Type.Optional(Type.String({ default: "7 days ago", description: "A git date: `7 days ago`, `2026-11-01`, `yesterday`" })) },
      { additionalProperties: false },
    ),
  run(input, ctx) {
    const root = kbRoot(ctx.env);
    requireReadableKb(root);
    const since = input.since ?? "7 days ago";
    const changes = changesSince(root, since, ctx.env);
    const human = changes.length
      ? changes
          .map(
            (c) =>
              `${c.commit}  ${c.date.slice(0, 10)}  ${c.kind.padEnd(9)} ${c.id ?? "".padEnd(10)}  ${c.title}  (${c.folder})${c.reason ? `\n    why: ${c.reason}` : ""}`,
          )
          .join("\n")
      : `No changes since ${since}.`;
    return { data: { since, changes, help: ["rkb log <id>", "rkb show <id>"] }, human };
  },
});
