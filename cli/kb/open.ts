import { kbRoot, type Caller } from "../machine/settings.ts";
import { requireReadableKb, requireWritableKb } from "../lesson/layout.ts";
import { resolvePlace, type Place, type PlaceOptions } from "../place/place.ts";
import { loadKb, type Kb } from "./store.ts";

/** The knowledge base a command works on, checked for reading or writing. */
export function openKb(ctx: { env: NodeJS.ProcessEnv }, mode: "read" | "write"): { root: string; kb: Kb } {
  const root = kbRoot(ctx.env);
  if (mode === "write") requireWritableKb(root);
  else requireReadableKb(root);
  return { root, kb: loadKb(root) };
}

export function placeFor(ctx: { env: NodeJS.ProcessEnv; cwd: string; place: PlaceOptions }, root: string, kb: Kb): Place {
  return resolvePlace({ root, kb, cwd: ctx.cwd, env: ctx.env, options: ctx.place });
}

/** Which harness and session a write comes from, for provenance in `meta` (`session`: one the input names). */
export function provenance(caller: Caller, session?: string): Record<string, string> {
  const harness = caller.harness ?? "cli";
  const sessionId = session || caller.sessionId;
  return { harness, ...(sessionId ? { session: sessionId } : {}), date: today() };
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
