import { readFailure } from "../shell/failure.ts";
import { failedBashCommands, readSession } from "../sessions/reader.ts";
import type { EvalContext } from "./eval.ts";
import { decideFailureIn } from "./failure.ts";

// `rkb eval --replay`: the failure rule over every failed bash command in real session files.
// It shows how much of what actually fails the knowledge base covers, which lessons it would
// inject, and the failures nothing covers (grouped by signature), the candidates for new lessons.

export interface ReplayReport {
  /** Session files read (an empty one too); a file that is no session is named in `not_sessions`, not counted. */
  files: number;
  not_sessions: { path: string; looks_like?: string }[];
  failures: number;
  covered: number;
  coverage: number;
  lessons: { id: string; title: string; count: number }[];
  uncovered: { signature: string; program: string; count: number; example: string }[];
}

export async function replayFailures(ctx: EvalContext, paths: string[]): Promise<ReplayReport> {
  const lessons = new Map<string, { id: string; title: string; count: number }>();
  const uncovered = new Map<string, { signature: string; program: string; count: number; example: string }>();
  const notSessions: ReplayReport["not_sessions"] = [];
  let failures = 0;
  let covered = 0;
  for (const path of paths) {
    const read = await readSession(path);
    if (read.kind === "not-session") {
      notSessions.push({ path, ...(read.looksLike ? { looks_like: read.looksLike } : {}) });
      continue;
    }
    for (const f of failedBashCommands(read)) {
      failures++;
      // Read as the hook reads a result (the reader has taken the harness's trailer off already).
      const failure = readFailure(f.command, f.error);
      const decision = decideFailureIn(ctx.index, ctx.here, ctx.usage, failure);
      if (decision.lesson) {
        covered++;
        const entry = lessons.get(decision.lesson.id) ?? { id: decision.lesson.id, title: decision.lesson.title, count: 0 };
        entry.count++;
        lessons.set(entry.id, entry);
        continue;
      }
      const { signature, program } = failure;
      const entry = uncovered.get(signature) ?? { signature, program, count: 0, example: failure.outputLines[0] ?? "" };
      entry.count++;
      uncovered.set(signature, entry);
    }
  }
  const byCount = <T extends { count: number }>(a: T, b: T) => b.count - a.count;
  return {
    files: paths.length - notSessions.length,
    not_sessions: notSessions,
    failures,
    covered,
    coverage: failures ? Math.round((covered / failures) * 1000) / 1000 : 0,
    lessons: [...lessons.values()].sort(byCount),
    uncovered: [...uncovered.values()].sort(byCount),
  };
}
