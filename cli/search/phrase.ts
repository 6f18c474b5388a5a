import { KEY_LINE } from "../shell/result.ts";
import { tokenGroups } from "../text/tokenize.ts";

// An error line as a phrase: its terms in order, each with what kind of token it was, so two lines
// can be laid side by side. A lesson that quotes an error quotes it in order; the words two lines
// share in the same order are the message's frame, and where one line has words the other has not
// in the same place, they say different things (another version, package, kind or reason). The
// volatile parts (paths, numbers, addresses, ids) are left out before a line gets here, so they
// neither match nor differ.

/**
 * A word as the message says it (`denied`, `module`), a name (a compound such as `pytorch-cuda`,
 * `g_state`, `linux_amd64`, or a file name), or a word inside quotes: what the message is about
 * this time, which may be the name of the run or the point of the error.
 */
export type TokenKind = "word" | "name" | "quoted";

export interface Phrase {
  terms: string[];
  kinds: TokenKind[];
  /** The library a linker flag or library file stands for, as the tokenizer gives it (`-lz` → z, `libssl.so` → ssl). */
  aliases: (string | undefined)[];
  /** The words inside each compound (`cp_settings` → cp, set): a compound holding a plain word names the same thing more closely. */
  parts: string[][];
  /** Whether each term's word says something went wrong on its own, as the key-line filter reads it (`unknown`, `denied`). */
  errorWords: boolean[];
  /** Whether each term is a word the message ends with a colon (`on project orders:`): what it names before it says what went wrong. */
  labels: boolean[];
}

/** Words a phrase reads per line: an error of any length is judged in bounded time. */
export const MAX_PHRASE_TERMS = 40;

/**
 * Quoted names in a line (`'yaml'`, `"users"`, `` `tokens' ``): an opening quote after a space,
 * colon or parenthesis, up to its closing one, with at most three words between (a longer quoted
 * stretch is a message, as in JSON output, not a name).
 */
const QUOTED = /(?<=^|[\s(:=])(['"`])([^'"`\s]*(?:\s+[^'"`\s]+){0,2})(?:\1|')(?=$|[\s),.:;!])/g;

/**
 * A compound name (`read-only`, `MPI_Init`, `Foo_DIR-NOTFOUND`): specific on its own. A plain file
 * name (`CMakeLists.txt`, `paper.tex`) says where an error is, not which error, so it is not one.
 */
export function isCompound(term: string): boolean {
  return /[_:@-]/.test(term) || (term.includes(".") && !/^[^.]+\.[a-z][a-z0-9]{0,3}$/.test(term));
}

export const isFileName = (term: string) => term.includes(".") && !isCompound(term);

/** A line's terms in order with their kinds, leaving out `skip` (program names, severity labels). */
export function phraseOf(line: string, skip: Set<string>): Phrase {
  const terms: string[] = [];
  const kinds: TokenKind[] = [];
  const aliases: (string | undefined)[] = [];
  const errorWords: boolean[] = [];
  const parts: string[][] = [];
  const labels: boolean[] = [];
  const add = (text: string, quoted: boolean) => {
    const words = text.split(/\s+/).filter(Boolean);
    for (const raw of words) {
      // `deploy@10.0.0.5`, `user@host`: the address goes as noise, the user stays a name.
      const address = raw.includes("@");
      const groups = tokenGroups(raw);
      // A quoted stop word on its own is a name all the same (`'all'`).
      if (quoted && words.length === 1 && !groups.length && /^\W*[a-z]{2,}\W*$/i.test(raw))
        groups.push({ whole: raw.replace(/\W/g, "").toLowerCase(), parts: [] });
      for (const g of groups) {
        const t = g.whole ?? g.parts.join(" ");
        // A program's name that the message quotes (`'mvn' is not recognized`) is what it is about, not who prints it.
        if ((skip.has(t) && !quoted) || terms.length >= MAX_PHRASE_TERMS) continue;
        terms.push(t);
        kinds.push(quoted ? "quoted" : address || isCompound(t) || isFileName(t) ? "name" : "word");
        // The tokenizer's library alias: `-lz` and `libz.so` also give z.
        aliases.push(g.whole && /^\W*(?:-l|lib)[a-z]/.test(raw) ? g.parts[g.parts.length - 1] : undefined);
        parts.push(g.parts);
        errorWords.push(!quoted && KEY_LINE.test(raw));
        labels.push(groups.length === 1 && raw.endsWith(":"));
      }
    }
  };
  let at = 0;
  for (const m of line.matchAll(QUOTED)) {
    add(line.slice(at, m.index), false);
    add(m[2]!, true);
    at = m.index + m[0].length;
  }
  add(line.slice(at), false);
  return { terms, kinds, aliases, parts, errorWords, labels };
}

/** Positions that say the same thing in two phrases: `a[i]` and `b[j]`, increasing in both. */
export type Alignment = [number, number][];

/**
 * The heaviest common subsequence of two term lists (each matched term weighs `weight(i)`, its
 * weight in `a`): the words both say in the same order. Swapped words cannot both align, so
 * "ARM … Intel" against "Intel … ARM" keeps one and leaves the other to differ.
 */
export function align(a: string[], b: string[], weight: (i: number) => number = () => 1): Alignment {
  const n = a.length;
  const m = b.length;
  const best = new Float64Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) {
      const skip = Math.max(best[at(i + 1, j)]!, best[at(i, j + 1)]!);
      best[at(i, j)] = a[i] === b[j] ? Math.max(skip, weight(i) + best[at(i + 1, j + 1)]!) : skip;
    }
  const out: Alignment = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j] && best[at(i, j)] === weight(i) + best[at(i + 1, j + 1)]!) out.push([i++, j++]);
    else if (best[at(i + 1, j)]! >= best[at(i, j + 1)]!) i++;
    else j++;
  }
  return out;
}

/** What lies between two neighbouring anchors (or before the first, after the last): positions in each phrase. */
export interface Gap {
  a: number[];
  b: number[];
  /** Before the first anchor or after the last one: where one line may simply say more than the other. */
  edge: "start" | "end" | "inside";
}

/** The stretches of both phrases that an alignment leaves unmatched, anchor to anchor. */
export function gaps(alignment: Alignment, n: number, m: number): Gap[] {
  const out: Gap[] = [];
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
  let [pi, pj] = [-1, -1];
  alignment.forEach(([i, j], k) => {
    out.push({ a: range(pi + 1, i), b: range(pj + 1, j), edge: k === 0 ? "start" : "inside" });
    [pi, pj] = [i, j];
  });
  out.push({ a: range(pi + 1, n), b: range(pj + 1, m), edge: alignment.length ? "end" : "inside" });
  return out.filter((g) => g.a.length || g.b.length);
}
