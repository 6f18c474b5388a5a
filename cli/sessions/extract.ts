import { isPathGlob, pathGlobFiles } from "../base/glob.ts";
import { existsSync, statSync } from "node:fs";
import { RkbError } from "../base/errors.ts";
import { isSqlite, opencodeSessions, splitSource } from "./opencode.ts";
import { isAbsolute, resolve } from "node:path";
import { capture, type CaptureResult } from "./capture.ts";
import { expireState } from "../machine/state.ts";
import { maskSecrets } from "../text/secrets.ts";
import { tildePath } from "../text/paths.ts";
import { expireItems } from "../inbox/inbox.ts";
import type { DraftPitfall, SignalHit } from "./signals.ts";
import { appendSignatures, SignatureStore } from "./signatures.ts";
import { counted } from "../output/words.ts";
import { cell, oneLine } from "../output/markdown.ts";

// The CI mode: capture over every session file below some paths, several files at a time, with
// one signature store for the run so repeats across the archive are found. Files that cannot be
// read are reported and the run goes on.

export interface ExtractOptions {
  paths: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  dryRun?: boolean;
  since?: Date;
  concurrency?: number;
  onProgress?: (p: { done: number; total: number; bytes: number; totalBytes: number }) => void;
}

export interface RepeatedFailure {
  program: string;
  keyLine: string;
  signature: string;
  sessions: number;
  occurrences: number;
}

/** What became of one file: read as a session (of which harness), no session, empty, older than --since, or unreadable. */
export interface FileStatus {
  path: string;
  /** duplicate: a session already captured (a copy of another file, an earlier run over another archive). */
  status: "session" | "duplicate" | "not-session" | "empty" | "older" | "unreadable";
  harness?: string;
  /** For a file that is no session: what it looks like (named once, its lines only counted). */
  looks_like?: string;
  skipped_lines: number;
  /** Drafts found but not kept, ranked below the best few of the session. */
  drafts_left_out?: number;
}

/** A correction, request to remember or repeated failure, with the session line it was found on. */
export interface SignalSeen {
  file: string;
  kind: SignalHit["kind"];
  line: number;
  program?: string;
  text?: string;
}

export interface ExtractSummary {
  files: FileStatus[];
  sessions: number;
  not_sessions: number;
  older: number;
  skipped_lines: number;
  failed: number;
  fixed: number;
  correction: number;
  remember: number;
  repeat: number;
  items_written: number;
  /** Drafts ranked below the best few of their session, over all files (each file's count is in files[]). */
  drafts_left_out: number;
  bytes: number;
  items: string[];
  skipped: { file: string; line: number; reason: string }[];
  problems: { path: string; message: string }[];
  repeated_failures: RepeatedFailure[];
  drafts: (DraftPitfall & { file: string })[];
  signals: SignalSeen[];
}

const MAX_REPEATED = 10;

/** What a folder holds that may be sessions: JSON lines, Gemini CLI's older sessions, opencode's store. */
const SESSION_GLOBS = ["**/*.jsonl", "**/chats/session-*.json", "**/opencode*.db"];

/** Session files named by paths: files, folders (every session file below) and globs, with what could not be read; opencode's store as its sessions. */
export function findSessionFiles(
  paths: string[],
  cwd: string,
): { files: { path: string; size: number; mtimeMs: number }[]; problems: ExtractSummary["problems"] } {
  const found = new Map<string, { path: string; size: number; mtimeMs: number }>();
  const problems: ExtractSummary["problems"] = [];
  const add = (path: string) => {
    try {
      const st = statSync(path);
      if (st.isFile()) found.set(path, { path, size: st.size, mtimeMs: st.mtimeMs });
    } catch (e: any) {
      problems.push({ path, message: e?.code === "EACCES" ? "permission denied" : "cannot be read" });
    }
  };
  for (const p of paths) {
    const abs = isAbsolute(p) ? p : resolve(cwd, p);
    if (isPathGlob(p)) {
      const before = found.size;
      for (const match of pathGlobFiles(p, cwd)) add(match);
      if (found.size === before) problems.push({ path: p, message: "the pattern matches no file" });
      continue;
    }
    // One session of opencode's store, as rkb names it (`<db>#<session id>`).
    const { db, session } = splitSource(abs);
    if (session && existsSync(db)) {
      const st = statSync(db);
      found.set(abs, { path: abs, size: st.size, mtimeMs: st.mtimeMs });
      continue;
    }
    let st;
    try {
      st = statSync(abs);
    } catch {
      problems.push({ path: p, message: "does not exist" });
      continue;
    }
    if (st.isDirectory()) {
      const before = found.size;
      for (const glob of SESSION_GLOBS) for (const match of pathGlobFiles(glob, abs)) add(match);
      if (found.size === before) problems.push({ path: p, message: "has no session file below it (.jsonl, Gemini CLI's session-*.json, opencode's store)" });
    } else add(abs);
  }
  // Gemini CLI resumes an older session by copying it into <name>.jsonl, which it then goes on
  // writing: the .json beside it holds the same records again, and is left out.
  for (const path of [...found.keys()]) if (path.endsWith(".json") && found.has(`${path}l`)) found.delete(path);
  // opencode's store holds every session: each is one source. JSON lines and JSON are never one
  // (not opened to look: an archive holds thousands of them).
  for (const [path, f] of [...found]) {
    if (path.endsWith(".jsonl") || path.endsWith(".json") || !isSqlite(path)) continue;
    found.delete(path);
    try {
      for (const source of opencodeSessions(path)) found.set(source, { ...f, path: source });
    } catch (e) {
      const problem = e instanceof RkbError && typeof e.extra.problem === "string" ? `${e.extra.problem}; ${e.fix}` : "is an SQLite file rkb cannot read";
      problems.push({ path, message: problem });
    }
  }
  return { files: [...found.values()].sort((a, b) => a.path.localeCompare(b.path)), problems };
}

export async function extract(opts: ExtractOptions): Promise<ExtractSummary> {
  const { files, problems } = findSessionFiles(opts.paths, opts.cwd);
  const summary: ExtractSummary = {
    files: [],
    sessions: 0,
    not_sessions: 0,
    older: 0,
    skipped_lines: 0,
    failed: 0,
    fixed: 0,
    correction: 0,
    remember: 0,
    repeat: 0,
    items_written: 0,
    drafts_left_out: 0,
    bytes: 0,
    items: [],
    skipped: [],
    problems,
    repeated_failures: [],
    drafts: [],
    signals: [],
  };
  if (!opts.dryRun) {
    expireItems(opts.env);
    expireState(opts.env);
  }
  const batch = { signatures: SignatureStore.load(opts.env), newSignatures: [] as { sig: string; session: string }[], spans: new Set<string>() };
  const bySignature = new Map<string, RepeatedFailure>();
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  let next = 0;
  let done = 0;

  const take = (r: CaptureResult) => {
    const status = r.kind !== "session" ? r.kind : r.tooOld ? "older" : r.duplicate ? "duplicate" : "session";
    summary.files.push({
      path: r.sessionFile,
      status,
      ...(r.harness ? { harness: r.harness } : {}),
      ...(r.looksLike ? { looks_like: r.looksLike } : {}),
      skipped_lines: r.skippedLines.length,
      ...(r.draftsLeftOut.length ? { drafts_left_out: r.draftsLeftOut.length } : {}),
    });
    summary.skipped_lines += r.skippedLines.length;
    // A file that is no session is named once, with what it looks like; its lines are only counted.
    if (r.kind === "session") for (const s of r.skippedLines) summary.skipped.push({ file: r.sessionFile, ...s });
    if (r.kind !== "session") {
      if (r.kind === "not-session") summary.not_sessions++;
      return;
    }
    summary.sessions++;
    if (r.tooOld) {
      summary.older++;
      return;
    }
    if (r.duplicate) return;
    for (const k of ["failed", "fixed", "correction", "remember", "repeat"] as const) summary[k] += r.counts[k];
    summary.items_written += r.itemsWritten.length;
    summary.items.push(...r.itemsWritten.filter((id) => id !== "(dry run)"));
    for (const d of r.drafts) summary.drafts.push({ ...d, file: r.sessionFile });
    summary.drafts_left_out += r.draftsLeftOut.length;
    for (const h of r.signals)
      summary.signals.push({
        file: r.sessionFile,
        kind: h.kind,
        line: h.line,
        ...(h.program ? { program: h.program } : {}),
        ...(h.text ? { text: h.text } : {}),
      });
    const inThisSession = new Set<string>();
    for (const f of r.failures) {
      const agg = bySignature.get(f.signature) ?? { program: f.program, keyLine: f.keyLine, signature: f.signature, sessions: 0, occurrences: 0 };
      agg.occurrences++;
      if (!inThisSession.has(f.signature)) agg.sessions++;
      inThisSession.add(f.signature);
      bySignature.set(f.signature, agg);
    }
  };

  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      if (opts.since && file.mtimeMs < opts.since.getTime()) {
        // Not touched since the date, so no entry in it can be newer.
        summary.sessions++;
        summary.older++;
        summary.files.push({ path: file.path, status: "older", skipped_lines: 0 });
      } else {
        try {
          take(await capture({ sessionFile: file.path, env: opts.env, dryRun: opts.dryRun, since: opts.since, reason: "extract", batch }));
          summary.bytes += file.size;
        } catch (e) {
          problems.push({ path: file.path, message: e instanceof Error ? e.message : String(e) });
          summary.files.push({ path: file.path, status: "unreadable", skipped_lines: 0 });
        }
      }
      done++;
      opts.onProgress?.({ done, total: files.length, bytes: summary.bytes, totalBytes });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  if (!opts.dryRun) appendSignatures(opts.env, batch.newSignatures);

  summary.items.sort();
  summary.files.sort((a, b) => a.path.localeCompare(b.path));
  summary.signals.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  summary.repeated_failures = [...bySignature.values()]
    .filter((r) => r.sessions > 1)
    .sort((a, b) => b.sessions - a.sessions || b.occurrences - a.occurrences || a.program.localeCompare(b.program))
    .slice(0, MAX_REPEATED);
  summary.drafts.sort((a, b) => a.file.localeCompare(b.file) || a.failed.line - b.failed.line);
  return summary;
}

/**
 * A Markdown report for a CI job summary. Captured text was masked before it was cut; file names
 * (the home as `~`) and messages are masked here.
 */
export function markdownReport(s: ExtractSummary, opts: { dryRun?: boolean; home?: string } = {}): string {
  const name = (path: string) => tildePath(path, opts.home);
  const out = ["# rkb extract", ""];
  if (opts.dryRun) out.push("_Dry run: nothing was written._", "");
  out.push(
    "| sessions | skipped lines | failed | fixed | corrections | remember | repeats | items written |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    `| ${s.sessions} | ${s.skipped_lines} | ${s.failed} | ${s.fixed} | ${s.correction} | ${s.remember} | ${s.repeat} | ${s.items_written} |`,
    "",
  );
  out.push("## Top repeated failures", "");
  if (!s.repeated_failures.length) out.push("No failure was seen in more than one session.", "");
  else {
    out.push("| sessions | times | program | key error line |", "|---:|---:|---|---|");
    for (const r of s.repeated_failures) out.push(`| ${r.sessions} | ${r.occurrences} | \`${cell(r.program)}\` | ${cell(r.keyLine)} |`);
    out.push("");
  }
  out.push("## Draft pitfalls", "");
  if (!s.drafts.length) out.push("No failed command was fixed later in its session.", "");
  for (const d of s.drafts) {
    out.push(`### \`${cell(d.program)}\` in ${name(d.file)}:${d.failed.line}`, "");
    out.push(`- failed: \`${cell(oneLine(d.failed.command))}\`${d.failed.exitCode !== undefined ? ` (exit ${d.failed.exitCode})` : ""}`);
    for (const k of d.failed.keyLines.slice(0, 3)) out.push(`  - ${cell(k)}`);
    for (const step of d.fix)
      out.push(
        step.kind === "change"
          ? `- fix: ${step.verb} \`${cell(step.path)}\``
          : `- fix: \`${cell(oneLine(step.command))}\`${step.ok ? "" : ` (exit ${step.exitCode ?? "?"})`}`,
      );
    out.push(`- worked (line ${d.worked.line}): \`${cell(oneLine(d.worked.command))}\``, "");
  }
  if (s.drafts_left_out)
    out.push(`${counted(s.drafts_left_out, "more draft")} ranked below the best few of their sessions left out (the JSON counts them per file).`, "");
  const others = s.files.filter((f) => f.looks_like);
  if (s.problems.length || s.skipped_lines) {
    out.push("## Problems", "");
    for (const p of s.problems) out.push(`- ${name(p.path)}: ${p.message}`);
    for (const f of others) out.push(`- ${name(f.path)}: not a session file: ${f.looks_like} (${counted(f.skipped_lines, "line")} skipped)`);
    const byReason = new Map<string, number>();
    for (const k of s.skipped) byReason.set(`${name(k.file)}: ${k.reason}`, (byReason.get(`${name(k.file)}: ${k.reason}`) ?? 0) + 1);
    for (const [what, n] of byReason) out.push(`- ${what} (${counted(n, "line")} skipped)`);
    out.push("");
  }
  return maskSecrets(out.join("\n"));
}
