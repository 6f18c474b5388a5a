import { relative } from "node:path";
import { sha256Hex } from "../base/hash.ts";
import { capture, type CaptureResult } from "../sessions/capture.ts";
import { findSessionFiles } from "../sessions/extract.ts";
import { capMiddle } from "../sessions/reader.ts";
import type { DraftPitfall } from "../sessions/signals.ts";
import { SignatureStore } from "../sessions/signatures.ts";

// The failures of an archive of sessions, by signature: how often and in how many sessions each
// was seen, and the occurrence a lesson would be written from. Every file is read whole through
// capture (dry run, no cursor), so its drafts and failures are the ones `rkb extract` finds, masked
// the same way. A run over part of the archive (`--shard K/N`) makes a set of its own; merging the
// sets of all N parts gives the set one run over the whole archive makes, since every number is a
// sum, a union, a minimum or a maximum over files.

export interface Shard {
  k: number;
  n: number;
}

/** One failure signature across the sessions read. */
export interface Candidate {
  signature: string;
  program: string;
  keyLine: string;
  occurrences: number;
  /** A key per session it was seen in (the session id, else a hash of the file's path), sorted. */
  sessions: string[];
  harnesses: string[];
  firstSeen?: string;
  lastSeen?: string;
  /** The earliest occurrence that was fixed later in its session, with the failure as the failure rule reads it. */
  fixed?: FixedFailure;
}

export interface FixedFailure {
  draft: DraftPitfall;
  session: string;
  harness?: string;
  /** The failed command and its output (masked, cut like the reader cuts long output). */
  command: string;
  error: string;
  /** What "earliest" compares: the failure's time, then the session key, then the line. */
  order: string;
}

export interface CandidateSet {
  shard?: Shard;
  files: number;
  sessions: number;
  notSessions: number;
  skippedLines: number;
  problems: { path: string; message: string }[];
  /** By signature, ascending. */
  candidates: Candidate[];
}

/** Failed output kept per candidate for the failure rule: the rule reads key lines, which this keeps. */
const ERROR_CHARS = 16 * 1024;

/** Which shard a session file belongs to: a hash of its path below the working folder, so every runner agrees. */
export function shardOf(path: string, cwd: string, n: number): number {
  return (Number.parseInt(sha256Hex(relative(cwd, path)).slice(0, 8), 16) % n) + 1;
}

export async function gatherCandidates(opts: { paths: string[]; cwd: string; env: NodeJS.ProcessEnv; shard?: Shard }): Promise<CandidateSet> {
  const found = findSessionFiles(opts.paths, opts.cwd);
  const files = opts.shard ? found.files.filter((f) => shardOf(f.path, opts.cwd, opts.shard!.n) === opts.shard!.k) : found.files;
  const set: CandidateSet = {
    ...(opts.shard ? { shard: opts.shard } : {}),
    files: files.length,
    sessions: 0,
    notSessions: 0,
    skippedLines: 0,
    problems: found.problems,
    candidates: [],
  };
  const bySignature = new Map<string, Candidate>();
  for (const file of files) {
    let read: CaptureResult;
    try {
      // A store of its own per file: nothing one file finds may depend on which files came before it.
      const batch = { signatures: new SignatureStore(), newSignatures: [] };
      read = await capture({ sessionFile: file.path, env: opts.env, dryRun: true, whole: true, reason: "propose", batch });
    } catch (e) {
      set.problems.push({ path: file.path, message: e instanceof Error ? e.message : String(e) });
      continue;
    }
    set.skippedLines += read.skippedLines.length;
    if (read.kind !== "session") {
      if (read.kind === "not-session") set.notSessions++;
      continue;
    }
    set.sessions++;
    const session = read.sessionId ?? `file-${sha256Hex(relative(opts.cwd, file.path)).slice(0, 16)}`;
    addSession(bySignature, read, session);
  }
  set.candidates = [...bySignature.values()].sort((a, b) => (a.signature < b.signature ? -1 : 1));
  return set;
}

function addSession(bySignature: Map<string, Candidate>, read: CaptureResult, session: string): void {
  const harnesses = read.harness ? [read.harness] : [];
  const fixedAt = new Map(read.drafts.map((d) => [d.failed.line, d]));
  const seenHere = new Set<string>();
  for (const f of read.failures) {
    const draft = fixedAt.get(f.line);
    const one: Candidate = {
      signature: f.signature,
      program: f.program,
      keyLine: f.keyLine,
      occurrences: 1,
      sessions: seenHere.has(f.signature) ? [] : [session],
      harnesses,
      ...(f.time ? { firstSeen: f.time, lastSeen: f.time } : {}),
      ...(draft
        ? {
            fixed: {
              draft,
              session,
              ...(read.harness ? { harness: read.harness } : {}),
              command: f.command,
              error: capMiddle(f.output, ERROR_CHARS),
              order: `${f.time ?? "~"}\t${session}\t${String(f.line).padStart(10, "0")}`,
            },
          }
        : {}),
    };
    seenHere.add(f.signature);
    const known = bySignature.get(f.signature);
    bySignature.set(f.signature, known ? combine(known, one) : one);
  }
}

/** Two counts of one signature as one: sums, unions, the earlier first and later last time, the earliest fix. */
function combine(a: Candidate, b: Candidate): Candidate {
  const fixed = !a.fixed ? b.fixed : !b.fixed ? a.fixed : a.fixed.order <= b.fixed.order ? a.fixed : b.fixed;
  // The earliest occurrence names the program and key line, like it gives the fix.
  const first = (b.firstSeen ?? "~") < (a.firstSeen ?? "~") ? b : a;
  return {
    signature: a.signature,
    program: first.program,
    keyLine: first.keyLine,
    occurrences: a.occurrences + b.occurrences,
    sessions: union(a.sessions, b.sessions),
    harnesses: union(a.harnesses, b.harnesses),
    ...minMax(a, b),
    ...(fixed ? { fixed } : {}),
  };
}

function minMax(a: Candidate, b: Candidate): Pick<Candidate, "firstSeen" | "lastSeen"> {
  const times = [a.firstSeen, a.lastSeen, b.firstSeen, b.lastSeen].filter((t): t is string => t !== undefined).sort();
  return times.length ? { firstSeen: times[0], lastSeen: times.at(-1) } : {};
}

function union(a: string[], b: string[]): string[] {
  if (!b.length) return a;
  if (!a.length) return b;
  return [...new Set([...a, ...b])].sort();
}

/**
 * The sets of every shard of one archive as the set of the whole: each shard 1..N exactly once.
 * Candidates of one signature from several shards are counted together.
 */
export function mergeCandidateSets(sets: { name: string; set: CandidateSet }[]): CandidateSet {
  const bySignature = new Map<string, Candidate>();
  const merged: CandidateSet = { files: 0, sessions: 0, notSessions: 0, skippedLines: 0, problems: [], candidates: [] };
  for (const { set } of sets) {
    merged.files += set.files;
    merged.sessions += set.sessions;
    merged.notSessions += set.notSessions;
    merged.skippedLines += set.skippedLines;
    merged.problems.push(...set.problems);
    for (const c of set.candidates) {
      const known = bySignature.get(c.signature);
      bySignature.set(c.signature, known ? combine(known, c) : c);
    }
  }
  // Every shard lists the paths that could not be read; one copy each.
  merged.problems = [...new Map(merged.problems.map((p) => [`${p.path}\n${p.message}`, p])).values()];
  merged.candidates = [...bySignature.values()].sort((a, b) => (a.signature < b.signature ? -1 : 1));
  return merged;
}
