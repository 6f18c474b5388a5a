import { countsHere } from "../kb/overview.ts";
import { lessonsByScope } from "../kb/index.ts";
import { openSearch } from "../search/search.ts";
import { git } from "../base/git.ts";
import { tildify } from "../machine/settings.ts";
import { defineCommand } from "./_shared.ts";
import { counted } from "../output/words.ts";

export default defineCommand({
  name: "status",
  description: "Where rkb runs: the knowledge base, the matched project and system, and lesson counts (also plain `rkb`)",
  examples: ["rkb", "rkb --project dftracer --format json"],
  input: (Type) => Type.Object({}, { additionalProperties: false }),
  run(_input, ctx) {
    // The search index's cache has the counts: no need to parse every lesson at each session start.
    const { index, place } = openSearch(ctx.env, ctx.cwd, ctx.place);
    const root = index.root;
    const lessons = countsHere(lessonsByScope(index), place);
    const others = countsHere(lessonsByScope(index, false), place);
    const uncommitted = git(root, ["status", "--porcelain"], { env: ctx.env }).stdout.split("\n").filter(Boolean).length;
    const data = {
      bin: tildify(process.execPath),
      description: "rkb: lessons learned, for pi and omp",
      kb: tildify(root),
      project: place.project ?? null,
      system: place.system ?? null,
      lessons,
      archived_or_superseded: others,
      uncommitted,
      help: place.project ? [`rkb list projects/${place.project.name}`] : ["rkb list", "--project <name> sets the project"],
    };
    const count = (key: keyof typeof lessons) =>
      `${counted(lessons[key], "lesson")} in search${others[key] ? ` (+${others[key]} archived or superseded)` : ""}`;
    const row = (label: "project" | "system", m: { name: string; rule: string } | undefined) =>
      m ? `  ${label.padEnd(8)} ${m.name} (${m.rule}): ${count(label)}` : `  ${label.padEnd(8)} none matched here; --${label} <name> sets it`;
    const human = [
      `knowledge base ${tildify(root)}${uncommitted ? ` (${counted(uncommitted, "uncommitted change")})` : ""}`,
      row("project", place.project),
      row("system", place.system),
      `  general  ${count("general")}`,
      `Next: rkb list${place.project ? ` projects/${place.project.name}` : ""}`,
    ].join("\n");
    return { data, human };
  },
});
