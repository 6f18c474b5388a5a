import { REQUIRED_SECTIONS, sectionField, type LessonType } from "./schema.ts";
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

/** Where a line of a built body came from: a field, and its line as given (0: the heading rkb wrote for it). */
export interface FieldLine {
  field: string;
  line: number;
}

/**
 * A new lesson built from fields, as planAdd takes it: frontmatter values and the body (`# Title`,
 * the type's sections in order), and for each line of the body the field it came from, so an error
 * on the lesson names the field the caller wrote, not a line of a file that does not exist yet.
 */
export function lessonParts(f: LessonFields): { frontmatter: Record<string, YamlValue>; body: string; fieldLines: (FieldLine | undefined)[] } {
  const frontmatter: Record<string, YamlValue> = { type: f.type, verified_how: f.verifiedHow ?? "ran" };
  if (f.tags?.length) frontmatter.tags = f.tags;
  if (f.queries?.length) frontmatter.queries = f.queries;
  if (f.when && Object.keys(f.when).length) frontmatter.when = f.when;
  const lines: string[] = ["", `# ${f.title}`];
  const fieldLines: (FieldLine | undefined)[] = [undefined, { field: "title", line: 1 }];
  for (const heading of REQUIRED_SECTIONS[f.type]) {
    const given = f.sections[heading] ?? "";
    const text = given.trim();
    // Lines trimmed off the start still count: line 1 is the first line of the field as given.
    const skipped = given.slice(0, given.length - given.trimStart().length).split("\n").length - 1;
    const field = sectionField(heading);
    lines.push("", `## ${heading}`);
    fieldLines.push(undefined, { field, line: 0 });
    text.split("\n").forEach((line, i) => {
      lines.push(line);
      fieldLines.push({ field, line: skipped + i + 1 });
    });
  }
  return { frontmatter, body: `${lines.join("\n")}\n`, fieldLines };
}
