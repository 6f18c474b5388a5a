import { statSync } from "node:fs";
import { resolve } from "node:path";
import { RkbError } from "../base/errors.ts";
import { capturedBefore, expireState, noteCaptured } from "../machine/state.ts";
import { sha256Hex } from "../base/hash.ts";
import { cursorFits, loadCursor, peekSessionId, saveCursor, withSessionLock, type Cursor } from "./cursor.ts";
import { storeFile } from "./opencode.ts";
import { DRAFTS_HEADING, renderDraft } from "../inbox/draft.ts";
import { renderExcerpt } from "../inbox/excerpt.ts";
import { addItem, expireItems, type InboxMeta } from "../inbox/inbox.ts";
import type { FileChange } from "./edits.ts";
import { readSession, type SessionEvent, type SessionRead, type SkippedLine } from "./reader.ts";
import { maskAll, maskSecrets } from "../text/secrets.ts";
import { maskedCwd, personalMasker, tildePath } from "../text/paths.ts";
import { counted } from "../output/words.ts";
import { appendSignatures, SignatureStore } from "./signatures.ts";
import { findSignals, worthAnItem, type DraftPitfall, type FailureSeen, type Findings, type SignalCounts, type SignalHit } from "./signals.ts";

// Capture: the new part of one session file → signals → at most one inbox item, then the cursor
// moves past what was read. Runs under a lock per session file, so the pre-compact and
// session-end hooks, or two extract runs, never read the same part twice.

export interface CaptureInput {
  sessionFile: string;
  sessionId?: string;
  cwd?: string;
  harness?: "pi" | "omp" | "claude-code" | string;
  /** Why capture runs (pre-compact, session-end, extract); recorded in the item. */
  reason?: string;
  env?: NodeJS.ProcessEnv;
  dryRun?: boolean;
  /** Skip the file when its newest entry is older than this. */
  since?: Date;
  /** Read the whole file, as if no cursor had been saved (`rkb propose`); with dryRun nothing moves. */
  whole?: boolean;
  /** Look for failures and their fixes alone (`rkb propose`, a dry run): what the user said is neither masked nor read. */
  failuresOnly?: boolean;
  /**
   * Set by `extract`: one signature store shared by every file of the run, new signatures
   * collected for one append at the end (not one locked append per file), expiry done once.
   */
  batch?: { signatures: SignatureStore; newSignatures: { sig: string; session: string }[]; spans: Set<string> };
}

export interface CaptureResult {
  sessionFile: string;
  kind: SessionRead["kind"];
  /** For a file that is no session: what it looks like. */
  looksLike?: string;
  /** True when `since` excluded the file: nothing was written and the cursor did not move. */
  tooOld?: boolean;
  sessionId?: string;
  harness?: string;
  entriesRead: number;
  skippedLines: SkippedLine[];
  counts: SignalCounts;
  itemsWritten: string[];
  drafts: DraftPitfall[];
  /** Drafts ranked below the ones kept (signals.MAX_DRAFTS per item). */
  draftsLeftOut: Findings["draftsLeftOut"];
  failures: FailureSeen[];
  /** Corrections, requests to remember and repeated failures, with their lines. */
  signals: SignalHit[];
  /** True when this part of the session was captured already (a copy of the file, a second archive): nothing is written again. */
  duplicate?: boolean;
}

const LOCK = { staleMs: 120_000, waitMs: 30_000 };

export async function capture(input: CaptureInput): Promise<CaptureResult> {
  const env = input.env ?? process.env;
  const file = resolve(input.sessionFile);
  let size: number;
  try {
    const st = statSync(storeFile(file));
    if (!st.isFile()) throw new Error("not a file");
    size = st.size;
  } catch {
    throw new RkbError(
      "not_found",
      `session file ${file} does not exist or is not a file`,
      "pass the path of a pi, omp, Claude Code, Codex CLI or Gemini CLI session file, or <opencode.db>#<session id>",
    );
  }
  const run = () => captureUnlocked(input, env, file, size);
  if (input.dryRun) return run();
  return withSessionLock(env, file, LOCK, run);
}

async function captureUnlocked(input: CaptureInput, env: NodeJS.ProcessEnv, file: string, size: number): Promise<CaptureResult> {
  let cursor = input.whole ? undefined : loadCursor(env, file);
  if (cursor && !cursorFits(cursor, size, peekSessionId(storeFile(file)))) cursor = undefined;
  const read = await readSession(file, {
    fromOffset: cursor?.offset,
    fromLine: cursor?.line,
    harness: cursor?.harness,
    pendingCalls: cursor?.pendingCalls,
  });
  const sessionId = read.sessionId ?? cursor?.sessionId ?? input.sessionId;
  const harness = read.harness ?? cursor?.harness ?? input.harness;
  const cwd = read.cwd ?? cursor?.cwd ?? input.cwd;
  const base: CaptureResult = {
    sessionFile: file,
    kind: read.kind,
    ...(read.looksLike ? { looksLike: read.looksLike } : {}),
    sessionId,
    harness,
    entriesRead: read.counts.entries,
    skippedLines: read.skipped,
    counts: { failed: 0, fixed: 0, correction: 0, remember: 0, repeat: 0 },
    itemsWritten: [],
    drafts: [],
    draftsLeftOut: [],
    failures: [],
    signals: [],
  };
  if (input.since && Date.parse(read.lastTime ?? "") < input.since.getTime()) return { ...base, tooOld: true };
  // Masked before anything reads them: signals, drafts, the excerpt and the cursor's open failures
  // then never hold a secret or a home folder, and no later split or cut can leave half of one behind.
  // The agent's words are read by the excerpt alone: they are masked only for an item that quotes them.
  const paths = personalMasker(cwd, env.HOME);
  const userWords = !input.failuresOnly;
  const events = maskEvents(read.events, paths, userWords);

  const signatures = input.batch?.signatures ?? SignatureStore.load(env);
  const sessionKey = sessionId ?? file;
  const findings = findSignals(events, {
    openFailures: cursor?.openFailures,
    seenElsewhere: (sig) => signatures.seenElsewhere(sig, sessionKey),
    // Read from a cursor on: the agent has acted before this part, and may be corrected in it; it
    // may have changed the files a failure of this part points into.
    agentActed: cursor !== undefined,
    agentChanged: cursor !== undefined,
    userWords,
  });
  // Noted right after the check, with no await between, so parallel files of one run agree.
  const newSignatures = findings.failures.filter((f) => signatures.note(f.signature, sessionKey)).map((f) => ({ sig: f.signature, session: sessionKey }));
  // Open failures carried over from a cursor written before masking was complete may be raw; a
  // read without them drafts from the masked events alone (an archive's sessions, read whole).
  const carried = Object.keys(cursor?.openFailures ?? {}).length > 0;
  const drafts = carried ? findings.drafts.map((d) => maskDraft(d, paths)) : findings.drafts;
  const signals = findings.hits.filter((h) => h.kind !== "failed" && h.kind !== "fixed");
  const result: CaptureResult = { ...base, counts: findings.counts, drafts, draftsLeftOut: findings.draftsLeftOut, failures: findings.failures, signals };
  // The same part of a session seen before (a copy, a second archive) is one item, written once:
  // checked and noted with no await in between, so parallel files of one run agree.
  let worth = worthAnItem(findings);
  const span = worth ? spanOf(read, harness, sessionId) : undefined;
  if (span) {
    const seen = input.batch?.spans.has(span) || capturedBefore(env, span);
    input.batch?.spans.add(span);
    if (seen) {
      worth = false;
      result.duplicate = true;
    }
  }
  if (input.dryRun) {
    if (worth) result.itemsWritten.push("(dry run)");
    return result;
  }

  if (!input.batch) {
    expireItems(env);
    expireState(env);
  }
  if (worth) {
    const meta = itemMeta(input, { file, sessionId, harness, cwd, read, findings }, env.HOME);
    const quoted = withAgentWords(events, read.events, paths);
    const body = itemBody(read, quoted, findings, drafts, signals, maskSecrets(tildePath(file, env.HOME)));
    // A CI run over an archive writes thousands of these; it is rerun, not recovered, after a crash.
    result.itemsWritten.push(addItem(env, meta, body, { durable: !input.batch }));
    // Noted after the item is written: a crash in between makes a copy of the item on the next
    // run (its cursor did not move either), never a span marked captured with no item.
    noteCaptured(env, span!);
  }
  if (input.batch) input.batch.newSignatures.push(...newSignatures);
  else appendSignatures(env, newSignatures);
  const next: Cursor = {
    file,
    sessionId,
    harness: read.harness ?? cursor?.harness,
    cwd,
    offset: read.endOffset,
    line: read.endLine,
    lastEntryId: read.lastEntryId ?? cursor?.lastEntryId,
    openFailures: findings.openFailures,
    pendingCalls: read.pendingCalls,
    updated: Math.floor(Date.now() / 1000),
  };
  // A file that is no session (yet) gets no cursor: the next run looks at it afresh. A cursor
  // that did not move is not rewritten, so a rerun over an archive costs reads only.
  const moved = !cursor || cursor.offset !== next.offset || JSON.stringify(cursor.pendingCalls) !== JSON.stringify(next.pendingCalls);
  if (next.harness && moved) saveCursor(env, next);
  return result;
}

/** Secrets masked, then the session's working directory written `.` and every home `~`. */
type Mask = (text: string) => string;

/** What identifies the part of a session a read covered, wherever its file lies. */
function spanOf(read: SessionRead, harness: string | undefined, sessionId: string | undefined): string {
  const first = read.events[0]!;
  const last = read.events.at(-1)!;
  return sha256Hex(JSON.stringify([harness, sessionId, first.entryId, first.time, first.line, last.entryId, last.time, last.line])).slice(0, 32);
}

/**
 * The events with every text masked, all texts of the session in one pass (text/secrets.ts
 * maskAll), the agent's words left empty: only an item's excerpt quotes them, so they are masked
 * only for one (withAgentWords). The user's words are left empty too when nothing reads them.
 */
function maskEvents(events: SessionEvent[], paths: Mask, userWords: boolean): SessionEvent[] {
  const texts: string[] = [];
  for (const e of events) {
    if (e.kind === "user") texts.push(userWords ? e.text : "");
    else if (e.kind === "command") texts.push(e.command, e.output);
    else if (e.kind === "tool" && e.change) texts.push(e.change.path);
  }
  const masked = maskAll(texts).map(paths);
  let i = 0;
  return events.map((e): SessionEvent => {
    switch (e.kind) {
      case "user":
        return { ...e, text: masked[i++]! };
      case "agent":
        return { ...e, text: "" };
      case "command":
        return { ...e, command: masked[i++]!, output: masked[i++]! };
      case "tool":
        return e.change ? { ...e, change: withPaths(e.change, masked[i++]!, paths) } : e;
      default:
        return e;
    }
  });
}

/** The masked events (maskEvents) with the agent's words put back, masked: the rest is not masked again. */
function withAgentWords(masked: SessionEvent[], raw: SessionEvent[], paths: Mask): SessionEvent[] {
  const words = maskAll(raw.flatMap((e) => (e.kind === "agent" ? [e.text] : []))).map(paths);
  let i = 0;
  return masked.map((e) => (e.kind === "agent" ? { ...e, text: words[i++]! } : e));
}

/**
 * The change with its masked path, its diff's paths masked when the diff is first read: its
 * secrets are masked then too, before its lines are cut (sessions/edits.ts), and only the edits
 * that become fix steps are ever read.
 */
function withPaths(change: FileChange, path: string, paths: Mask): FileChange {
  let diff: string[] | undefined;
  return {
    verb: change.verb,
    path,
    get diff() {
      return (diff ??= change.diff.map(paths));
    },
  };
}

function maskDraft(d: DraftPitfall, paths: Mask): DraftPitfall {
  const mask = (text: string) => paths(maskSecrets(text));
  return {
    ...d,
    program: mask(d.program),
    failed: { ...d.failed, command: mask(d.failed.command), keyLines: d.failed.keyLines.map(mask) },
    worked: { ...d.worked, command: mask(d.worked.command) },
  };
}

function itemMeta(
  input: CaptureInput,
  s: { file: string; sessionId?: string; harness?: string; cwd?: string; read: SessionRead; findings: Findings },
  home: string | undefined,
): InboxMeta {
  const c = s.findings.counts;
  const lineNumbers = s.read.events.map((e) => e.line);
  const ids = s.read.events.map((e) => e.entryId).filter((id): id is string => Boolean(id));
  return {
    kind: "transcript",
    time: Math.floor(Date.now() / 1000),
    harness: s.harness,
    session: s.sessionId && maskSecrets(s.sessionId),
    cwd: s.cwd && maskedCwd(s.cwd, home),
    signals: s.findings.labels.map(maskSecrets),
    priority: s.findings.priority,
    counts: `failed ${c.failed}, fixed ${c.fixed}, correction ${c.correction}, remember ${c.remember}, repeat ${c.repeat}`,
    session_file: maskSecrets(tildePath(s.file, home)),
    // Reduced, not spread: a session of millions of events is more arguments than a call takes.
    lines: lineNumbers.length ? `${lineNumbers.reduce((a, b) => Math.min(a, b))}-${lineNumbers.reduce((a, b) => Math.max(a, b))}` : undefined,
    entries: ids.length ? `${ids[0]}..${ids[ids.length - 1]}` : undefined,
    session_time: s.read.firstTime,
    reason: input.reason && maskSecrets(input.reason),
  };
}

/** The item's text. Every part was masked before it was cut or split, so it is put together as is. */
function itemBody(read: SessionRead, events: SessionEvent[], findings: Findings, drafts: DraftPitfall[], said: SignalHit[], file: string): string {
  const out: string[] = [`# Session ${maskSecrets(read.sessionId ?? "")}: ${findings.labels.map(maskSecrets).join(", ")}`.replace("  ", " "), ""];
  if (drafts.length) out.push(DRAFTS_HEADING, "", ...drafts.flatMap(renderDraft));
  const left = findings.draftsLeftOut;
  if (left.length)
    out.push(`${counted(left.length, "more draft")} left out (ranked lower): ${left.map((d) => `\`${d.program}\` (line ${d.line})`).join(", ")}.`, "");
  if (said.length) {
    out.push("## Signals", "");
    for (const h of said)
      out.push(`- ${h.kind}${h.program ? ` ${h.program}` : ""} (line ${h.line}${h.entryId ? `, entry ${h.entryId}` : ""})${h.text ? `: ${h.text}` : ""}`);
    out.push("");
  }
  const worked = new Set(findings.drafts.map((d) => d.worked.line));
  out.push(`## Excerpt (${file})`, "", ...renderExcerpt(events, worked));
  return out.join("\n");
}
