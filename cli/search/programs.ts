import { dirname } from "node:path";
import type { SearchIndex } from "../kb/index.ts";
import { docFrequency, termFrequency } from "../kb/lookup.ts";
import { SEVERITY } from "../shell/error-lines.ts";
import { familyOthers } from "../shell/family.ts";
import type { Failure } from "../shell/failure.ts";
import { tokenGroups, tokenize } from "../text/tokenize.ts";

// Which program a lesson is about, as the failure rule weighs it: the names it gives (a family's
// name counts for its members: `python` for python3, `gradle` for gradlew), the folder the
// knowledge base files a program's lessons in, and the tool families a lesson must name the
// failing member of.

/** The index terms a program name may appear as: `CMake` and `cmake` index differently (a compound keeps its whole form, a word is stemmed). */
export function programTerms(name: string): string[] {
  const g = tokenGroups(name)[0];
  return [...new Set([g?.whole, g?.parts[0], name].filter((t): t is string => Boolean(t) && !SEVERITY.has(t!)))];
}

/**
 * A program's term, or the family its name starts with (`mpi` for mpirun, `gradle` for gradlew,
 * `python` for python3: at least three letters, at most three left over), that `has` accepts.
 */
export function programFamily(name: string, has: (term: string) => boolean): boolean {
  for (const p of programTerms(name)) {
    for (let n = Math.min(p.length, Math.max(3, p.length - 3)); n <= p.length; n++) if (has(p.slice(0, n))) return true;
  }
  return false;
}

/** Whether two program names are one program or one family (`python` and `python3`, `gradle` and `gradlew`). */
export function sameProgram(a: string, b: string): boolean {
  return programFamily(a, (t) => t === b || programTerms(b).includes(t)) || programFamily(b, (t) => t === a || programTerms(a).includes(t));
}

export const folderOf = (index: SearchIndex, doc: number) => dirname(index.lesson(doc).path);

/** Lessons that must name a program before the folder most of them share says where it belongs. */
const HOME_MIN_LESSONS = 2;
const homes = new WeakMap<SearchIndex, Map<string, string | undefined>>();

/**
 * The folder where the knowledge base files a program's lessons: the one holding more than half of
 * the lessons that name it (`psql` → postgres, `kubectl` → kubernetes). A lesson filed there is
 * about that program's family, as one that names it is, even when it names the server or the
 * language instead (PostgreSQL's "too many clients" printed by psql).
 */
export function homeFolder(index: SearchIndex, name: string): string | undefined {
  const known = homes.get(index) ?? new Map<string, string | undefined>();
  homes.set(index, known);
  if (known.has(name)) return known.get(name);
  const counts = new Map<string, number>();
  let naming = 0;
  const terms = programTerms(name);
  // Most programs are named by no lesson or by one: no need to visit every lesson for them.
  const enough = terms.reduce((n, t) => n + docFrequency(index, t), 0) >= HOME_MIN_LESSONS;
  for (let doc = 0; enough && doc < index.size; doc++) {
    if (!terms.some((t) => termFrequency(index, t, doc) > 0)) continue;
    naming++;
    const folder = folderOf(index, doc);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  let home: string | undefined;
  for (const [folder, n] of counts) if (naming >= HOME_MIN_LESSONS && n * 2 > naming) home = folder;
  known.set(name, home);
  return home;
}

/**
 * The failing program (or the one a launcher runs) when the lesson's title names another of its
 * family and the lesson never names it: vitest's failure, jest's lesson. A lesson that names both
 * says it applies to both.
 */
export function familyMismatch(index: SearchIndex, doc: number, title: string, failure: Failure): { failure: string; lesson: string } | undefined {
  const names = (p: string) => programTerms(p).some((t) => termFrequency(index, t, doc) > 0);
  const titleTerms = new Set(tokenize(title));
  for (const failing of new Set([failure.program, failure.launched].filter(Boolean))) {
    const other = familyOthers(failing).find((p) => programTerms(p).some((t) => titleTerms.has(t)));
    if (other && !names(failing)) return { failure: failing, lesson: other };
  }
  return undefined;
}
