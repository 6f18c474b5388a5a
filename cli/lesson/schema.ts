// The lesson schema: types, statuses, sections and frontmatter keys. Everything that needs one of
// these rules (parse, lint, add, tool schemas, templates, search fields) imports it from here.

export const LESSON_TYPES = ["pitfall", "recipe", "fact", "decision", "preference"] as const;
export type LessonType = (typeof LESSON_TYPES)[number];

export const STATUSES = ["active", "stale", "superseded", "archived"] as const;
export type Status = (typeof STATUSES)[number];

/** Lessons that still count: search shows them by default, and only they can be flagged, superseded or archived. */
export const CURRENT_STATUSES: readonly string[] = ["active", "stale"] satisfies Status[];

export function isCurrent(status: string): boolean {
  return CURRENT_STATUSES.includes(status);
}

/** A lesson id: 10 lowercase hex characters. */
export const LESSON_ID = /^[0-9a-f]{10}$/;

export const VERIFIED_HOW = ["ran", "read", "told", "checked"] as const;

/** Required H2 sections per type, in the order they must appear. */
export const REQUIRED_SECTIONS: Record<LessonType, readonly string[]> = {
  pitfall: ["Symptom", "Cause", "Fix", "Evidence"],
  recipe: ["When to use", "Steps", "Evidence"],
  fact: ["Statement", "Evidence"],
  decision: ["Context", "Decision", "Why", "Rejected options"],
  preference: ["Rule", "Why", "How to apply"],
};

/** The section whose first sentence summarises a lesson. */
export const LEAD_SECTION: Record<LessonType, string> = {
  pitfall: "Symptom",
  recipe: "When to use",
  fact: "Statement",
  decision: "Decision",
  preference: "Rule",
};

/** Sections a status adds to the required ones. */
export const STATUS_SECTIONS: Partial<Record<Status, string>> = {
  superseded: "Why superseded",
  archived: "Why archived",
};

/** Frontmatter keys in the order rkb writes them. */
export const FRONTMATTER_KEYS = [
  "schema",
  "id",
  "type",
  "status",
  "superseded_by",
  "stale_reason",
  "when",
  "verified",
  "verified_how",
  "tags",
  "queries",
  "labels",
  "meta",
] as const;
export type FrontmatterKey = (typeof FRONTMATTER_KEYS)[number];

/** The agent-tool field name of a section: lowercased, spaces → `_` ("When to use" → when_to_use). */
export function sectionField(heading: string): string {
  return heading.toLowerCase().replace(/ /g, "_");
}

/** Every section any type requires, once each, in a stable order (for tool schemas). */
export const ALL_TYPE_SECTIONS: readonly string[] = [...new Set(LESSON_TYPES.flatMap((t) => REQUIRED_SECTIONS[t]))];

export const SCOPES = ["general", "projects", "systems"] as const;
