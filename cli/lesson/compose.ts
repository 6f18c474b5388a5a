import { REQUIRED_SECTIONS, type LessonType } from "./schema.ts";
import type { YamlValue } from "./yaml.ts";

// Lessons written from nothing: the skeleton `rkb add --template` prints, and a lesson built from
// fields (`rkb add` flags, the rkb_add tool), handed to planAdd as values, never as Markdown to reparse.

/** The skeleton `rkb add --template <type>` prints. */
export function template(type: LessonType): string {
  const sections = REQUIRED_SECTIONS[type].map((h) => `\n## ${h}\n\n`).join("");
  return `---\ntype: ${type}\nverified_how: ran\n# when:\n#   project: <name>\n# tags:\n#   - <word>\n---\n\n# <Title>\n${sections}`;
}

/** What `rkb add` flags and the rkb_add tool give for a new lesson; `sections` maps each heading of the type to its text. */
export interface LessonFields {
  type: LessonType;
  title: string;
  verifiedHow?: string;
  tags?: string[];
  queries?: string[];
  when?: Record<string, string>;
  sections: Record<string, string>;
}

/** A new lesson built from fields, as planAdd takes it: frontmatter values and the body (`# Title`, the type's sections in order). */
export function lessonParts(f: LessonFields): { frontmatter: Record<string, YamlValue>; body: string } {
  const frontmatter: Record<string, YamlValue> = { type: f.type, verified_how: f.verifiedHow ?? "ran" };
  if (f.tags?.length) frontmatter.tags = f.tags;
  if (f.queries?.length) frontmatter.queries = f.queries;
  if (f.when && Object.keys(f.when).length) frontmatter.when = f.when;
  const sections = REQUIRED_SECTIONS[f.type].map((h) => `\n## ${h}\n${(f.sections[h] ?? "").trim()}\n`).join("");
  return { frontmatter, body: `\n# ${f.title}\n${sections}` };
}
