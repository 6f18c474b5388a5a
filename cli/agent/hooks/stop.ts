import { userConfig } from "../../machine/settings.ts";
import type { HookContext, HookPayload } from "./events.ts";
import { updateRecords, type NewRecord, type SessionRecord } from "../../machine/state.ts";

// The optional stop nudge: when a turn ends after the session showed something worth a lesson (the
// user corrected the agent or asked it to remember something), ask the agent once to record it.
// Off unless `[hooks] stop_nudge = true` in rkb's config.toml, because it costs the user a turn.

const STRONG_SCORE = 3;
const MAX_SOFT_NUDGES = 2;

export async function stopNudge(p: HookPayload, { env, caller }: HookContext): Promise<string> {
  if (p.stop_hook_active || !userConfig(env).stopNudge) return "";
  return updateRecords(env, caller.sessionId, (records) => {
    const lastOffer = records.reduce((upto, r) => (r.kind === "offered" ? r.upto : upto), 0);
    const fresh = records.slice(lastOffer);
    const failures = (prog: string) => records.filter((r) => r.kind === "failed" && r.program === prog).length;
    const count = (kind: SessionRecord["kind"]) => fresh.filter((r) => r.kind === kind).length;
    const fixed = fresh.flatMap((r) => (r.kind === "fixed" ? [r.program] : []));
    const score = 3 * count("remember") + 2 * count("correction") + fixed.reduce((s, prog) => s + (failures(prog) >= 3 ? 2 : 1), 0) + count("nohit");
    if (score === 0 || count("remember") + count("correction") === 0) return { append: [], result: "" };
    const strong = score >= STRONG_SCORE && !records.some((r) => r.kind === "asked");
    if (!strong && records.filter((r) => r.kind === "nudged").length >= MAX_SOFT_NUDGES) return { append: [], result: "" };
    const seen = [
      fixed.length ? `${fixed.length} fixed failure(s) (${[...new Set(fixed)].join(", ")})` : "",
      count("correction") ? `${count("correction")} correction(s) from the user` : "",
      count("remember") ? `${count("remember")} request(s) to remember something` : "",
      count("nohit") ? `${count("nohit")} failure(s) no lesson covered` : "",
    ].filter(Boolean);
    // `upto` counts these two records too, so the next stop looks only at what came after them.
    const append: NewRecord[] = [{ kind: "offered", upto: records.length + 2 }, { kind: strong ? "asked" : "nudged" }];
    const note = strong
      ? `rkb: this session looks worth a lesson: ${seen.join(", ")}. Before you finish, search rkb (rkb_search) for it; update or report an existing lesson if one fits, else record it with rkb_add (or rkb_note when unsure). If nothing here would help a later session, say so in one line.`
      : `rkb: if this session taught something that will matter again (${seen.join(", ")}), record it with rkb_add or rkb_note.`;
    return { append, result: note };
  });
}
