import { boundedDistance } from "../text/distance.ts";
import { EMAIL_MASK } from "../text/emails.ts";
import { MASK } from "../text/secrets.ts";
import { ALL_WELL_OTHER, BUT_OTHER, FOR_NOW_OTHER, INSTEAD_OTHER, OPENS_OTHER, REMEMBER_OTHER, WHY_NOT_OTHER } from "./said-languages.ts";

// What a user message says to keep: a correction (the agent did, said or assumed something wrong,
// and the user says or makes plain what is right) or a request to remember (a standing rule for
// future work). Read from what the user typed: blocks, output and documents pasted into a message
// are left out first. Rules only: English, and the same constructs in a few other languages
// (said-languages.ts); a message in any other language matches nothing.

export interface Said {
  correction?: string;
  remember?: string;
}

/** Over this a message is a document the user pasted; only its first and last lines can be typed. */
const DOCUMENT_CHARS = 3000;
/** A line this long was pasted, not typed. */
const TYPED_LINE_CHARS = 600;

// Lines that are output, code or data: a shell prompt, a stack frame, a traceback, an error line
// printed by a tool, JSON, a diff, a quote, a source line with a line-number gutter, box drawing.
const PASTED_LINE = [
  /^(?:\$|➜|❯|%|>>>|PS [A-Z]:\\)\s/,
  /^\s*at\s+\S+[^\s(]*\s*\(?\S*:\d+/,
  /^\s*File "[^"]*", line \d+/,
  /^Traceback \(most recent call last\)/,
  /^[\w.$]*(?:Error|Exception|Warning|Panic)\b[^ ]*:/,
  /^\s*(?:npm (?:ERR!|error|warn)|error(?:\[\w+\])?:|warning:|fatal:|\[\w+\]\s)/,
  /^\s*[[{]["{[]|^\s*"[^"]+":\s/,
  /^[+-]{1,3}(?:\s|\d)|^@@ /,
  /^>/,
  /^\s*>?\s*\d+\s*[│|]/,
  /[│┃━─┌└├╭╰⠇⠋⠙⠹⠸⠼⠴⠦⠧⠏▣]/,
];

/**
 * One regex that matches where any of `rules` would: each rule is a call from the interpreter into
 * the regex engine, and a session's messages are read a line, a sentence, a clause at a time.
 */
function anyOf(rules: RegExp[]): RegExp {
  return new RegExp(rules.map((r) => `(?:${r.source})`).join("|"), rules.some((r) => r.unicode) ? "u" : "");
}
const PASTED = anyOf(PASTED_LINE);

/** The paragraphs of a message the user typed (lines joined), in order. */
export function typedParagraphs(text: string): string[] {
  let lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (text.length > DOCUMENT_CHARS) lines = [lines[0] ?? "", "", lines.at(-1) ?? ""];
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) out.push(current.join(" "));
    current = [];
  };
  let fence = false;
  let block: string | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    if (/^(?:```|~~~)/.test(line)) {
      fence = !fence;
      flush();
      continue;
    }
    if (fence) continue;
    if (block) {
      if (line.endsWith(`</${block}>`)) block = undefined;
      continue;
    }
    // A tag on a line of its own opens a pasted block (a skill, a file, a log) up to its closing tag.
    const open = /^<([A-Za-z][\w-]*)(?:\s[^<>]*)?>/.exec(line);
    if (open && !line.includes(`</${open[1]}>`)) {
      flush();
      block = open[1];
      continue;
    }
    if (line === "" || line.length > TYPED_LINE_CHARS || PASTED.test(raw)) {
      flush();
      continue;
    }
    if (/^(?:[-*•]|\d+[.)])\s/.test(line)) flush();
    current.push(line);
  }
  flush();
  return out;
}

/** Words ending in a full stop that do not end a sentence. */
const ABBREVIATION = /(?:^|\s)(?:e\.g|i\.e|cf|vs|etc|approx|incl|esp|viz)\.$/i;

/** The sentences of a paragraph: split after . ! ? ; (lower case or not: people type fast) and 。！？. */
function sentencesOf(paragraph: string): string[] {
  const out: string[] = [];
  for (const piece of paragraph.split(/(?<=[.!?;])\s+(?=\S)|(?<=[。！？])/)) {
    const last = out.at(-1);
    if (last !== undefined && ABBREVIATION.test(last)) out[out.length - 1] = `${last} ${piece}`;
    else out.push(piece.trim());
  }
  return out.filter(Boolean);
}

// ---- typo tolerance ----

/** Words the rules key on, recognised when misspelled by a letter (two for long words). */
const KEY_WORDS = [
  "actually",
  "instead",
  "remember",
  "haven't",
  "didn't",
  "doesn't",
  "don't",
  "isn't",
  "can't",
  "that's",
  "always",
  "never",
  "should",
  "wrong",
  "revert",
];

/** Words already looked at, with what they are read as (people use few words, and the same ones). */
const seen = new Map<string, string>();

function canonicalWord(word: string): string {
  if (word.length < 4 || KEY_WORDS.includes(word)) return word;
  let read = seen.get(word);
  if (read !== undefined) return read;
  read = word;
  for (const key of KEY_WORDS) {
    // The same first letter, not a shorter word of its own (actual, rememb…), within the typo budget.
    const budget = key.length >= 8 ? 2 : 1;
    if (key[0] !== word[0] || Math.abs(key.length - word.length) > budget || key.startsWith(word)) continue;
    if (boundedDistance(word, key, budget) <= budget) {
      read = key;
      break;
    }
  }
  if (seen.size > 10_000) seen.clear();
  seen.set(word, read);
  return read;
}

/**
 * The words canonicalWord may change: four letters or more, starting as a key word does. Only
 * these are handed to it (a call per word from the regex engine is most of this rule's cost).
 */
const MAYBE_KEY_WORD = new RegExp(`(?<![\\p{L}\\p{N}'])[${[...new Set(KEY_WORDS.map((k) => k[0]))].join("")}][\\p{L}\\p{N}']{3,}`, "gu");

/** Lower case, straight apostrophes, key words spelled right. */
export function normalise(sentence: string): string {
  return sentence
    .toLowerCase()
    .replace(/[\u2018\u2019\u00b4`]/g, "'")
    .replace(MAYBE_KEY_WORD, canonicalWord);
}

// ---- the rules ----

/** Words that open a clause without changing what it says ("ok, …", "hm, actually …", "dude …"). */
const LEAD_IN = /^(?:(?:ok(?:ay)?|hm+|well|so+|also|and|but|oh|ah|ugh|yeah|yes|like|dude|omfg|wtf|lol|btw|please|pls|sorry)\b[,.!:]?\s+)+/;

/** A clause that opens with these corrects: "no, …", "not the …", "actually …", "don't …", "wait, …". */
const CORRECTION_OPENS =
  /^(?:no\b(?![ -](?:problem|worries|thanks|idea|rush|pressure)|\s*\?)|nope\b|nah\b|not\b(?! (?:sure|everything|all|always|every|quite|really|yet|much|bad|now|today|tonight|tomorrow|this time)\b)|wrong\b|actually\b|instead\b|don't\b|do not\b|stop (?:doing|using|adding|changing|making|it|that|this)\b|(?:wait|hold on)[,!]|(?:that|this|it)(?:'s| is| was) (?:wrong|not (?:it|right|correct|what|how|the|a|an|my)|incorrect|horrible|terrible)\b|(?:that|this|it) (?:isn't|is not|wasn't|doesn't|does not|don't) (?:look |seem |sound |work )?right)/;
/**
 * "X not Y" with both sides code (a path, a flag, a version, a quoted name; normalise made its
 * backticks quotes): the user names what is right and what the agent used ("goes in src/tax/ not
 * src/invoice/", "use :z not :Z").
 */
const CODE = String.raw`(?:'[^'\s]+'|[^\s,;]*[/.:_\d=-][^\s,;]*)`;
const CODE_NOT_CODE = new RegExp(String.raw`(?:^|\s)${CODE},? not ${CODE}(?=[\s,.;!?]|$)`);
/** Anywhere in a clause: "… instead of …", "it is actually …", "you haven't read …", "why would we …?". */
const CORRECTION_ANYWHERE = [
  /\binstead\b/,
  /\brather than\b/,
  INSTEAD_OTHER,
  /\bactually\b/,
  /\b(?:you|u) (?:haven't|have not|didn't|did not|forgot|missed|ignored|misread|misunderstood|broke)\b/,
  /\byou (?:fucked|messed|screwed) (?:\S+ ){0,4}up\b/,
  /\b(?:i|we) (?:undid|reverted|had to (?:undo|revert))\b/,
  /\b(?:undo|revert) (?:that|this|it|those|your)\b/,
  /\bare you (?:\w+ )?(?:stupid|dumb|kidding|serious|blind)\b|\byou idiot\b/,
  /\b(?:doesn't|does not|don't) (?:look|seem|sound) right\b/,
  /\bshould(?:n't| not)? be (?!(?:able|fine|ok|okay|good|done|possible|enough)\b)\S/,
  CODE_NOT_CODE,
];
/** "… and not X?": the question names the thing to use. */
const AND_NOT = /\band not \S/;
/** Pointed questions that name the right thing: "why do you …", "why not …", "can't we …", "shouldn't the …", "isn't that …". */
const POINTED_QUESTION =
  /^(?:why (?:do|did|would|are|were) (?:you|we)\b(?! (?:think|suppose|believe|say)\b)|why not \S|(?:can't|cannot|couldn't) (?:we|you|it|that|this)\b|(?:shouldn't|wouldn't) \S|(?:isn't|aren't|wasn't|doesn't) (?:that|it|this|there|the)\b)/;
/** A clause that says all is well is no correction ("nothing actually failed, all good"). */
const ALL_WELL = /\b(?:all good|looks? (?:good|great|fine)|works(?: now| fine| great)?$|perfect|thanks|thank you|great|nice|awesome)\b/;
const saysAllWell = (s: string) => ALL_WELL.test(s) || ALL_WELL_OTHER.test(s);
/** "but" between two clauses, in the languages read (the one after it may take back the one before). */
const BUT = new RegExp(`\\s+(?:but|${BUT_OTHER})\\s+`, "u");
/** Where a sentence's clauses meet: a comma, semicolon or colon, a dash, or a "but". */
const CLAUSE_BREAK = new RegExp(`[,;:]\\s+|、\\s*|\\s+-+\\s+|${BUT.source}`, "u");

// Each group of rules read in one regex (anyOf).
const CORRECTS_ANYWHERE = anyOf(CORRECTION_ANYWHERE);
const OPENS_A_CORRECTION = anyOf([CORRECTION_OPENS, OPENS_OTHER]);
const POINTED = anyOf([POINTED_QUESTION, WHY_NOT_OTHER]);

/** Standing rules: "remember that …", "from now on …", "always …", "… must never …", "make sure … whenever …". */
const REMEMBER = [
  /^remember\b(?=[:,]|\s+(?:that|to)\b)|\bremember (?:that|to)\b/,
  /\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b/,
  /^(?:always|never) (?!mind\b)\w/,
  /\bmust (?:always|never)\b|\b(?:you|we) should (?:always|never)\b/,
  /\bkeep in mind\b|\bnote that\b|\bdon't forget (?:to|that)\b/,
  ...REMEMBER_OTHER,
];
const A_RULE = anyOf(REMEMBER);
/** "make sure … whenever …": a rule for every time something happens. */
const MAKE_SURE = /\bmake sure\b/;
const EVERY_TIME = /\b(?:whenever|every time|each time|when)\b/;
/** …unless it is meant for now only ("keep in mind … for this task"). */
const FOR_NOW = /\bfor (?:this|the) (?:task|session|change|one)\b|\bfor now\b|\bthis time\b|\bright now\b|\btoday\b/;
const forNow = (s: string) => FOR_NOW.test(s) || FOR_NOW_OTHER.test(s);
/** True when the text holds a secret, masked by now (an address is masked too, and is none). */
const handsSecret = (text: string) => text.includes("[masked:") && [...text.matchAll(MASK)].some((m) => m[0] !== EMAIL_MASK);
/** A question, in any script. */
const isQuestion = (s: string) => /[?？]$/.test(s);

/**
 * The first sentence of a message that corrects the agent, and the first that asks to remember.
 * `agentActed`: the agent did or said something before this message; a correction needs one.
 */
export function userSignals(text: string, opts: { agentActed?: boolean } = {}): Said {
  const found: Said = {};
  // A message that hands the agent a secret (masked by now) says how to keep it: new requirements,
  // not a correction ("here's the token: …, put it in ~/.gradle, NOT the repo one").
  const agentActed = (opts.agentActed ?? true) && !handsSecret(text);
  for (const paragraph of typedParagraphs(text)) {
    for (const sentence of sentencesOf(paragraph)) {
      const s = normalise(sentence);
      // The sentence and each of its clauses, each without its lead-in words (a sentence of one
      // clause is read once).
      const parts = s.split(CLAUSE_BREAK);
      const clauses = (parts.length > 1 ? [s, ...parts] : [s]).map((c) => c.replace(LEAD_IN, "").trim());
      const question = isQuestion(s);
      const rule = clauses.some((c) => A_RULE.test(c)) || (MAKE_SURE.test(s) && EVERY_TIME.test(s));
      // A standing rule's own "never …", "…, not even X", "no X" are the rule, not a correction of it.
      if (!found.correction && agentActed && isCorrection(s, rule ? clauses.slice(0, 1) : clauses)) found.correction = sentence;
      if (!found.remember && !question && rule && !forNow(s)) found.remember = sentence;
    }
    if (found.correction && found.remember) break;
  }
  return found;
}

/** The first sentence the user typed (what a correction quotes when no marker names one). */
export function typedSentence(text: string): string | undefined {
  for (const paragraph of typedParagraphs(text)) {
    const first = sentencesOf(paragraph)[0];
    if (first) return first;
  }
  return undefined;
}

function isCorrection(sentence: string, clauses: string[]): boolean {
  const question = isQuestion(sentence);
  const opens = clauses.some((c) => OPENS_A_CORRECTION.test(c));
  const pointed = question && clauses.some((c) => POINTED.test(c));
  const anywhere = CORRECTS_ANYWHERE.test(sentence) || (question && AND_NOT.test(sentence));
  if (!opens && !pointed && !anywhere) return false;
  // "no, …" stands on its own; the rest give way to a clause that says things are fine, unless a
  // "but" takes it back ("looks fine but no, …").
  return /^no\b/.test(clauses[0]!) || !saysAllWell(sentence.split(BUT).at(-1)!);
}

/** True when the first sentence the user typed says all is well ("ok va bene così, grazie"). */
export function allWell(text: string): boolean {
  const first = typedSentence(text);
  return first !== undefined && saysAllWell(normalise(first));
}
