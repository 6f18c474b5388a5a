import type { LessonWrite } from "../plan/changes.ts";
import type { Confirmed } from "../write/confirm.ts";
import type { NeedsUser } from "../write/requests.ts";
import type { Written } from "../write/write.ts";
import { EXIT } from "../base/errors.ts";
import type { Output } from "./render.ts";
import { findingLine } from "./findings.ts";

/**
 * The one shape every successful knowledge-base write reports; with `warnings` (the writes of a
 * text the caller wrote: add, edit), lint's warnings on it too, so they are read now, not later.
 */
export function writtenOutput(w: Written<LessonWrite>, help: string[] = [], opts: { warnings?: boolean } = {}): Output {
  const r = w.result;
  const warnings = opts.warnings ? (w.warnings ?? []) : undefined;
  const data = {
    status: "written",
    action: r.action,
    id: r.id,
    path: r.path,
    title: r.title,
    commit: w.commit,
    diff: w.diff,
    notes: r.notes,
    ...(warnings ? { warnings } : {}),
    help,
  };
  const human = [
    `${r.action} ${r.path} [${r.id}] in commit ${w.commit}`,
    ...r.notes.map((n) => `note: ${n}`),
    ...(warnings ?? []).map((f) => `  ${findingLine(f)}`),
  ].join("\n");
  return { data, human };
}

/** What a confirmed request reports: cancelled, or the write it allowed. */
export function confirmedOutput(done: Confirmed): Output {
  if (done.status === "cancelled") return { data: { status: "cancelled", request: done.request }, human: `cancelled ${done.request}; nothing was written` };
  return writtenOutput(done.written as Written<LessonWrite>);
}

/** A write that waits for the user: its outcome for scripts and agents, the question for people, exit 3; `ask` lets a person at the terminal answer at once. */
export function needsUserOutput(n: NeedsUser): Output {
  const human = `Needs your decision:\n${n.question}\nOptions: ${n.options.map((o) => JSON.stringify(o)).join(", ")}\nAnswer with: ${n.next}\n`;
  return { data: n, human, exit: EXIT.needsUser, ask: n };
}

export function unchangedOutput(id: string, path: string, message: string): Output {
  return { data: { status: "unchanged", message, id, path }, human: `unchanged: ${message}` };
}
