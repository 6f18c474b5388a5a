import { planAdd, type AddInput } from "../plan/changes.ts";
import { lessonParts, template, type LessonFields } from "../lesson/compose.ts";
import { completeFromItem, DRAFT_SECTIONS, draftTitle, finishItem, itemSource, partsOfText, readFromItem, type FromItem } from "../inbox/from-item.ts";
import { openKb, provenance } from "../kb/open.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { isLessonType } from "../lesson/lesson.ts";
import { scanBody } from "../lesson/body.ts";
import { ALL_TYPE_SECTIONS, LESSON_TYPES, REQUIRED_SECTIONS, sectionField, VERIFIED_HOW } from "../lesson/schema.ts";
import { usageError } from "../base/errors.ts";
import { callerFrom } from "../machine/settings.ts";
import { needsUserOutput, writtenOutput } from "../output/written.ts";
import { defineCommand, type CommandContext, type TypeBuilder } from "./_shared.ts";

/** Verified-how values an agent or a person may claim; `checked` is set only by a passing check script. */
const CLAIMED_VERIFIED_HOW = VERIFIED_HOW.filter((h) => h !== "checked");

// The lesson fields come first: the rkb_add tool is all but the last three (template, session, harness).
export const addInput = (Type: TypeBuilder) => {
  const words = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
  const choice = (values: readonly string[], description: string) => Type.String({ enum: [...values], description });
  const sectionFields = Object.fromEntries(
    ALL_TYPE_SECTIONS.map((heading) => [sectionField(heading), Type.Optional(Type.String({ description: `Text of the "${heading}" section` }))]),
  );
  return Type.Object(
    {
      type: Type.Optional(choice(LESSON_TYPES, "Kind of lesson")),
      title: Type.Optional(Type.String({ description: "One line naming the problem or the rule" })),
      topic: Type.Optional(Type.String({ description: "Topic folder, e.g. cmake or git" })),
      tags: words("Words the lesson is about"),
      queries: words("Questions or error snippets someone would search with"),
      when: Type.Optional(
        Type.Object(
          {},
          { additionalProperties: Type.String(), description: 'Where it applies, e.g. {"project": "name"} or {"hdf5": "1.12:1.14"} (versions 1.12 to 1.14.x)' },
        ),
      ),
      verified_how: Type.Optional(choice(CLAIMED_VERIFIED_HOW, "How you know: ran it, read it, or were told (default ran)")),
      ...sectionFields,
      from_item: Type.Optional(
        Type.String({
          description:
            "Inbox item id (<id>:<n> for its n-th draft pitfall) the lesson is distilled from: rkb records its session, learns the failure's error lines as queries, fills a draft pitfall's empty Symptom, Fix and Evidence, and marks the item distilled",
        }),
      ),
      template: Type.Optional(Type.String({ description: "Print the skeleton of a lesson of this type" })),
      session: Type.Optional(Type.String({ description: "Session id to record as the lesson's source" })),
      harness: Type.Optional(Type.String({ description: "Harness the lesson came from (pi, omp)" })),
    },
    { additionalProperties: false },
  );
};

const ADD_FLAGS: Record<string, { flag?: string; valueHint?: string; example?: string }> = {
  tags: { flag: "tag" },
  queries: { flag: "query" },
  when: { valueHint: "key=value", example: "project=foo" },
  template: { valueHint: "type" },
  from_item: { flag: "from", valueHint: "item id" },
};

type AddFields = Record<string, unknown> & {
  type?: string;
  title?: string;
  tags?: string[];
  queries?: string[];
  when?: Record<string, string>;
  verified_how?: string;
};

export default defineCommand({
  name: "add",
  description: "Record a new lesson (Markdown on stdin, or built from flags)",
  examples: [
    "rkb add --template pitfall > lesson.md   # then fill it in",
    "rkb add --topic cmake < lesson.md",
    'rkb add --topic git --type fact --title "git describe needs tags" --statement "…" --evidence "…"',
  ],
  input: addInput,
  cli: { flags: ADD_FLAGS },
  async run(input, ctx) {
    if (input.template !== undefined) {
      if (!isLessonType(input.template)) throw usageError(`unknown lesson type \`${input.template}\``, `use one of ${LESSON_TYPES.join(", ")}`);
      const text = template(input.template);
      return { data: { template: text }, human: text, raw: true };
    }
    if (!input.topic) throw usageError("`rkb add` needs --topic", "name the topic folder, e.g. --topic cmake");
    const from = input.from_item ? readFromItem(ctx.env, input.from_item) : undefined;
    let lesson: AddInput["lesson"];
    // A lesson is built from flags or read from stdin, never both: with a title or a section given,
    // stdin is not read at all (a pipe that never closes is no reason to wait).
    const inFlags = Boolean(input.title) || ALL_TYPE_SECTIONS.some((h) => typeof (input as AddFields)[sectionField(h)] === "string");
    const text = inFlags || (from && ctx.stdinIsTTY) ? "" : await ctx.stdin();
    if (inFlags || (from && !text.trim())) lesson = lessonParts(lessonFields(input as AddFields, ctx, from));
    else {
      if (!text.trim())
        throw usageError("no lesson on stdin", "pipe a lesson in (see `rkb add --template pitfall`) or build it with --type, --title and the section flags");
      lesson = { text };
    }
    if (from) lesson = completeFromItem("text" in lesson ? partsOfText(lesson.text) : lesson, from, input.type);
    // The harness the input names is recorded as the lesson's source, as the environment's would be.
    const caller = input.harness ? callerFrom(ctx.env, { ...ctx.caller, harness: input.harness }) : ctx.caller;
    const source = { ...provenance(caller, input.session), ...(from ? itemSource(from) : {}) };
    const { root } = openKb(ctx, "write");
    // The frontmatter flags go into a lesson read from stdin too.
    const { tags, queries, when, verified_how } = input as AddFields;
    const flags = "text" in lesson ? { tags, queries, when, verified_how } : undefined;
    const fieldName = (field: string) => fieldAs(field, ctx);
    const written = await transact(root, ctx, (kb) => planAdd(kb, { lesson, topic: input.topic!, type: input.type, flags, source, env: ctx.env, fieldName }));
    if (waitsForUser(written)) return needsUserOutput(written);
    if (from) finishItem(ctx.env, from, written.result.id);
    return writtenOutput(written, [`rkb show ${written.result.id}`], { warnings: true });
  },
});

/** A field as the caller wrote it: `` `cause` `` in a tool call, `--cause` (`--tag` for tags) on the command line. */
function fieldAs(field: string, ctx: Pick<CommandContext, "caller">): string {
  if (ctx.caller.origin === "tool") return `\`${field}\``;
  return `--${(ADD_FLAGS[field]?.flag ?? field).replace(/_/g, "-")}`;
}

/**
 * The new lesson's fields from the input: every section of its type, none of another type's. From a
 * draft pitfall, the type, the title and the sections the draft fills may be left out.
 */
export function lessonFields(input: AddFields, ctx: Pick<CommandContext, "caller">, from?: FromItem): LessonFields {
  const name = (field: string) => fieldAs(field, ctx);
  const type = input.type ?? (from?.draft ? "pitfall" : undefined);
  const filled = from?.draft && type === "pitfall" ? DRAFT_SECTIONS.map(sectionField) : [];
  if (!type || !isLessonType(type)) throw usageError("building a lesson from flags needs --type", `use one of ${LESSON_TYPES.join(", ")}`);
  const headings = REQUIRED_SECTIONS[type];
  const own = headings.map(sectionField);
  const stray = ALL_TYPE_SECTIONS.map(sectionField).filter((f) => input[f] !== undefined && !own.includes(f));
  if (stray.length) {
    throw usageError(
      `${name(stray[0]!)} is not a section of a ${type}`,
      `a ${type} has the sections ${own.join(", ")}; pick the type whose sections fit what you learned`,
    );
  }
  const missing = own.filter((f) => !filled.includes(f) && (typeof input[f] !== "string" || (input[f] as string).trim() === ""));
  if (missing.length) throw usageError(`a ${type} needs ${missing.map(name).join(", ")}`, `give every section of a ${type}: ${own.map(name).join(", ")}`);
  // rkb writes the title and the section headings from the fields; one more in a section's text would split it.
  for (const field of own) {
    const heading = typeof input[field] === "string" ? scanBody(input[field] as string).headings.find((h) => h.level <= 2) : undefined;
    if (heading)
      throw usageError(
        `${name(field)} holds the heading \`${"#".repeat(heading.level)} ${heading.text}\` on its line ${heading.line}`,
        "rkb writes the title and each section's heading from the fields; give a section its text alone (`###` for a part of it)",
      );
  }
  const kept = (items: string[] | undefined) => (items ?? []).map((s) => s.trim()).filter(Boolean);
  return {
    type,
    title: String(input.title ?? (from?.draft ? draftTitle(from.draft) : ""))
      .replace(/\s+/g, " ")
      .trim(),
    verifiedHow: input.verified_how,
    tags: kept(input.tags),
    queries: kept(input.queries),
    when: Object.fromEntries(Object.entries(input.when ?? {}).filter(([k, v]) => k.trim() && v.trim())),
    sections: Object.fromEntries(headings.map((h) => [h, String(input[sectionField(h)] ?? "")])),
  };
}
