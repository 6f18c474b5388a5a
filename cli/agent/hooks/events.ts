import { existsSync } from "node:fs";
import { requireReadableKb } from "../../lesson/layout.ts";
import { lessonErrors } from "../../lint/lint.ts";
import { appendUsage } from "../../kb/usage.ts";
import { kbRoot, sessionIdOf, type Caller } from "../../machine/settings.ts";
import { decideFailureInjection } from "../../search/failure.ts";
import { decideRecall, type InjectedLesson } from "../../search/recall.ts";
import { readFailure } from "../../shell/failure.ts";
import { program } from "../../shell/program.ts";
import { capture } from "../../sessions/capture.ts";
import { storeFile } from "../../sessions/opencode.ts";
import { stripInjected } from "../../sessions/clean.ts";
import { listItems } from "../../inbox/inbox.ts";
import { userSignals } from "../../sessions/said.ts";
import { slashCommand } from "../prompts.ts";
import { expireState, updateRecords, type NewRecord } from "../../machine/state.ts";
import { renderInjection } from "./block.ts";
import type { HookPayload } from "./payload.ts";
import { stopNudge } from "./stop.ts";
import { counted } from "../../output/words.ts";

// One function per agent event. Each returns the text the agent should show the model ("" for
// nothing); the `rkb hook` command turns any error into a log line, so none of this can break a
// session.

export type { HookPayload } from "./payload.ts";

export const HOOK_EVENTS = ["session-start", "tool-failed", "tool-ok", "tool-done", "prompt", "pre-compact", "session-end", "stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/**
 * What the hooks need of the commands, passed in by `rkb hook` (the hooks sit below the command
 * table): session start tells the agent what `rkb context` prints.
 */
export interface HookHost {
  context(hook: HookContext, cwd: string): Promise<string>;
}

/** What a hook handler is given besides the payload: the environment, who calls, and the commands it needs. */
export interface HookContext {
  env: NodeJS.ProcessEnv;
  caller: Caller;
  host: HookHost;
}

/** The caller of a hook, as its payload names it: the agent's harness and session (the session's file names it too). */
export function hookCaller(p: HookPayload): Caller {
  const sessionId = sessionIdOf(p.session_id, p.session_file);
  return { origin: "cli", ...(p.harness ? { harness: p.harness } : {}), ...(sessionId ? { sessionId } : {}) };
}

type Handler = (p: HookPayload, hook: HookContext) => Promise<string>;

export const HANDLERS: Record<HookEvent, Handler> = {
  "session-start": sessionStart,
  "tool-failed": toolFailed,
  "tool-ok": toolOk,
  "tool-done": toolDone,
  prompt,
  "pre-compact": (p, hook) => captureSession("pre-compact", p, hook),
  "session-end": (p, hook) => captureSession("session-end", p, hook),
  stop: stopNudge,
};

/** False when there is no knowledge base: hooks then stay silent, which is not an error. */
function haveKb(env: NodeJS.ProcessEnv): boolean {
  try {
    requireReadableKb(kbRoot(env));
    return true;
  } catch {
    return false;
  }
}

const INBOX_NUDGE_COUNT = 5;
const INBOX_NUDGE_DAYS = 7;

async function sessionStart(p: HookPayload, hook: HookContext): Promise<string> {
  const { env, caller } = hook;
  expireState(env);
  if (!haveKb(env)) return "";
  const context = await hook.host.context(hook, p.cwd ?? process.cwd());
  return [context.trim(), inboxNudge(env, caller.harness)].filter(Boolean).join("\n");
}

/** One line when the inbox has waited long enough that distilling it is worth a suggestion. */
function inboxNudge(env: NodeJS.ProcessEnv, harness: string | undefined): string {
  const items = listItems(env);
  if (!items.length) return "";
  const urgent = items.filter((i) => Number(i.meta.priority ?? 1) >= 3).length;
  const oldestDays = Math.floor((Date.now() / 1000 - Math.min(...items.map((i) => i.meta.time))) / 86400);
  if (items.length < INBOX_NUDGE_COUNT && oldestDays <= INBOX_NUDGE_DAYS && urgent === 0) return "";
  const detail = [urgent ? `${urgent} of high priority` : "", `the oldest ${counted(oldestDays, "day")} old`].filter(Boolean).join(", ");
  return `rkb inbox: ${counted(items.length, "item")} wait to become lessons (${detail}); when the current task is done, suggest ${slashCommand("rkb-distill", harness)} to the user.`;
}

/** Records the lesson as injected unless it already was in this session; returns the block or "". */
async function inject({ env, caller }: HookContext, hook: string, chosen: InjectedLesson | undefined, extra: NewRecord[], reason: string): Promise<string> {
  // A lesson that fails lint (broken format, a leak, a dead link) is not shown to an agent.
  const lesson = chosen && lessonErrors(kbRoot(env), chosen.path, env).length === 0 ? chosen : undefined;
  const fresh = await updateRecords(env, caller.sessionId, (records) => {
    const seen = lesson !== undefined && records.some((r) => r.kind === "injected" && r.id === lesson.id);
    const append: NewRecord[] = [...extra, ...(lesson && !seen ? [{ kind: "injected" as const, id: lesson.id, hook }] : [])];
    return { append, result: lesson !== undefined && !seen };
  });
  if (!fresh || !lesson) return "";
  await appendUsage(
    kbRoot(env),
    { time: new Date().toISOString(), id: lesson.id, event: "injected", session: caller.sessionId, reason: `${hook}, ${reason}` },
    env,
  );
  return renderInjection(lesson, reason);
}

async function toolFailed(p: HookPayload, hook: HookContext): Promise<string> {
  const { env, caller } = hook;
  if (!p.command) throw new Error("tool-failed needs the command");
  const failure = readFailure(p.command, p.error ?? "");
  const prog = failure.program;
  if (!haveKb(env)) {
    await updateRecords(env, caller.sessionId, () => ({ append: [{ kind: "failed", program: prog }], result: undefined }));
    return "";
  }
  const decision = await decideFailureInjection({ failure, cwd: p.cwd ?? process.cwd(), env });
  if (decision.lesson) return inject(hook, "tool-failed", decision.lesson, [{ kind: "failed", program: prog }], decision.reason);
  await updateRecords(env, caller.sessionId, (records) => {
    const noted = records.some((r) => r.kind === "nohit" && r.program === prog);
    return { append: [{ kind: "failed" as const, program: prog }, ...(noted ? [] : [{ kind: "nohit" as const, program: prog }])], result: undefined };
  });
  return "";
}

/**
 * A command worked: when its program had failed, that is a fix, and every lesson injected since
 * that program last worked probably helped, which is recorded as an inferred use.
 */
async function toolOk(p: HookPayload, { env, caller }: HookContext): Promise<string> {
  if (!p.command) throw new Error("tool-ok needs the command");
  const prog = program(p.command);
  const helped = await updateRecords(env, caller.sessionId, (records) => {
    const mine = records.map((r, i) => ({ r, i })).filter(({ r }) => (r.kind === "failed" || r.kind === "fixed") && r.program === prog);
    if (mine.at(-1)?.r.kind !== "failed") return { append: [], result: [] as string[] };
    const since = mine.filter(({ r }) => r.kind === "fixed").at(-1)?.i ?? -1;
    const inferred = new Set(records.filter((r) => r.kind === "inferred").map((r) => (r as { id: string }).id));
    const ids = [...new Set(records.slice(since + 1).flatMap((r) => (r.kind === "injected" && !inferred.has(r.id) ? [r.id] : [])))];
    return { append: [{ kind: "fixed" as const, program: prog }, ...ids.map((id) => ({ kind: "inferred" as const, id }))], result: ids };
  });
  if (helped.length && haveKb(env)) {
    for (const id of helped) {
      await appendUsage(
        kbRoot(env),
        { time: new Date().toISOString(), id, event: "inferred", session: caller.sessionId, reason: `${prog} worked after it was injected` },
        env,
      );
    }
  }
  return "";
}

/** A command finished (Codex and Gemini CLI have one event for all): its exit code says which it was; unknown is neither. */
async function toolDone(p: HookPayload, hook: HookContext): Promise<string> {
  if (p.exit_code === undefined) return "";
  return p.exit_code === 0 ? toolOk(p, hook) : toolFailed(p, hook);
}

/** The user's prompt: note corrections and requests to remember, and recall a clearly matching lesson. */
async function prompt(p: HookPayload, hook: HookContext): Promise<string> {
  const { env, caller } = hook;
  const text = stripInjected(p.prompt ?? "");
  const signals = userSignals(text);
  const said = [...(signals.correction ? [{ kind: "correction" as const }] : []), ...(signals.remember ? [{ kind: "remember" as const }] : [])];
  if (!haveKb(env)) {
    if (said.length) await updateRecords(env, caller.sessionId, () => ({ append: said, result: undefined }));
    return "";
  }
  const decision = await decideRecall({ text, cwd: p.cwd ?? process.cwd(), env });
  return inject(hook, "recall", decision.lesson, said, decision.reason);
}

async function captureSession(event: string, p: HookPayload, { env, caller }: HookContext): Promise<string> {
  // No file: --no-session, or a session that never wrote a message. Nothing to capture either way.
  if (!p.session_file || !existsSync(storeFile(p.session_file))) return "";
  await capture({
    sessionFile: p.session_file,
    sessionId: caller.sessionId,
    cwd: p.cwd,
    harness: caller.harness,
    reason: p.reason ? `${event} (${p.reason})` : event,
    env,
  });
  return "";
}
