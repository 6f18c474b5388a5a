import { resolve } from "node:path";
import { planImport, readImportFolder, type ImportReport } from "../plan/import.ts";
import { counted } from "../output/words.ts";
import { openKb, provenance } from "../kb/open.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { isAgent } from "../machine/settings.ts";
import { needsUserOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

// `rkb import <folder>`: lessons and notes from elsewhere (plan/import decides). A person at the CLI
// imports at once; an agent's import asks the person first (`rkb confirm … --choice "import all"`).

export default defineCommand({
  name: "import",
  description: "Import a folder of Markdown: lessons are linted and added in one commit, other notes go to the inbox",
  examples: [
    "rkb import ~/notes --dry-run   # what would be added, noted and left out, and why",
    "rkb import ~/notes",
    "rkb import old-kb/ --topic misc   # lessons at the top of the folder go to the topic misc",
  ],
  input: (Type) =>
    Type.Object(
      {
        folder: Type.String({
          description:
            "Folder of Markdown files: one whose frontmatter has a `type` is a lesson (its topic is the folder it is in), any other a note for the inbox",
        }),
        topic: Type.Optional(Type.String({ description: "Topic of the lessons at the top of the folder" })),
        dry_run: Type.Optional(Type.Boolean({ description: "Report what would be imported; write nothing" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["folder"] },
  async run(input, ctx) {
    const dryRun = Boolean(input.dry_run);
    const { root, kb } = openKb(ctx, dryRun ? "read" : "write");
    const scanned = readImportFolder(resolve(ctx.cwd, input.folder), root);
    const opts = {
      topic: input.topic,
      env: ctx.env,
      source: provenance(ctx.caller),
      inboxMeta: { kind: "note", time: Math.floor(Date.now() / 1000), harness: ctx.caller.harness, session: ctx.caller.sessionId, priority: 2 },
      ask: isAgent(ctx.caller),
    };
    if (dryRun) return report(planImport(kb, scanned, opts), { dryRun });
    let planned: ImportReport | undefined;
    const written = await transact(root, ctx, (current) => {
      planned = planImport(current, scanned, opts);
      return planned.plan;
    });
    if (waitsForUser(written)) return needsUserOutput(written);
    const done = planned!;
    return report(done, { commit: written.commit, inbox: written.inbox ?? [] });
  },
});

function report(r: ImportReport, how: { dryRun?: boolean; commit?: string; inbox?: string[] }) {
  const noted = r.noted.map((n, i) => ({ id: how.inbox?.[i] ?? "", source: n.source, title: n.title }));
  const data = {
    status: how.dryRun ? "dry_run" : "done",
    // null when nothing was committed (only notes for the inbox, or nothing new), as scripts test for it.
    ...(how.dryRun ? {} : { commit: how.commit || null }),
    added: r.added,
    noted,
    skipped: r.skipped,
  };
  const [add, note] = how.dryRun ? ["would add", "would note"] : ["added", "noted"];
  const lines = [
    ...r.added.flatMap((a) => [`${add} ${a.source} -> ${a.path} [${a.id}]`, ...a.notes.map((n) => `  note: ${n}`)]),
    ...noted.map((n) => `${note} ${n.source}${n.id ? ` as inbox item ${n.id}` : ""}: ${n.title}`),
    ...r.skipped.flatMap((s) => [`skipped ${s.source}: ${s.reason}`, ...(s.fix ? [`  fix: ${s.fix}`] : [])]),
  ];
  const [lessons, notes, files] = [counted(r.added.length, "lesson"), counted(noted.length, "note"), counted(r.skipped.length, "file")];
  const summary = how.dryRun
    ? `dry run: would add ${lessons}, put ${notes} in the inbox, leave out ${files}; nothing was written`
    : `added ${lessons}${how.commit ? ` in commit ${how.commit}` : ""}, put ${notes} in the inbox${noted.length ? " (distill them with /rkb-distill)" : ""}, left out ${files}`;
  return { data, human: [...lines, summary].join("\n") };
}
