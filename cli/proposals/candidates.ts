import { relative } from "node:path";
import { sha256Hex } from "../base/hash.ts";
import { capture, type CaptureResult } from "../sessions/capture.ts";
import { findSessionFiles } from "../sessions/extract.ts";
import { capMiddle } from "../sessions/entries.ts";
import type { DraftPitfall } from "../sessions/signals.ts";
import { SignatureStore } from "../sessions/signatures.ts";
import { tildify } from "../machine/settings.ts";
import { maskSecrets } from "../text/secrets.ts";

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
    // The paths as the report may show them: the home folder as `~`.
    problems: found.problems.map((p) => ({ ...p, path: tildify(p.path) })),
    candidates: [],
  };
  const bySignature = new Map<string, Tally>();
  for (const file of files) {
    let read: CaptureResult;
    try {
      // A store of its own per file: nothing one file finds may depend on which files came before it.
      const batch = { signatures: new SignatureStore(), newSignatures: [], spans: new Set<string>() };
      read = await capture({ sessionFile: file.path, env: opts.env, dryRun: true, whole: true, failuresOnly: true, reason: "propose", batch });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      set.problems.push({ path: tildify(file.path), message: message.replaceAll(file.path, tildify(file.path)) });
      continue;
    }
    set.skippedLines += read.skippedLines.length;
    if (read.kind !== "session") {
      if (read.kind === "not-session") set.notSessions++;
      continue;
    }
    set.sessions++;
    const session = read.sessionId !== undefined ? sessionKey(read.sessionId) : `file-${sha256Hex(relative(opts.cwd, file.path)).slice(0, 16)}`;
    addSession(bySignature, read, session);
  }
  set.candidates = counted(bySignature);
  return set;
}

/**
 * The key a session is counted and named by: its id, unless the id holds a secret (a session file
 * may say anything), then a hash of it, so that the lesson, its record and the shard file never
 * hold the secret and two such sessions still count as two.
 */
function sessionKey(id: string): string {
  return maskSecrets(id) === id ? id : `session-${sha256Hex(id).slice(0, 16)}`;
}

/** A candidate being counted: sessions and harnesses as sets, so a signature met in every session costs a set entry each. */
interface Tally {
  candidate: Candidate;
  sessions: Set<string>;
  harnesses: Set<string>;
}

function addSession(bySignature: Map<string, Tally>, read: CaptureResult, session: string): void {
  const fixedAt = new Map(read.drafts.map((d) => [d.failed.line, d]));
  for (const f of read.failures) {
    const draft = fixedAt.get(f.line);
    const one: Candidate = {
      signature: f.signature,
      program: f.program,
      keyLine: f.keyLine,
      occurrences: 1,
      sessions: [session],
      harnesses: read.harness ? [read.harness] : [],
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
    count(bySignature, one);
  }
}

/** Adds one count of a signature to its tally: sums, unions, the earlier first and later last time, the earliest fix. */
function count(bySignature: Map<string, Tally>, b: Candidate): void {
  const t = bySignature.get(b.signature);
  if (!t) {
    bySignature.set(b.signature, { candidate: { ...b }, sessions: new Set(b.sessions), harnesses: new Set(b.harnesses) });
    return;
  }
  const a = t.candidate;
  for (const s of b.sessions) t.sessions.add(s);
  for (const h of b.harnesses) t.harnesses.add(h);
  // The earliest occurrence names the program and key line, like it gives the fix (ties: the
  // line that sorts first, so the order files are counted in never matters).
  const earliest = (c: Candidate) => `${c.firstSeen ?? "~"}\t${c.program}\t${c.keyLine}`;
  if (earliest(b) < earliest(a)) {
    a.program = b.program;
    a.keyLine = b.keyLine;
  }
  a.occurrences += b.occurrences;
  const times = [a.firstSeen, a.lastSeen, b.firstSeen, b.lastSeen].filter((x): x is string => x !== undefined).sort();
  if (times.length) {
    a.firstSeen = times[0];
    a.lastSeen = times.at(-1);
  }
  if (b.fixed && (!a.fixed || b.fixed.order < a.fixed.order)) a.fixed = b.fixed;
}

/** The tallies as candidates, by signature. */
function counted(bySignature: Map<string, Tally>): Candidate[] {
  return [...bySignature.values()]
    .map((t) => ({ ...t.candidate, sessions: [...t.sessions].sort(), harnesses: [...t.harnesses].sort() }))
    .sort((a, b) => (a.signature < b.signature ? -1 : 1));
}

/**
 * The sets of every shard of one archive as the set of the whole: each shard 1..N exactly once.
 * Candidates of one signature from several shards are counted together.
 */
export function mergeCandidateSets(sets: { name: string; set: CandidateSet }[]): CandidateSet {
  const bySignature = new Map<string, Tally>();
  const merged: CandidateSet = { files: 0, sessions: 0, notSessions: 0, skippedLines: 0, problems: [], candidates: [] };
  for (const { set } of sets) {
    merged.files += set.files;
    merged.sessions += set.sessions;
    merged.notSessions += set.notSessions;
    merged.skippedLines += set.skippedLines;
    merged.problems.push(...set.problems);
    for (const c of set.candidates) count(bySignature, c);
  }
  // Every shard lists the paths that could not be read; one copy each.
  merged.problems = [...new Map(merged.problems.map((p) => [`${p.path}\n${p.message}`, p])).values()];
  merged.candidates = counted(bySignature);
  return merged;
}
