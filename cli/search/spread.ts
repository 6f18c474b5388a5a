import type { SearchIndex } from "../kb/index.ts";
import { termId } from "../kb/lookup.ts";
import { folderOf } from "./programs.ts";

// How widely the knowledge base says a frame: the lessons that hold all of its words, and the
// folders (programs, topics) those lessons are filed in. A line many lessons of many programs
// quote ("No such file or directory", "Could not read from remote repository") tells little about
// which failure it is; a frame one lesson holds is that lesson's.

export interface Spread {
  /** Lessons holding every term of the frame. */
  lessons: number;
  /** The folders those lessons are in. */
  folders: number;
}

/** Lessons and folders holding every one of these terms (terms no lesson holds are left out: they rule out none). */
export function frameSpread(index: SearchIndex, terms: Iterable<string>): Spread {
  const lists = [...new Set(terms)]
    .map((t) => termId(index, t))
    .filter((id) => id >= 0)
    .map((id) => index.postings(id).docs)
    .sort((a, b) => a.length - b.length);
  if (!lists.length) return { lessons: 0, folders: 0 };
  let docs = Array.from(lists[0]!);
  for (const list of lists.slice(1)) {
    const next: number[] = [];
    let k = 0;
    for (const d of docs) {
      while (k < list.length && list[k]! < d) k++;
      if (list[k] === d) next.push(d);
    }
    docs = next;
    if (!docs.length) break;
  }
  return { lessons: docs.length, folders: new Set(docs.map((d) => folderOf(index, d))).size };
}
