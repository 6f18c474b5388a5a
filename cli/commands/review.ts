import { counted } from "../output/words.ts";
import { loadKbConfig } from "../lesson/config.ts";
import { requireReadableKb } from "../lesson/layout.ts";
import { isUnder, lessonsUnder, listedFolder } from "../kb/overview.ts";
import { reviewCandidates } from "../kb/review.ts";
import { readUsage } from "../kb/usage.ts";
import { indexedLessons, loadIndex } from "../kb/index.ts";
import { kbRoot } from "../machine/settings.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "review",
  description: "Lessons that need a person's eye (stale, failing, unused, weak), with the reasons",
  examples: ["rkb review", "rkb review general/git --signals --toon"],
  input: (Type) =>
    Type.Object(
      {
        folder: Type.Optional(Type.String({ description: "Only lessons under this folder" })),
        signals: Type.Optional(Type.Boolean({ description: "Add each lesson's use counts (worked, failed, injected, inferred, irrelevant)" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["folder"] },
  run(input, ctx) {
    // From the cached search index, like dupes: no lesson is read when nothing changed since the last search.
    const root = kbRoot(ctx.env);
    requireReadableKb(root);
    const index = loadIndex(root, ctx.env);
    const all = indexedLessons(index);
    // The folders list knows (a scope, project, system or topic), never one outside the knowledge base.
    const folder = listedFolder(root, input.folder)?.folder;
    const lessons = folder ? lessonsUnder(all, folder) : all;
    const candidates = reviewCandidates(lessons, readUsage(root), loadKbConfig(root)).map(({ lesson, reasons, counts }) => ({
      id: lesson.id,
      title: lesson.title,
      path: lesson.path,
      status: lesson.status,
      reasons,
      last_worked: counts?.lastWorked ?? null,
      last_failed: counts?.lastFailed ?? null,
      ...(input.signals
        ? {
            signals: {
              worked: counts?.worked ?? 0,
              failed: counts?.failed ?? 0,
              injected: counts?.injected ?? 0,
              inferred: counts?.inferred ?? 0,
              irrelevant: counts?.irrelevant ?? 0,
              last_used: counts?.lastSeen ?? null,
            },
          }
        : {}),
    }));
    // A lesson file that does not parse is in no search: the first thing a person should fix.
    const unreadable = index.unreadable.filter((u) => isUnder(u.path, folder));
    const help = ["rkb show <id>", "rkb edit <id> --base <hash>", "rkb flag <id> --reason <why>", "rkb archive <id> --reason <why>"];
    const unreadableLines = unreadable.length
      ? [
          `${unreadable.length === 1 ? "1 lesson file does" : `${unreadable.length} lesson files do`} not parse, so no search finds them (fix each; \`rkb lint\` lists every problem):`,
          ...unreadable.map((u) => `  ${u.path}:${u.line}: ${u.message}`),
        ]
      : [];
    const lessonLines = candidates.length
      ? [
          ...candidates.map((c) => {
            const signals = c.signals
              ? `\n    used: worked ${c.signals.worked}, failed ${c.signals.failed}, injected ${c.signals.injected}, inferred ${c.signals.inferred}, irrelevant ${c.signals.irrelevant}`
              : "";
            return `${c.id}  ${c.title}  (${c.path}${c.status === "active" ? "" : `, ${c.status}`})\n${c.reasons.map((r) => `    ${r.kind}: ${r.detail}`).join("\n")}${signals}`;
          }),
          `${counted(candidates.length, "lesson")} to review`,
          "Next: rkb show <id>, then edit, flag or archive it",
        ]
      : unreadable.length
        ? []
        : ["Nothing to review: every current lesson is verified, used and specific."];
    return { data: { candidates, unreadable, help }, human: [...unreadableLines, ...lessonLines].join("\n") };
  },
});
