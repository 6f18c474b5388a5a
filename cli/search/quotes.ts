import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SearchIndex } from "../kb/index.ts";
import { parseLesson } from "../lesson/lesson.ts";
import { joinContinued } from "../shell/error-lines.ts";
import { joinWrapped, plainQuotes, withoutNoise } from "../shell/failure.ts";

// What a lesson quotes of the errors it is about, read back from its file: its example queries, its
// inline code and code blocks (each block read as an error is: wrapped sentences and error headers
// joined), which of them its Symptom shows, the commands its Fix tells you to run (not quotes of the
// error), and its prose (title and body outside code): what it says in its own words.

export interface LessonQuotes {
  title: string;
  /** The quoted lines as written (typographic quotes plain). */
  raw: string[];
  /** The same lines cleaned of noise, as an error's lines are. */
  quotes: string[];
  /** Whether each line is a query or shown in the Symptom: how the lesson says the failure looks. */
  symptom: boolean[];
  /** The code of its Fix (or a recipe's Steps): what to run, not what the error says. */
  fixes: string[];
  /** The title and the body outside code. */
  prose: string;
  /** Everything the lesson says: title, body, queries. */
  text: string;
}

export function lessonQuotes(index: SearchIndex, doc: number): LessonQuotes {
  const lesson = index.lesson(doc);
  const raw: string[] = [];
  const symptom: boolean[] = [];
  const fixes: string[] = [];
  const prose: string[] = [lesson.title];
  let body = "";
  try {
    const parsed = parseLesson(readFileSync(join(index.root, lesson.path), "utf8"), lesson.path);
    body = parsed.body;
    // Its example queries say which errors it answers, as its quotes do.
    raw.push(...parsed.queries);
    symptom.push(...parsed.queries.map(() => true));
  } catch {
    // A lesson removed or broken since the index was built quotes nothing.
  }
  let block: string[] | undefined;
  let section = "";
  // What a lesson tells you to run (its Fix, a recipe's Steps) is not the error it is about: `go mod tidy`, `pip install -r requirements.txt`.
  const quote = (lines: string[]) => {
    if (/^(?:fix|steps)\b/i.test(section)) return void fixes.push(...lines);
    raw.push(...lines);
    symptom.push(...lines.map(() => /^symptom/i.test(section)));
  };
  for (const line of body.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) {
      if (block) quote(joinContinued(joinWrapped(block)));
      block = block ? undefined : [];
    } else if (block) block.push(line);
    else {
      const heading = /^#{2,}\s+(.*)/.exec(line);
      if (heading) section = heading[1]!;
      quote([...line.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!));
      prose.push(line.replace(/`[^`\n]+`/g, " "));
    }
  }
  if (block) quote(joinContinued(joinWrapped(block)));
  const plain = raw.map(plainQuotes);
  return {
    title: lesson.title,
    raw: plain,
    quotes: plain.map(withoutNoise),
    symptom,
    fixes,
    prose: prose.join("\n"),
    text: `${lesson.title}\n${body}\n${raw.join("\n")}`,
  };
}
