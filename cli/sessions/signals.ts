import { failureOf } from "../shell/failure.ts";
import { invocation, isReadOnly } from "../shell/program.ts";
import { checksWhatFailed } from "../shell/selection.ts";
import { formats, isChecker, prepares, renamedTask, renames, sameFolder, taskOf } from "../shell/task.ts";
import type { FileChange } from "./edits.ts";
import { filteredSuccess, onlyMissing, onlyPasses, probeKind } from "./probes.ts";
import type { SessionEvent } from "./reader.ts";
import { allWell, typedSentence, userSignals } from "./said.ts";
import { changedPaths, diagnosticFiles, draftKeyLines, draftRank, inProgress, onlyRunnerTrailer, retyped } from "./teach.ts";

// What a session says worth a lesson, found by rules alone (no model): failed commands, fixes
// (the same task working after it failed), user corrections and requests to remember, and
// failures already met in another session. Each failure → fix → success becomes a draft pitfall,
// whose fix is every step between the last failure and the success that could have changed the
// outcome: commands that ran (whatever their exit code, read-only ones left out) and file edits.
// Failures that teach nothing (probes.ts) and the agent fixing code it is writing (teach.ts) make
// no draft; the best few drafts of a session are kept, and the rest counted.

export type SignalKind = "failed" | "fixed" | "correction" | "remember" | "repeat";

export interface SignalHit {
  kind: SignalKind;
  line: number;
  entryId?: string;
  program?: string;
  /** The user's sentence, for corrections and requests to remember. */
  text?: string;
}

/** One action between a failure and the success that fixed it, masked. */
export type FixStep = ({ kind: "command"; command: string; exitCode?: number; ok: boolean } | ({ kind: "change" } & FileChange)) & {
  line: number;
  entryId?: string;
};

/** A failure not yet followed by a success of its program; carried across reads by the cursor. */
export interface OpenFailure {
  program: string;
  command: string;
  exitCode?: number;
  keyLines: string[];
  entryId?: string;
  line: number;
  time?: string;
  /** Failures of this program in a row, this one included. */
  attempts: number;
  /** What was done since this failure (the last MAX_FIX_STEPS steps), and how many earlier steps were dropped. */
  fix?: FixStep[];
  fixDropped?: number;
  /** The files its output points at as a checker does (teach.ts). */
  diagnostics?: string[];
  /** The command builds, type-checks, lints or tests code (shell/task.ts isChecker). */
  checker?: boolean;
  /** Its output only says a path is missing. */
  pathOnly?: boolean;
  /**
   * The agent had changed files before this failure: it may be writing the code the failure
   * points into. Code nobody changed yet that stops building (after an upgrade) is fixed by
   * editing it too, and that teaches something.
   */
  afterChanges?: boolean;
  /** Its failure's signature (shell/failure.ts). */
  signature?: string;
  /**
   * Failures of the same task before this one whose error went away with what was done after
   * them (this one fails differently): the task's next success answers them too. At most MAX_EARLIER.
   */
  earlier?: OpenFailure[];
}

export interface DraftPitfall {
  program: string;
  failed: { command: string; exitCode?: number; keyLines: string[]; entryId?: string; line: number; time?: string };
  attempts: number;
  worked: { command: string; entryId?: string; line: number; time?: string };
  /** The steps between the failure and the success, in order; fixDropped earlier ones left out. */
  fix: FixStep[];
  fixDropped: number;
}

export interface FailureSeen {
  program: string;
  signature: string;
  keyLine: string;
  line: number;
  time?: string;
  /** The failed command and its output as the failure rule reads them (masked with the events). */
  command: string;
  output: string;
}

export interface SignalCounts {
  failed: number;
  fixed: number;
  correction: number;
  remember: number;
  repeat: number;
}

export interface Findings {
  counts: SignalCounts;
  hits: SignalHit[];
  /** The best drafts (at most MAX_DRAFTS), in session order; the others are named in draftsLeftOut. */
  drafts: DraftPitfall[];
  draftsLeftOut: { program: string; line: number }[];
  failures: FailureSeen[];
  openFailures: Record<string, OpenFailure>;
  /** Sorted, unique labels for the inbox item: `fixed cmake`, `correction`, `remember`, `repeat make`. */
  labels: string[];
  /** clamp(score, 1, 3): remember 3, correction 2, repeat 2, fixed 2 after ≥ 3 attempts else 1. */
  priority: number;
}

/** Key lines kept per failure: enough to recognise it, short enough to read. */
const MAX_KEY_LINES = 8;
/** Fix steps kept per failure: the ones right before the success, which most likely made it work. */
const MAX_FIX_STEPS = 10;
/** Earlier failures of one task kept for its next success (another error each time). */
const MAX_EARLIER = 3;
/** Drafts kept per session (per item): the best ones; the rest are named by a count. */
export const MAX_DRAFTS = 5;

/** `events` masked already (capture masks each event before anything reads it): steps and drafts quote them as they are. */
export function findSignals(
  events: SessionEvent[],
  opts: {
    openFailures?: Record<string, OpenFailure>;
    seenElsewhere?: (signature: string) => boolean;
    agentActed?: boolean;
    agentChanged?: boolean;
    userWords?: boolean;
  } = {},
): Findings {
  return withRepeats(collectSignals(events, opts), opts.seenElsewhere);
}

/**
 * What one session says on its own: everything but the failures met in other sessions, which
 * depend on the sessions read before it (withRepeats adds them). Apart so that sessions can be
 * read on all cores and compared in order (pool.ts).
 */
export interface Collected {
  hits: SignalHit[];
  /** For each failure, the place in `hits` of its `failed` hit (a repeat goes right after it). */
  failedAt: number[];
  failures: FailureSeen[];
  drafts: DraftPitfall[];
  draftsLeftOut: Findings["draftsLeftOut"];
  openFailures: Record<string, OpenFailure>;
  /** The score of everything but repeats. */
  score: number;
}

/**
 * `userWords` false: what the user said is not read (no corrections, no requests to remember),
 * failures and fixes only. `agentActed`, `agentChanged`: an earlier read of the session saw the
 * agent act, change files.
 */
export function collectSignals(
  events: SessionEvent[],
  opts: { openFailures?: Record<string, OpenFailure>; agentActed?: boolean; agentChanged?: boolean; userWords?: boolean } = {},
): Collected {
  // A Map, not an object: a program may be called `constructor` or `__proto__`.
  const open = new Map<string, OpenFailure>();
  for (const [key, f] of Object.entries(opts.openFailures ?? {})) open.set(key, { ...f, fix: [...(f.fix ?? [])] });
  const hits: SignalHit[] = [];
  const drafts: DraftPitfall[] = [];
  const failures: FailureSeen[] = [];
  const failedAt: number[] = [];
  /** Files the agent changed, for telling its own work in progress apart. */
  const changed = new Set<string>();
  let agentChanged = opts.agentChanged ?? false;
  let agentActed = opts.agentActed ?? false;
  /** The user stopped or refused the last command: their next words say what to do instead. */
  let userStopped = false;
  let score = 0;

  // Each step goes to every open failure but the one of its own task, which it opens or closes.
  const addStep = (step: FixStep, except?: string) => {
    for (const [key, f] of open) {
      if (key === except) continue;
      const fix = (f.fix ??= []);
      fix.push(step);
      if (fix.length > MAX_FIX_STEPS) {
        fix.shift();
        f.fixDropped = (f.fixDropped ?? 0) + 1;
      }
    }
  };

  for (const e of events) {
    if (e.kind === "agent" || e.kind === "tool" || (e.kind === "command" && e.by !== "user")) agentActed = true;
    if (e.kind === "tool" && e.ok && e.change) {
      for (const p of changedPaths(e.change.path)) changed.add(p);
      agentChanged = true;
      addStep(changeStep(e.change, e.line, e.entryId));
    }
    if (e.kind === "command") {
      // The user stopped or refused this command (a pause they stop says nothing).
      userStopped = (e.stopped === "rejected" || e.stopped === "aborted") && !onlyPasses(e.command);
      // A refused command never ran: its reason is what the user said, read below.
      if (e.stopped === "rejected") continue;
      // A success with no failure open is no fix step and answers nothing: its line need not be read.
      if (e.ok && open.size === 0) continue;
      const { run, readOnly, filtered } = readLine(e.command);
      const prog = run.program;
      if (!prog) continue;
      // Open failures are kept per task: `cargo add serde` after a failed `cargo build` is a step of its fix.
      const key = taskOf(run);
      if (!readOnly) addStep({ kind: "command", command: e.command, exitCode: e.exitCode, ok: e.ok, line: e.line, entryId: e.entryId }, key);
      // A renamed file keeps its task: `node x.js` fails, `git mv x.js x.mjs`, `node x.mjs` is its success.
      if (e.ok) for (const [from, to] of renames(e.command)) retask(open, from, to);
      if (!e.ok) {
        const failedHit = hits.push({ kind: "failed", line: e.line, entryId: e.entryId, program: prog }) - 1;
        const failure = failureOf(e.command, e.output, e.exitCode, run);
        // A probe (no match, a missing path, stopped or blocked, a wait that ran out) teaches nothing, here or elsewhere.
        const probe = probeKind(failure, e.stopped);
        if (probe === "stopped" && !onlyPasses(e.command)) userStopped = true;
        if (probe) continue;
        const keyLines = draftKeyLines(failure.outputLines, MAX_KEY_LINES);
        const checker = isChecker(run);
        const { signature } = failure;
        // Another error after steps were taken: those steps fixed the one before.
        const before = open.get(key);
        const moved = before !== undefined && (before.fix?.length ?? 0) > 0 && before.signature !== undefined && before.signature !== signature;
        const earlier = moved ? [...(before.earlier ?? []), { ...before, earlier: undefined }].slice(-MAX_EARLIER) : before?.earlier;
        open.set(key, {
          program: prog,
          command: e.command,
          exitCode: e.exitCode,
          keyLines,
          entryId: e.entryId,
          line: e.line,
          time: e.time,
          attempts: moved ? 1 : (before?.attempts ?? 0) + 1,
          fix: [],
          fixDropped: 0,
          diagnostics: diagnosticFiles(e.output, checker),
          checker,
          pathOnly: onlyMissing(keyLines.join("\n")),
          afterChanges: agentChanged,
          signature,
          ...(earlier?.length ? { earlier } : {}),
        });
        failures.push({ program: prog, signature, keyLine: keyLines[0] ?? "", line: e.line, time: e.time, command: e.command, output: e.output });
        failedAt.push(failedHit);
      } else if (open.has(key) && !filtered) {
        const f = open.get(key)!;
        // A run of other tests, of a narrower part than the failure points into, or in another
        // folder, fixed nothing: it stays open.
        if (!checksWhatFailed(readLine(f.command).run, run, f.diagnostics ?? []) || !sameFolder(f.command, e.command)) continue;
        open.delete(key);
        for (const answered of [...(f.earlier ?? []), f]) {
          const draft = draftOf(answered, e, prog, changed);
          if (!draft) continue;
          drafts.push(draft);
          hits.push({ kind: "fixed", line: e.line, entryId: e.entryId, program: prog });
          score += answered.attempts >= 3 ? 2 : 1;
        }
      }
    } else if (e.kind === "user" && opts.userWords !== false) {
      // A reason given for refusing a tool call corrects the agent as it stands; so do the first
      // words after the user stopped or refused one (unless they only say to go on).
      const afterStop = userStopped && e.via !== "queued";
      userStopped = false;
      const said = e.via === "rejection" ? { correction: e.text } : afterStop ? afterStopSignals(e.text, agentActed) : userSignals(e.text, { agentActed });
      if (said.correction) {
        hits.push({ kind: "correction", line: e.line, entryId: e.entryId, text: said.correction });
        score += 2;
      }
      if (said.remember) {
        hits.push({ kind: "remember", line: e.line, entryId: e.entryId, text: said.remember });
        score += 3;
      }
    }
  }

  // The best drafts are kept (ties: the earlier), in session order.
  const ranked = drafts.map((d, i) => ({ d, i, rank: draftRank(d) })).sort((a, b) => b.rank - a.rank || a.i - b.i);
  const kept = new Set(ranked.slice(0, MAX_DRAFTS).map((r) => r.i));
  return {
    hits,
    failedAt,
    failures,
    drafts: drafts.filter((_, i) => kept.has(i)),
    draftsLeftOut: drafts.filter((_, i) => !kept.has(i)).map((d) => ({ program: d.program, line: d.failed.line })),
    openFailures: Object.fromEntries(open),
    score,
  };
}

/**
 * The draft pitfall of a failure its task's success answered, or undefined when it teaches
 * nothing: nothing done in between (the same command again explains nothing, another path after
 * "no such file" was a guess that missed, a typo typed again), the agent fixing code it is
 * writing, or only the script runner's trailer printed (the pipe cut the error off).
 */
function draftOf(f: OpenFailure, worked: SessionEvent & { kind: "command" }, program: string, changed: Set<string>): DraftPitfall | undefined {
  // A formatter changes how code looks, never what it does: it fixed nothing.
  const fix = (f.fix ?? []).filter((s) => s.kind !== "command" || !formats(readLine(s.command).run));
  if (!fix.length && (sameRun(f.command, worked.command) || f.pathOnly || retyped(f.command, worked.command))) return undefined;
  if (f.afterChanges !== false && inProgress(f.checker ?? false, f.diagnostics ?? [], changed, fix, (command) => prepares(readLine(command).run)))
    return undefined;
  if (onlyRunnerTrailer(f.keyLines)) return undefined;
  return {
    program,
    failed: { command: f.command, exitCode: f.exitCode, keyLines: f.keyLines, entryId: f.entryId, line: f.line, time: f.time },
    attempts: f.attempts,
    worked: { command: worked.command, entryId: worked.entryId, line: worked.line, time: worked.time },
    fix,
    fixDropped: f.fixDropped ?? 0,
  };
}

/** The same command again: the same line, or the same but for what only trims its output for reading (`| tail -6` then `| tail -3`). */
function sameRun(a: string, b: string): boolean {
  return oneLine(a) === oneLine(b) || oneLine(untrimmed(a)) === oneLine(untrimmed(b));
}

/** Stages that only shorten or copy what a command printed, and the exit status taken back from the pipe. */
const OUTPUT_TRIM = /\s*\|\s*(?:tail|head|tee|less|more|cat)\b[^|;&]*|;\s*exit\s+"?\$\{?PIPESTATUS\[\d+\]\}?"?/g;
const untrimmed = (command: string) => command.replace(OUTPUT_TRIM, "");

/**
 * The findings once the failures met in other sessions are known: each signature's first failure
 * in this session that `seenElsewhere` knows is a repeat, right after its failed hit, in order.
 */
export function withRepeats(c: Collected, seenElsewhere?: (signature: string) => boolean): Findings {
  let hits = c.hits;
  let score = c.score;
  if (seenElsewhere && c.failures.length) {
    const repeatAfter = new Set<number>();
    const repeated = new Set<string>();
    c.failures.forEach((f, i) => {
      if (repeated.has(f.signature) || !seenElsewhere(f.signature)) return;
      repeated.add(f.signature);
      repeatAfter.add(c.failedAt[i]!);
      score += 2;
    });
    if (repeatAfter.size)
      hits = c.hits.flatMap((h, i) => (repeatAfter.has(i) ? [h, { kind: "repeat" as const, line: h.line, entryId: h.entryId, program: h.program }] : [h]));
  }
  const counts: SignalCounts = { failed: 0, fixed: 0, correction: 0, remember: 0, repeat: 0 };
  for (const h of hits) counts[h.kind]++;
  const labels = [...new Set(hits.filter((h) => h.kind !== "failed").map((h) => (h.program ? `${h.kind} ${h.program}` : h.kind)))].sort();
  return {
    counts,
    hits,
    drafts: c.drafts,
    draftsLeftOut: c.draftsLeftOut,
    failures: c.failures,
    openFailures: c.openFailures,
    labels,
    priority: Math.min(3, Math.max(1, score)),
  };
}

/**
 * What a command line runs, read once per distinct line and kept for the run: sessions, and the
 * sessions of one archive, run the same commands again and again. Bounded: cleared when full.
 */
const linesRead = new Map<string, { run: ReturnType<typeof invocation>; readOnly: boolean; filtered: boolean }>();
const LINES_KEPT = 4096;

function readLine(command: string) {
  let read = linesRead.get(command);
  if (!read) {
    if (linesRead.size >= LINES_KEPT) linesRead.clear();
    linesRead.set(command, (read = { run: invocation(command, 0, true), readOnly: isReadOnly(command), filtered: filteredSuccess(command) }));
  }
  return read;
}

const oneLine = (command: string) => command.replace(/\s+/g, " ").trim();

/** Open failures whose task named a renamed file, under the task with its new name. */
function retask(open: Map<string, OpenFailure>, from: string, to: string): void {
  for (const [key, f] of [...open]) {
    const next = renamedTask(key, from, to);
    if (next === key || open.has(next)) continue;
    open.delete(key);
    open.set(next, f);
  }
}

/** Words that only tell the agent to go on after a stop. */
const GO_ON =
  /^(?:(?:ok(?:ay)?|yes|yeah|sure|sorry|oops|please|pls)[,.!]?\s*)*(?:continue|go on|go ahead|carry on|keep going|resume|proceed|try again|retry)?\b[\s.!]*$/i;

/** What the user said right after stopping or refusing a command: a correction, whatever its words, unless it only says to go on or that all is well. */
function afterStopSignals(text: string, agentActed: boolean): ReturnType<typeof userSignals> {
  const said = userSignals(text, { agentActed });
  if (said.correction || GO_ON.test(text.trim()) || allWell(text)) return said;
  const first = typedSentence(text);
  return first ? { ...said, correction: first } : said;
}

/**
 * A file change as a fix step; its path and diff were masked with the event (capture), the diff as
 * one text before its lines were cut (edits.ts). The diff is read from the change when the step is
 * (a draft, a cursor): most steps are dropped unread, and reading a diff is what masks it.
 */
function changeStep(change: FileChange, line: number, entryId?: string): FixStep {
  return {
    kind: "change",
    verb: change.verb,
    path: change.path,
    get diff() {
      return change.diff;
    },
    line,
    entryId,
  };
}

/** True when the findings are worth an inbox item: anything beyond failures nobody fixed. */
export function worthAnItem(f: Findings): boolean {
  return f.counts.fixed + f.counts.correction + f.counts.remember + f.counts.repeat > 0;
}
