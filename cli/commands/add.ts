import { planAdd } from "../kb/changes.ts";
import { lessonText, template } from "../kb/compose.ts";
import { openKb, provenance } from "../kb/open.ts";
import { transact } from "../kb/write.ts";
import { isLessonType } from "../kb/lesson.ts";
import { LESSON_TYPES, REQUIRED_SECTIONS, sectionField, ALL_TYPE_SECTIONS } from "../kb/schema.ts";
import { usageError } from "../output/errors.ts";
import { writtenOutput } from "../output/written.ts";
import { defineRkbCommand, keyValues, repeated } from "./_shared.ts";

const sectionFlag = (heading: string) => sectionField(heading).replace(/_/g, "-");

const sectionArgs = Object.fromEntries(
  ALL_TYPE_SECTIONS.map((h) => [sectionFlag(h), { type: "string" as const, description: `The "${h}" section` }]),
);

export default defineRkbCommand({
  name: "add",
  description: "Record a new lesson (Markdown on stdin, or built from flags)",
  examples: [
    "rkb add --template pitfall > lesson.md   # then fill it in",
    "rkb add --topic cmake < lesson.md",
    'rkb add --topic git --type fact --title "git describe needs tags" --statement "…" --evidence "…"',
  ],
  args: {
    topic: { type: "string", description: "Topic folder (e.g. cmake, or general/cmake)" },
    type: { type: "string", description: `Lesson type: ${LESSON_TYPES.join(", ")}` },
    template: { type: "string", description: "Print the skeleton of a lesson of this type", valueHint: "type" },
    title: { type: "string", description: "Title (building the lesson from flags)" },
    tag: { type: "string", description: "A tag (repeatable)" },
    query: { type: "string", description: "An example search query (repeatable)" },
    when: { type: "string", description: "A condition key=value, e.g. project=foo (repeatable)", valueHint: "key=value" },
    "verified-how": { type: "string", description: "ran, read or told (default ran)" },
    session: { type: "string", description: "Session id to record as the lesson's source" },
    harness: { type: "string", description: "Harness the lesson came from (pi, omp)" },
    ...sectionArgs,
  },
  async run(ctx) {
    const { args } = ctx;
    if (args.template !== undefined) {
      if (!isLessonType(args.template)) throw usageError(`unknown lesson type \`${args.template}\``, `use one of ${LESSON_TYPES.join(", ")}`);
      const text = template(args.template);
      return { data: { template: text }, human: text, raw: true };
    }
    if (!args.topic) throw usageError("`rkb add` needs --topic", "name the topic folder, e.g. --topic cmake");
    const text = args.title ? fromFlags(args, ctx.rawArgs) : await ctx.stdin();
    if (!text.trim()) throw usageError("no lesson on stdin", "pipe a lesson in (see `rkb add --template pitfall`) or build it with --type, --title and the section flags");
    const env = args.harness ? { ...ctx.env, RKB_HARNESS: args.harness } : ctx.env;
    const { root } = openKb(ctx, "write");
    const written = await transact(root, ctx.env, (kb) => planAdd(kb, { text, topic: args.topic!, type: args.type, source: provenance(env, args.session) }));
    return writtenOutput(written, [`rkb show ${written.result.id}`]);
  },
});

function fromFlags(args: Record<string, any>, rawArgs: string[]): string {
  const type = args.type;
  if (!isLessonType(type)) throw usageError("building a lesson from flags needs --type", `use one of ${LESSON_TYPES.join(", ")}`);
  const when = keyValues(rawArgs, "when", "project=foo");
  const sections: Record<string, string> = {};
  for (const h of REQUIRED_SECTIONS[type]) {
    const text = args[sectionFlag(h)];
    if (!text || !String(text).trim()) throw usageError(`a ${type} needs --${sectionFlag(h)}`, `add --${sectionFlag(h)} "<text>"`);
    sections[h] = String(text);
  }
  return lessonText({ type, title: args.title, verifiedHow: args["verified-how"], tags: repeated(rawArgs, "tag"), queries: repeated(rawArgs, "query"), when, sections });
}
