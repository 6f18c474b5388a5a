// A light English stemmer: it folds the inflections that make the same word miss itself in search
// (plural -s/-es/-ies, -ed, -ing, a final silent e, y after a consonant) and nothing more, so that
// "compiling", "compiled", "compiles" and "compile" meet while technical words keep their shape.
// Only plain lowercase words of four letters or more are touched; code-ish tokens are left alone.

const VOWEL = /[aeiouy]/;
const NO_UNDOUBLE = new Set(["l", "s", "z"]);

export function stem(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  let w = stripPlural(word);
  w = stripVerbEnding(w);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith("y") && !VOWEL.test(w[w.length - 2]!)) w = w.slice(0, -1) + "i";
  return w;
}

function stripPlural(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies") && w.length > 4) return w.slice(0, -3) + "i";
  if (/(?:[sxz]|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

function stripVerbEnding(w: string): string {
  for (const suffix of ["ing", "ed"]) {
    if (!w.endsWith(suffix) || (suffix === "ed" && w.endsWith("eed"))) continue;
    const base = w.slice(0, -suffix.length);
    // "string", "red": without a vowel left the ending was part of the word.
    if (base.length < 3 || !VOWEL.test(base)) return w;
    const last = base[base.length - 1]!;
    if (last === base[base.length - 2] && !VOWEL.test(last) && !NO_UNDOUBLE.has(last)) return base.slice(0, -1);
    return base;
  }
  return w;
}
