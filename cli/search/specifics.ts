import { errnoSays } from "../shell/errno.ts";
import { align, type Alignment, type Gap, gaps, type Phrase } from "./phrase.ts";

// Where an error line's frame ends and its specifics begin, read against a lesson's quote: the
// words both say in the same order are the frame ("no matches for kind … in version"), and what
// each says in the same place between them is a specific ("Ingress" against "ClusterIssuer", "host
// key type" against "key exchange method"). The same frame with other specifics is another error,
// unless the difference is only the name of this run: a word of the failed command (the package
// being installed, the unit being started), or a variant the lesson itself names (its fix lists
// `libz`, the error says `-lz`). A lesson about its own specific (one its title names) is about
// that one, whatever the command says.

/** What a failure's specific is measured against: the lesson's words, its title's, and the command's. */
export interface SpecificsContext {
  /** Every term the lesson uses (title, body, quotes, queries): the variants it knows about. */
  lessonTerms: Set<string>;
  /** The terms of the lesson's title: a specific named there is what the lesson is about. */
  titleTerms: Set<string>;
  /** Every term of the failure's text: where a quote's words may stand on another line. */
  errorTerms: Set<string>;
  /** The failure and the lesson share an error code (`E0382`, `NU1101`): the same error, its wording may vary. */
  sharedCode?: boolean;
  /** The terms of what the lesson says in its own words (title and prose, not the output it quotes): a specific named there is what it is about. */
  ownTerms: Set<string>;
  /** The terms of the failed command's arguments: the names of this run. */
  runTerms: Set<string>;
  /** Whether another lesson of the knowledge base uses a term: a word none uses is a name of this run, one they use is a word of messages. */
  known: (term: string) => boolean;
}

/** Why a place where the two say something different tells another error. */
export type Difference =
  | "swapped"
  | "the lesson's line reports a failure there"
  | "the lesson's title names its word"
  | "more of the message"
  | "the lesson's own words"
  | "a word of messages";

type Verdict = { tolerated: NonNullable<Slot["tolerated"]>; differs?: undefined } | { differs: Difference; tolerated?: undefined };

/** One place where the failure line and the quote say something different. */
export interface Slot {
  failure: string[];
  lesson: string[];
  /** Why the difference tells another error. */
  differs?: Difference;
  /** Why the difference does not tell another error: the lesson names the failure's words, or they are the command's. */
  tolerated?:
    | "said elsewhere in the error"
    | "named by the lesson"
    | "a closer name"
    | "the same system error"
    | "the same error code"
    | "the command's own"
    | "a name of this run"
    | "an example of the lesson's";
}

export interface Comparison {
  /** Positions of the failure line and of the quote that say the same thing, in order. */
  matched: Alignment;
  /** Every term both say in order, phrase or not: the whole quote, or the whole failure line, may be among them. */
  aligned: Alignment;
  /** The terms of the frame both say (the matched ones). */
  frame: string[];
  /** Every place where both say something else. */
  slots: Slot[];
  /** The first such place that is not the name of this run: the line is about another error. */
  differs?: Slot;
}

/** A slot between two parts of a frame ("variable [db_password] undefined") holds at most this many terms on each side. */
const MAX_SLOT = 2;

/**
 * The aligned pairs that make a shared phrase: chains of at least two pairs, each within a short
 * slot of the next on both sides ("expected [String], found [&str]"), and names both hold on their
 * own (a compound, a quoted word). A common word matched alone in another part of the line
 * ("file", "not") is no shared phrase.
 */
function phraseRuns(alignment: Alignment, failure: Phrase): Alignment {
  const close = (p: [number, number], q: [number, number]) => q[0] - p[0] - 1 <= MAX_SLOT && q[1] - p[1] - 1 <= MAX_SLOT;
  const out: Alignment = [];
  let chain: Alignment = [];
  const flush = () => {
    if (chain.length >= 2) out.push(...chain);
    else for (const p of chain) if (failure.kinds[p[0]] !== "word") out.push(p);
    chain = [];
  };
  for (const p of alignment) {
    const last = chain[chain.length - 1];
    if (last && !close(last, p)) flush();
    chain.push(p);
  }
  flush();
  return out;
}

/** Whether the lesson names a failure's term: the term itself, or the one name a compound stands for (`-lz` → z). */
function named(ctx: SpecificsContext, failure: Phrase, i: number): boolean {
  const alias = failure.aliases[i];
  return ctx.lessonTerms.has(failure.terms[i]!) || (alias !== undefined && ctx.lessonTerms.has(alias));
}

/**
 * Why the failure's words in a slot do not make another error, or undefined when they do:
 * - words of the quote that the failure line holds elsewhere are swapped, not replaced ("ARM … in
 *   the Intel prefix" against "Intel … in the ARM prefix");
 * - words of the quote that the failure holds on another line are the same message laid out
 *   otherwise (JSON fields on lines of their own);
 * - the lesson names the failure's words too: a variant it knows;
 * - a word of the failed command (`-pl web`), or a name (a quoted word, a compound) where the quote
 *   has one, is the name of this run — unless the lesson's title names the quote's words: then it
 *   is about them (`pytorch-cuda`, `Ingress`, `ssh-rsa`);
 * - other words where the lesson speaks of the quote's in its own words (title, prose) are another
 *   message ("cluster scope" against "namespace"); words it only shows in its output are examples.
 */
function tolerance(failure: Phrase, quote: Phrase, slot: { a: number[]; b: number[]; edge: Gap["edge"] }, ctx: SpecificsContext): Verdict {
  const inSlot = new Set(slot.a.map((i) => failure.terms[i]!));
  const other = slot.b.filter((j) => !inSlot.has(quote.terms[j]!));
  const otherTerms = other.map((j) => quote.terms[j]!);
  // Swapped: each side's word stands in the other's place ("ARM … Intel" against "Intel … ARM").
  const quoteTerms = new Set(quote.terms);
  const quoteSlot = new Set(slot.b.map((j) => quote.terms[j]!));
  const line = new Set(failure.terms);
  if (otherTerms.some((t) => line.has(t)) && slot.a.some((i) => !quoteSlot.has(failure.terms[i]!) && quoteTerms.has(failure.terms[i]!)))
    return { differs: "swapped" };
  // The lesson's line says something failed where the failure's says it went otherwise ("identification is unknown" against "is Clang 17").
  if (other.some((j) => quote.errorWords[j]) && !slot.a.some((i) => failure.errorWords[i])) return { differs: "the lesson's line reports a failure there" };
  if (slot.edge === "end" && otherTerms.every((t) => ctx.errorTerms.has(t))) return { tolerated: "said elsewhere in the error" };
  // One tool names the system error, another prints its message: `Failure EADDRINUSE` and `address already in use`.
  const aTerms = slot.a.map((i) => failure.terms[i]!);
  if (aTerms.some((t) => errnoSays(t, otherTerms)) || otherTerms.some((t) => errnoSays(t, aTerms))) return { tolerated: "the same system error" };
  // A name the lesson also gives is a variant it knows (`-lz` where its fix lists libz); a common word it uses is not.
  if (slot.a.every((i) => failure.kinds[i] !== "word" && named(ctx, failure, i))) return { tolerated: "named by the lesson" };
  // A compound that holds the quote's word names the same thing more closely (`cp_settings` for "settings").
  if (other.every((j) => slot.a.some((i) => failure.parts[i]!.includes(quote.terms[j]!) || quote.parts[j]!.includes(failure.terms[i]!))))
    return { tolerated: "a closer name" };
  if (otherTerms.some((t) => ctx.titleTerms.has(t))) return { differs: "the lesson's title names its word" };
  if (ctx.sharedCode) return { tolerated: "the same error code" };
  if (slot.a.every((i) => ctx.runTerms.has(failure.terms[i]!))) return { tolerated: "the command's own" };
  const own = slot.a.filter((i) => !ctx.runTerms.has(failure.terms[i]!));
  const names = (p: Phrase, ks: number[]) => ks.every((k) => p.kinds[k] !== "word");
  // A name for a name is this run's; words where the quote has only a name are more of the message ("target 'Makefile', needed by").
  if (names(quote, other)) return names(failure, own) ? { tolerated: "a name of this run" } : { differs: "more of the message" };
  if (otherTerms.some((t) => ctx.ownTerms.has(t))) return { differs: "the lesson's own words" };
  // A word or two that lessons use, where the lesson's quote has its own, is another specific (a syscall, a kind, a wording); a word no lesson uses, a longer stretch of this run's
  // values, or the word each names before its colon (`on project orders:`) is this run's.
  const subject = own.length === 1 && other.length === 1 && failure.labels[own[0]!] && quote.labels[other[0]!];
  if (!subject && own.length <= MAX_SLOT && own.some((i) => ctx.known(failure.terms[i]!))) return { differs: "a word of messages" };
  return { tolerated: "an example of the lesson's" };
}

/**
 * Two words both lines say but neither aligns, in the opposite order: "Intel … ARM" against "ARM …
 * Intel", "expected `&str`, found `String`" against "expected `String`, found `&str`". However the
 * alignment keeps one of them, the other pair stays out of it on both sides.
 */
function exchanged(failure: Phrase, quote: Phrase, aligned: Alignment): [string, string] | undefined {
  const inF = new Set(aligned.map(([i]) => i));
  const inQ = new Set(aligned.map(([, j]) => j));
  const firstAt = (p: Phrase, taken: Set<number>) => {
    const at = new Map<string, number>();
    p.terms.forEach((t, k) => {
      if (!taken.has(k) && !at.has(t)) at.set(t, k);
    });
    return at;
  };
  const f = firstAt(failure, inF);
  const q = firstAt(quote, inQ);
  const both = [...f.keys()].filter((t) => q.has(t));
  for (const x of both) for (const y of both) if (f.get(x)! < f.get(y)! && q.get(x)! > q.get(y)!) return [x, y];
  return undefined;
}

/** The quoted words that end a stretch: the names right before a frame. */
function quotedTail(p: Phrase, positions: number[]): number[] {
  let k = positions.length;
  while (k > 0 && p.kinds[positions[k - 1]!] === "quoted") k--;
  return positions.slice(k);
}

/**
 * The failure line against a lesson's quote: the frame they share in order, each place where both
 * say something else, and the first of those that tells another error. What comes before the first
 * shared word is context (who reports the error, the chain that led to it), not a specific.
 */
export function compareLines(failure: Phrase, quote: Phrase, weight: (i: number) => number, ctx: SpecificsContext): Comparison {
  const aligned = align(failure.terms, quote.terms, weight);
  const matched = phraseRuns(aligned, failure);
  const frame = matched.map(([i]) => failure.terms[i]!);
  const slots: Slot[] = [];
  let differs: Slot | undefined;
  if (!matched.length) return { matched, aligned, frame, slots };
  const swap = exchanged(failure, quote, aligned);
  if (swap) {
    const slot: Slot = { failure: swap, lesson: [...swap].reverse(), differs: "swapped" };
    return { matched, aligned, frame, slots: [slot], differs: slot };
  }
  for (const gap of gaps(matched, failure.terms.length, quote.terms.length)) {
    // Before the first shared word is context (who reports it, the chain that led to it), except the quoted names the message starts with: its subject (`'mvn' is not recognized`).
    if (gap.edge === "start") {
      gap.a = quotedTail(failure, gap.a);
      gap.b = quotedTail(quote, gap.b);
    }
    if (!gap.a.length || !gap.b.length) continue;
    // After the last shared word either line may simply go on: only as much of each as the other has there are counterparts.
    if (gap.edge === "end") {
      const n = Math.min(gap.a.length, gap.b.length);
      gap.a = gap.a.slice(0, n);
      gap.b = gap.b.slice(0, n);
    }
    const slot: Slot = { failure: gap.a.map((i) => failure.terms[i]!), lesson: gap.b.map((j) => quote.terms[j]!) };
    const verdict = tolerance(failure, quote, gap, ctx);
    if (verdict.tolerated) slot.tolerated = verdict.tolerated;
    else {
      slot.differs = verdict.differs;
      differs ??= slot;
    }
    slots.push(slot);
  }
  return differs ? { matched, aligned, frame, slots, differs } : { matched, aligned, frame, slots };
}

/** A phrase with each term's weight in the knowledge base. */
export interface WeightedPhrase extends Phrase {
  weights: number[];
}

/** A failure line is a quote line's counterpart when the frame they share carries this share of the quote's weight. */
const COUNTERPART_SHARE = 0.5;

/** The weight of a phrase's distinct terms (only those at `positions`, when given). */
export function distinctWeight(p: WeightedPhrase, positions?: Iterable<number>): number {
  const seen = new Map<string, number>();
  for (const i of positions ?? p.terms.keys()) seen.set(p.terms[i]!, Math.max(seen.get(p.terms[i]!) ?? 0, p.weights[i]!));
  let n = 0;
  for (const w of seen.values()) n += w;
  return n;
}

/** A quote line whose counterparts in the failure all say something else in its frame. */
export interface Contradiction {
  line: number;
  quote: number;
  comparison: Comparison;
}

/**
 * The first line the lesson quotes that the failure says otherwise: every failure line sharing most
 * of its frame differs in a specific, and none agrees. The whole output counts, not only the key
 * lines: a title (`Error: Incompatible provider version`) is followed by the detail that tells one
 * such error from another, and the lines around an error (`-- The CXX compiler identification is
 * unknown`) say what led to it.
 */
export function contradiction(lines: WeightedPhrase[], quotes: WeightedPhrase[], ctx: SpecificsContext): Contradiction | undefined {
  for (let q = 0; q < quotes.length; q++) {
    const found = counterpart(lines, quotes[q]!, ctx);
    if (!found?.comparison.differs) continue;
    // A line another quote of the lesson says as it is (its `file` variant where this one has `directory`) is that quote's, not this one's counterpart.
    if (quotes.some((other, o) => o !== q && saysAsIs(lines[found.line]!, other, ctx))) continue;
    return { line: found.line, quote: q, comparison: found.comparison };
  }
  return undefined;
}

/** Whether a quote says a line as it is: most of each is the other's, in order, with no other specific. */
function saysAsIs(line: WeightedPhrase, quote: WeightedPhrase, ctx: SpecificsContext): boolean {
  if (quote.terms.length < 2) return false;
  const c = compareLines(line, quote, (i) => line.weights[i]!, ctx);
  const share = (p: WeightedPhrase, ks: number[]) => distinctWeight(p, ks) >= COUNTERPART_SHARE * distinctWeight(p);
  return (
    !c.differs &&
    c.frame.length >= 2 &&
    share(
      line,
      c.matched.map(([i]) => i),
    ) &&
    share(
      quote,
      c.matched.map(([, j]) => j),
    )
  );
}

/**
 * The failure line that says what a quote line says (sharing a frame with most of its weight),
 * preferring one that agrees on the specifics; undefined when no line of the failure shares it.
 */
export function counterpart(lines: WeightedPhrase[], quote: WeightedPhrase, ctx: SpecificsContext): { line: number; comparison: Comparison } | undefined {
  const total = distinctWeight(quote);
  if (quote.terms.length < 2 || !total) return undefined;
  const terms = new Set(quote.terms);
  let against: { line: number; comparison: Comparison } | undefined;
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l]!;
    let shared = 0;
    for (const t of line.terms) if (terms.has(t)) shared++;
    if (shared < 2) continue;
    const comparison = compareLines(line, quote, (i) => line.weights[i]!, ctx);
    if (
      comparison.frame.length < 2 ||
      distinctWeight(
        quote,
        comparison.matched.map(([, j]) => j),
      ) <
        COUNTERPART_SHARE * total
    )
      continue;
    if (!comparison.differs) return { line: l, comparison };
    against ??= { line: l, comparison };
  }
  return against;
}
