import { harnessFromEnv, sessionFromEnv } from "../agent-env.ts";
import type { RunContext } from "../commands/_shared.ts";
import { kbRoot } from "../paths.ts";
import { requireReadableKb, requireWritableKb } from "./layout.ts";
import { resolvePlace, type Place } from "./place.ts";
import { loadKb, type Kb } from "./store.ts";

/** The knowledge base a command works on, checked for reading or writing. */
export function openKb(ctx: Pick<RunContext<any>, "env">, mode: "read" | "write"): { root: string; kb: Kb } {
  const root = kbRoot(ctx.env);
  if (mode === "write") requireWritableKb(root);
  else requireReadableKb(root);
  return { root, kb: loadKb(root) };
}

export function placeFor(ctx: Pick<RunContext<any>, "env" | "cwd" | "place">, root: string, kb: Kb): Place {
  return resolvePlace({ root, kb, cwd: ctx.cwd, env: ctx.env, options: ctx.place });
}

/** Which harness and session a write comes from, for provenance in `meta`. */
export function provenance(env: NodeJS.ProcessEnv, session?: string): Record<string, string> {
  const harness = harnessFromEnv(env) ?? "cli";
  const sessionId = session || sessionFromEnv(env);
  return { harness, ...(sessionId ? { session: sessionId } : {}), date: today() };
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
