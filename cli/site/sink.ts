import { shown } from "../base/fsutil.ts";
import type { KbConfig } from "../lesson/config.ts";
import { RkbError } from "../base/errors.ts";

// Which lessons a published copy may hold. `[sinks.<name>] allow = { sensitivity = ["public"] }` in
// kb.toml names, per label, the values a lesson's effective label (kb/labels `effectiveLabels`, as
// `rkb show` computes it) must have; a lesson passes when every listed label allows its value.

/** Who a set of pages is for: everything for the owner (`rkb serve`), or one sink's share. */
export type Audience = { kind: "owner" } | { kind: "sink"; name: string; allow: Record<string, string[]> };

/** The sink of that name from kb.toml; an unknown one is refused with the names there are. */
export function sinkAudience(config: KbConfig, name: string): Audience {
  const allow = config.sinks[name];
  if (!allow) {
    const names = Object.keys(config.sinks);
    throw new RkbError(
      "not_found",
      `kb.toml has no [sinks.${shown(name)}]${names.length ? ` (it has ${names.map((n) => `[sinks.${n}]`).join(", ")})` : ""}`,
      names.length
        ? `name one of them with --sink, or add [sinks.${shown(name)}] allow = { sensitivity = ["public"] } to kb.toml`
        : `add [sinks.web] allow = { sensitivity = ["public"] } to kb.toml (rkb init writes it)`,
    );
  }
  if (!Object.keys(allow).length)
    throw new RkbError("config", `[sinks.${shown(name)}] in kb.toml allows nothing (no \`allow\` labels)`, 'write e.g. allow = { sensitivity = ["public"] }');
  return { kind: "sink", name, allow };
}

/** Whether a lesson with these effective labels may be shown to the audience. */
export function admits(audience: Audience, labels: Record<string, string>): boolean {
  if (audience.kind === "owner") return true;
  return Object.entries(audience.allow).every(([key, values]) => labels[key] !== undefined && values.includes(labels[key]!));
}
