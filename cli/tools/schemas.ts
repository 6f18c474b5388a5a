import { Type, type TSchema } from "typebox";
import { firstSentence } from "../kb/body.ts";
import { ALL_TYPE_SECTIONS, LESSON_TYPES, sectionField, VERIFIED_HOW } from "../kb/schema.ts";

// The agent tools, defined once. `rkb tools` prints these, `rkb tool` checks arguments against them,
// and the pi/omp extension registers them from `rkb tools --format json` without a copy.
// Two rules come from omp: no array or object `default` (omp refuses to load the extension) and
// only JSON-Schema keywords that Type.Unsafe can pass through unchanged.

export interface ToolSpec {
  name: string;
  /** Short name for a harness UI. */
  label: string;
  /** First sentence is the one-line summary a harness shows in its tool list. */
  description: string;
  parameters: TSchema;
}

const words = (description: string) => Type.Array(Type.String(), { description });
const choice = (values: readonly string[], description: string) => Type.String({ enum: [...values], description });

/** Verified-how values an agent may claim; `checked` is set only by a passing check script. */
const AGENT_VERIFIED_HOW = VERIFIED_HOW.filter((h) => h !== "checked");

const sectionFields = Object.fromEntries(
  ALL_TYPE_SECTIONS.map((heading) => [sectionField(heading), Type.Optional(Type.String({ description: `Text of the "${heading}" section` }))]),
);

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "rkb_search",
    label: "rkb search",
    description:
      "Search the user's lessons-learned knowledge base for pitfalls, recipes, facts, decisions and preferences that match the words. " +
      "Search before a web search and before debugging a failure from scratch; results list id, title, a summary and whether the lesson applies here.",
    parameters: Type.Object(
      {
        query: Type.String({ description: "Words to look for, e.g. the error message or the task" }),
        limit: Type.Optional(Type.Integer({ minimum: 1, default: 10, description: "Most results to return" })),
        all: Type.Optional(Type.Boolean({ description: "Also list lessons that do not apply in this place" })),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "rkb_show",
    label: "rkb show",
    description: "Show one lesson in full: frontmatter, body, usage counts, whether it applies here and its hash (needed by rkb_edit).",
    parameters: Type.Object({ id: Type.String({ description: "Lesson id from rkb_search" }) }, { additionalProperties: false }),
  },
  {
    name: "rkb_add",
    label: "rkb add",
    description:
      "Record a new lesson that will matter again: what failed and how it was fixed (pitfall), how to do something (recipe), a fact, a decision or a user preference. " +
      "Search first so you do not add a duplicate; give every section the type needs; never invent a fix you did not see work.",
    parameters: Type.Object(
      {
        type: choice(LESSON_TYPES, "Kind of lesson"),
        title: Type.String({ description: "One line naming the problem or the rule" }),
        topic: Type.String({ description: "Topic folder, e.g. cmake or git" }),
        tags: Type.Optional(words("Words the lesson is about")),
        queries: Type.Optional(words("Questions or error snippets someone would search with")),
        when: Type.Optional(
          Type.Object({}, { additionalProperties: Type.String(), description: "Where it applies, e.g. {\"project\": \"name\"} or {\"hdf5\": \"1.14\"}" }),
        ),
        verified_how: Type.Optional(choice(AGENT_VERIFIED_HOW, "How you know: ran it, read it, or were told (default ran)")),
        ...sectionFields,
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "rkb_note",
    label: "rkb note",
    description: "Put a short note in the inbox to be turned into a lesson later, when you have no time or evidence for a full lesson now.",
    parameters: Type.Object(
      {
        text: Type.String({ description: "What to remember, with the evidence" }),
        priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: "1 normal, 2 important, 3 urgent" })),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "rkb_used",
    label: "rkb used",
    description: "Report whether a lesson you read or were given helped: worked, failed (say why) or irrelevant. This is how the knowledge base learns which lessons are good.",
    parameters: Type.Object(
      {
        id: Type.String({ description: "Lesson id" }),
        result: choice(["worked", "failed", "irrelevant"], "What happened when you applied it"),
        reason: Type.Optional(Type.String({ description: "Why; required when it failed" })),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "rkb_flag",
    label: "rkb flag",
    description: "Mark a lesson as stale because it is wrong or out of date, with the reason.",
    parameters: Type.Object(
      { id: Type.String({ description: "Lesson id" }), reason: Type.String({ description: "What is wrong with it" }) },
      { additionalProperties: false },
    ),
  },
  {
    name: "rkb_edit",
    label: "rkb edit",
    description: "Replace a lesson's file with a corrected or extended version. Read it with rkb_show first and pass its hash as base.",
    parameters: Type.Object(
      {
        id: Type.String({ description: "Lesson id" }),
        base: Type.String({ description: "The hash rkb_show printed for the version you edited" }),
        text: Type.String({ description: "The whole new file: frontmatter and body" }),
      },
      { additionalProperties: false },
    ),
  },
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);

export function findTool(name: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** What `rkb tools` prints for each tool; the snippet is the first sentence, for a harness's one-line tool list. */
export function toolDefinition(t: ToolSpec) {
  return { name: t.name, label: t.label, description: t.description, snippet: firstSentence(t.description), inputSchema: JSON.parse(JSON.stringify(t.parameters)) };
}
