import { failureOf } from "../shell/failure.ts";
import { invocation, isReadOnly } from "../shell/program.ts";
import { taskOf } from "../shell/task.ts";
import type { FileChange } from "./edits.ts";
import { maskSecrets } from "../text/secrets.ts";
import type { SessionEvent } from "./reader.ts";
import { paragraphs, sentences } from "../lesson/body.ts";

// What a session says worth a lesson, found by rules alone (no model): failed commands, fixes
// (the same program working after it failed), user corrections and requests to remember, and
// failures already met in another session. Each failure → fix → success becomes a draft pitfall,
// whose fix is every step between the last failure and the success that could have changed the
// outcome: commands that ran (whatever their exit code, read-only ones left out) and file edits.

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
  drafts: DraftPitfall[];
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

export function findSignals(
  events: SessionEvent[],
  opts: { openFailures?: Record<string, OpenFailure>; seenElsewhere?: (signature: string) => boolean } = {},
): Findings {
  // A Map, not an object: a program may be called `constructor` or `__proto__`.
  const open = new Map<string, OpenFailure>();
  for (const [key, f] of Object.entries(opts.openFailures ?? {})) open.set(key, { ...f, fix: [...(f.fix ?? [])] });
  const hits: SignalHit[] = [];
  const drafts: DraftPitfall[] = [];
  const failures: FailureSeen[] = [];
  const repeated = new Set<string>();
  let score = 0;

  // Each step goes to every open failure but the one of its own program, which it opens or closes.
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
    if (e.kind === "tool" && e.ok && e.change) addStep(changeStep(e.change, e.line, e.entryId));
    if (e.kind === "command") {
      const run = invocation(e.command);
      const prog = run.program;
      if (!prog) continue;
      // Open failures are kept per task: `cargo add serde` after a failed `cargo build` is a step of its fix.
      const key = taskOf(run);
      if (!isReadOnly(e.command))
        addStep({ kind: "command", command: maskSecrets(e.command), exitCode: e.exitCode, ok: e.ok, line: e.line, entryId: e.entryId }, key);
      if (!e.ok) {
        const failure = failureOf(e.command, e.output, e.exitCode, run);
        const keyLines = failure.outputLines.slice(0, MAX_KEY_LINES);
        open.set(key, {
          program: prog,
          command: e.command,
          exitCode: e.exitCode,
          keyLines,
          entryId: e.entryId,
          line: e.line,
          time: e.time,
          attempts: (open.get(key)?.attempts ?? 0) + 1,
          fix: [],
          fixDropped: 0,
        });
        hits.push({ kind: "failed", line: e.line, entryId: e.entryId, program: prog });
        const { signature } = failure;
        failures.push({ program: prog, signature, keyLine: keyLines[0] ?? "", line: e.line, time: e.time, command: e.command, output: e.output });
        if (!repeated.has(signature) && opts.seenElsewhere?.(signature)) {
          repeated.add(signature);
          hits.push({ kind: "repeat", line: e.line, entryId: e.entryId, program: prog });
          score += 2;
        }
      } else if (open.has(key)) {
        const f = open.get(key)!;
        open.delete(key);
        drafts.push({
          program: prog,
          failed: { command: f.command, exitCode: f.exitCode, keyLines: f.keyLines, entryId: f.entryId, line: f.line, time: f.time },
          attempts: f.attempts,
          worked: { command: e.command, entryId: e.entryId, line: e.line, time: e.time },
          fix: f.fix ?? [],
          fixDropped: f.fixDropped ?? 0,
        });
        hits.push({ kind: "fixed", line: e.line, entryId: e.entryId, program: prog });
        score += f.attempts >= 3 ? 2 : 1;
      }
    } else if (e.kind === "user") {
      const said = userSignals(e.text);
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

  const counts: SignalCounts = { failed: 0, fixed: 0, correction: 0, remember: 0, repeat: 0 };
  for (const h of hits) counts[h.kind]++;
  const labels = [...new Set(hits.filter((h) => h.kind !== "failed").map((h) => (h.program ? `${h.kind} ${h.program}` : h.kind)))].sort();
  return { counts, hits, drafts, failures, openFailures: Object.fromEntries(open), labels, priority: Math.min(3, Math.max(1, score)) };
}

function changeStep(change: FileChange, line: number, entryId?: string): FixStep {
  // Masked as one text: a key split over several diff lines is still recognised.
  const diff = maskSecrets(change.diff.join("\n")).split("\n");
  return { kind: "change", verb: change.verb, path: maskSecrets(change.path), diff: change.diff.length ? diff : [], line, entryId };
}

/** True when the findings are worth an inbox item: anything beyond failures nobody fixed. */
export function worthAnItem(f: Findings): boolean {
  return f.counts.fixed + f.counts.correction + f.counts.remember + f.counts.repeat > 0;
}

const CORRECTION_START = /^(?:no,\s*(?:use|it)\b|actually\b|that's wrong\b|that is wrong\b|don't\b|do not\b|stop doing\b|instead\b)/i;
const REMEMBER = /\bremember\b|\bnote that\b|\bkeep in mind\b|\bdon't forget\b/i;

/** The first sentence of a user message that corrects the agent, and the first that asks to remember. */
export function userSignals(text: string): { correction?: string; remember?: string } {
  const found: { correction?: string; remember?: string } = {};
  const normal = text.replace(/[\u2018\u2019]/g, "'");
  for (const sentence of paragraphs(normal).flatMap(sentences)) {
    // Questions ask, they do not tell: "do you remember…?" is no request.
    if (!sentence || sentence.endsWith("?")) continue;
    if (!found.correction && CORRECTION_START.test(sentence)) found.correction = sentence;
    if (!found.remember && REMEMBER.test(sentence)) found.remember = sentence;
  }
  return found;
}
