import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { keyLine, parseToml, TomlError, valueText } from "../base/toml.ts";

// kb.toml: the knowledge base's own settings (synced with it).

export const DEFAULT_KB_TOML = `# This knowledge base's settings, synced with it (per-machine settings are in ~/.config/rkb).

# The labels a lesson or folder note may carry; sensitivity goes from the widest audience first.
[labels]
sensitivity = ["public", "internal", "confidential"]

# Where the Rust rkb publishes lessons (its site export), and the sensitivities each place may show.
[sinks.web]
allow = { sensitivity = ["public"] }

[sinks.web-protected]
allow = { sensitivity = ["public", "internal"] }

# Jev, the Rust rkb's remote reranking model: the lessons it may be sent. This rkb sends it none.
[sinks.jev]
allow = { sensitivity = ["public", "internal"] }

# How the Rust rkb reranks search results (bm25, bm25-bert, jev); this rkb ranks with BM25 alone.
[rerank]
chain = ["bm25"]

# Leaks lint reports besides secrets: these user names and path prefixes; \`allow\` lists exact texts that are fine.
[leak]
usernames = []
paths = []
allow = []
`;

// Sections the format knows (the Rust rkb's); KbConfig holds only those rkb reads. A new reader adds
// its typed field to KbConfig and parses it in parseKbToml, defaults included.
const KNOWN_SECTIONS = ["labels", "sinks", "rerank", "leak", "site", "facts", "probe", "verify", "review", "hooks", "lock", "jev", "dupes", "writes", "search"];

export interface KbConfig {
  labels: Record<string, string[]>;
  /** `[sinks.<name>] allow = { <label> = [values] }`: what a published copy (`rkb site build --sink`) may hold. */
  sinks: Record<string, Record<string, string[]>>;
  leak: { usernames: string[]; paths: string[]; allow: string[] };
  lock: { staleMs: number; waitMs: number };
  /** Agent writes allowed per burst window before the user is asked; the grace a `continue` opens. */
  writes: { burst: number; graceMs: number };
  dupesMinSimilarity: number;
  /** [review]: days a lesson may go unverified, and days without any use record, before review lists it. */
  review: { staleDays: number; unusedDays: number };
}

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

export function parseKbToml(text: string): KbConfig {
  let raw: Record<string, any>;
  try {
    raw = parseToml(text);
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    throw new ConfigError(`kb.toml is not valid TOML: ${e.message}`, e.line);
  }
  for (const key of Object.keys(raw)) {
    if (!KNOWN_SECTIONS.includes(key))
      throw new ConfigError(`unknown section \`${key}\` in kb.toml; known: ${KNOWN_SECTIONS.join(", ")}`, keyLine(text, [key]));
  }
  const strs = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  // A setting that is no number in its range is an error naming its line, not a NaN that silently
  // turns a rule off (a `stale_days = "ninety"` would make review list no stale lesson).
  const number = (section: string, key: string, fallback: number, min: number, max = Number.POSITIVE_INFINITY): number => {
    const value: unknown = raw[section]?.[key];
    if (value === undefined) return fallback;
    if (typeof value === "number" && Number.isFinite(value) && value >= min && value <= max) return value;
    const range = max === Number.POSITIVE_INFINITY ? `a number ≥ ${min}` : `a number from ${min} to ${max}`;
    throw new ConfigError(`\`${key}\` in [${section}] must be ${range}, not ${valueText(value)}`, keyLine(text, [section, key]));
  };
  const labels: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(raw.labels ?? {})) labels[k] = strs(v);
  const sinks: Record<string, Record<string, string[]>> = {};
  for (const [name, sink] of Object.entries(raw.sinks ?? {})) {
    const allow = (sink as Record<string, unknown>)?.allow;
    sinks[name] = Object.fromEntries(Object.entries(allow && typeof allow === "object" ? allow : {}).map(([k, v]) => [k, strs(v)]));
  }
  return {
    labels,
    sinks,
    leak: { usernames: strs(raw.leak?.usernames), paths: strs(raw.leak?.paths), allow: strs(raw.leak?.allow) },
    lock: { staleMs: 1000 * number("lock", "stale_s", 600, 0), waitMs: 1000 * number("lock", "wait_s", 10, 0) },
    writes: { burst: number("writes", "burst", 30, 0), graceMs: 60_000 * number("writes", "burst_grace_minutes", 10, 0) },
    dupesMinSimilarity: number("dupes", "min_similarity", 0.4, 0, 1),
    review: { staleDays: number("review", "stale_days", 90, 0), unusedDays: number("review", "unused_days", 180, 0) },
  };
}

/** Reads kb.toml; a folder without one gets the defaults. */
export function loadKbConfig(root: string): KbConfig {
  const path = join(root, "kb.toml");
  if (!existsSync(path)) return parseKbToml(DEFAULT_KB_TOML);
  try {
    return parseKbToml(readFileSync(path, "utf8"));
  } catch (e) {
    if (e instanceof ConfigError)
      throw new RkbError("config", `${path}${e.line ? ":" + e.line : ""}: ${e.message}`, "fix kb.toml (see `rkb init` for the default) and run `rkb lint`");
    throw e;
  }
}
