import { parseLesson, serializeLesson, type Lesson } from "../lesson/lesson.ts";
import { resolveLink } from "../lesson/links.ts";

// A lesson as a site publishes it: each link to a file the site leaves out (a lesson of another
// audience, a note, any other file of the knowledge base) is replaced by its words, in the text
// itself, so neither its page nor the search index (built from that text) holds the target's path.
// Every Markdown form counts: inline links with any title, nested or wrapped link words, angle
// brackets, images, and reference definitions with the links that use them. Whatever form is
// missed, a last pass removes each hidden target that is still written anywhere. One pass per
// form over the text, whatever the number of links.

/** The lesson with its links to unpublished files made plain text (the same object when it has none). */
export function withoutHiddenLinks(lesson: Lesson, published: Set<string>): Lesson {
  const ownAssets = `${lesson.path.slice(0, -3)}.assets/`;
  const hidden = (target: string): boolean => {
    const path = resolveLink(lesson.path, target);
    if (path === undefined) return false;
    return typeof path !== "string" || !(published.has(path) || path.startsWith(ownAssets));
  };
  const body = unlinkHidden(lesson.body, hidden);
  return body === lesson.body ? lesson : parseLesson(serializeLesson(lesson.frontmatter, body), lesson.path);
}

// Link words: plain characters, escapes, and one level of brackets inside (`[a [b] c]`).
const WORDS = String.raw`((?:[^[\]\\]|\\.|\[[^[\]\\]*\])*)`;
// A destination: `<…>`, or characters without spaces, with balanced parentheses one deep.
const DEST = String.raw`(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)`;
const TITLE = String.raw`(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?`;
const INLINE = new RegExp(String.raw`!?\[${WORDS}\]\(\s*${DEST}${TITLE}\s*\)`, "g");
const DEFINITION = new RegExp(String.raw`^ {0,3}\[([^[\]\n]+)\]:[ \t]*${DEST}[^\n]*\n?`, "gm");
const REFERENCE = new RegExp(String.raw`!?\[${WORDS}\](?:\[([^[\]\n]*)\])?(?![(:])`, "g");
const PATHLIKE = /[^\s()<>[\]"'`]+/g;

const label = (text: string) => text.trim().replace(/\s+/g, " ").toLowerCase();
const unangled = (dest: string) => (dest.startsWith("<") ? dest.slice(1, -1) : dest);

/** `body` with every link whose target `hidden` says is left out written as its words alone. */
export function unlinkHidden(body: string, hidden: (target: string) => boolean): string {
  const removed = new Set<string>();
  const gone = new Set<string>();
  const isHidden = (dest: string) => {
    const target = unangled(dest);
    if (!hidden(target)) return false;
    gone.add(target);
    return true;
  };
  let text = body.replace(DEFINITION, (line, name: string, dest: string) => (isHidden(dest) ? (removed.add(label(name)), "") : line));
  text = text.replace(INLINE, (link, words: string, dest: string) => (isHidden(dest) ? words : link));
  if (removed.size) text = text.replace(REFERENCE, (link, words: string, ref: string | undefined) => (removed.has(label(ref || words)) ? words : link));
  if (!gone.size) return text;
  return text.replace(PATHLIKE, (run) => (gone.has(run) || gone.has(unangled(run)) ? "" : run));
}
