import { countsHere } from "../kb/overview.ts";
import { lessonsByScope } from "../kb/index.ts";
import { openSearch } from "../search/search.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "context",
  description: "At most five lines telling an agent what the knowledge base holds here (for the start of a session)",
  examples: ["rkb context", "rkb context --toon"],
  input: (Type) => Type.Object({}, { additionalProperties: false }),
  run(_input, ctx) {
    // The search index's cache has the counts: no need to parse every lesson at each session start.
    const { index, place } = openSearch(ctx.env, ctx.cwd, ctx.place);
    const n = countsHere(lessonsByScope(index), place);
    const where = [
      place.project ? `project ${place.project.name} (${place.project.rule})` : "no project matched",
      place.system ? `system ${place.system.name} (${place.system.rule})` : "no system matched",
    ].join(", ");
    const lines = [
      `rkb: ${where}; lessons here: ${n.project} project, ${n.system} system, ${n.general} general.`,
      'rkb holds lessons from earlier sessions: when a command fails or before a web search, search them first (rkb_search, or `rkb search "<words>" --toon`).',
      "When you learn something that will matter again (a fix that worked, a correction from the user), record it with rkb_add, or rkb_note if unsure.",
      "more: `rkb list --toon`; read a lesson with rkb_show.",
    ];
    return { data: { rkb: lines[0], lessons: n, first: lines[1], next: lines.slice(2) }, human: lines.join("\n") };
  },
});
