import { REQUIRED_SECTIONS, type LessonType } from "./schema.ts";
import { emitEntry } from "./yaml.ts";

// Lesson files written from nothing, for `rkb add` to read: the skeleton `--template` prints, and a
// lesson built from fields (`rkb add` flags, the rkb_add tool). Kept apart from changes.ts so a tool
// call loads only this.

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

/** The lesson file `rkb add` reads, built from fields: frontmatter, `# Title`, the type's sections in order. */
export function lessonText(f: LessonFields): string {
  const fm = [
    `type: ${f.type}`,
    `verified_how: ${f.verifiedHow ?? "ran"}`,
    ...emitEntry("tags", f.tags ?? []),
    ...emitEntry("queries", f.queries ?? []),
    ...emitEntry("when", f.when ?? {}),
  ];
  const sections = REQUIRED_SECTIONS[f.type].map((h) => `\n## ${h}\n${(f.sections[h] ?? "").trim()}\n`).join("");
  return `---\n${fm.join("\n")}\n---\n\n# ${f.title}\n${sections}`;
}
