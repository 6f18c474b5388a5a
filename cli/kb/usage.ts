import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { randomHex } from "../base/hash.ts";
import { dirname, join } from "node:path";
import { appendLine, createExclusive, pathInside, readIfExists } from "../base/fsutil.ts";
import { configDir, systemHostname } from "../machine/settings.ts";

// Use records: one JSONL file per machine under `.rkb/usage/`, so merging two machines never conflicts.

export const USAGE_EVENTS = ["worked", "failed", "irrelevant", "injected", "inferred"] as const;
export type UsageEvent = (typeof USAGE_EVENTS)[number];

export interface UsageRecord {
  time: string;
  id: string;
  event: UsageEvent;
  session?: string;
  reason?: string;
}

export interface UsageCounts {
  worked: number;
  failed: number;
  injected: number;
  inferred: number;
  irrelevant: number;
  lastWorked?: string;
  lastFailed?: string;
  /** The latest record of any kind: when the lesson was last injected, used or judged. */
  lastSeen?: string;
}

/**
 * This machine's id: short host name + 4 random hex, made once and kept in the config folder. Made
 * atomically (written whole, then linked into place): when several rkb processes start at once on a
 * fresh machine, one id wins and the others read it, so one machine never splits its use records.
 */
function machineId(env = process.env): string {
  const file = join(configDir(env), "machine");
  for (let attempt = 0; ; attempt++) {
    const existing = readIfExists(file)?.trim();
    if (existing) return existing;
    if (existing === "" && attempt === 0) rmSync(file, { force: true }); // left empty by an older rkb
    const slug =
      systemHostname()
        .split(".")[0]!
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "") || "machine";
    const id = `${slug}-${randomHex(2)}`;
    if (createExclusive(file, id + "\n")) return id;
  }
}

function usageDir(root: string): string {
  return join(root, ".rkb", "usage");
}

/** Appends one record to this machine's usage file; returns the file's path relative to the KB. */
export async function appendUsage(root: string, record: UsageRecord, env = process.env): Promise<string> {
  // Loaded here: every search reads use records, only a write needs the lock and the secret table.
  const { maskSecrets } = await import("../text/secrets.ts");
  // Use records are committed and pushed with the knowledge base. A reason the user gave was
  // refused already if it held a secret (`rkb used`); the hooks' reasons quote commands: masked.
  record = { ...record, ...(record.session ? { session: maskSecrets(record.session) } : {}), ...(record.reason ? { reason: maskSecrets(record.reason) } : {}) };
  return appendRecord(root, "usage", JSON.stringify(record), env);
}

/**
 * What one `rkb eval --replay --record` found: how many failed commands its session files held and
 * how many the failure rule answered, per lesson. Numbers and lesson ids only (no session text), so
 * a site can plot coverage over time and count only the lessons it publishes.
 */
export interface ReplayRun {
  time: string;
  files: number;
  failures: number;
  covered: number;
  /** Lesson id → failed commands it would have answered. */
  lessons: Record<string, number>;
}

/** Appends a replay's result to this machine's file `.rkb/replays/<machine>.jsonl`, committed with the use records. */
export function appendReplay(root: string, run: ReplayRun, env = process.env): Promise<string> {
  return appendRecord(root, "replays", JSON.stringify(run), env);
}

/** Every recorded replay of every machine, oldest first. */
export function replayRuns(root: string): ReplayRun[] {
  const runs: ReplayRun[] = [];
  for (const rec of jsonLines(join(root, ".rkb", "replays"))) {
    if (typeof rec.time !== "string" || typeof rec.failures !== "number" || typeof rec.covered !== "number") continue;
    runs.push({
      time: rec.time,
      files: Number(rec.files) || 0,
      failures: rec.failures,
      covered: rec.covered,
      // Counts only: a damaged entry (not a number) is left out, so no sum becomes text or NaN.
      lessons: Object.fromEntries(
        Object.entries(typeof rec.lessons === "object" && rec.lessons ? rec.lessons : {}).filter(
          (e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1]) && e[1] >= 0,
        ),
      ),
    });
  }
  return runs.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}

/** One line appended to this machine's file in `.rkb/<folder>/`, under that file's lock. */
async function appendRecord(root: string, folder: "usage" | "replays", line: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { withLock } = await import("../base/lock.ts");
  const rel = `.rkb/${folder}/${machineId(env)}.jsonl`;
  // Checked before anything is created: `.rkb` or `.rkb/<folder>` may not be a symlink out of the KB.
  const file = pathInside(root, rel);
  const ignore = pathInside(root, ".rkb/.gitignore");
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(ignore)) createExclusive(ignore, "*.lock\n");
  await withLock(file + ".lock", { staleMs: 60_000, waitMs: 5_000, what: `the ${folder === "usage" ? "usage" : "replay"} log` }, () => {
    appendLine(file, line);
  });
  return rel;
}

/** The JSON objects of the `.jsonl` files in a folder, file by file in line order; torn or broken lines are left out. */
function* jsonLines(dir: string): Generator<any> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".jsonl")) continue;
    for (const line of readFileSync(join(dir, name), "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        const rec = JSON.parse(line);
        if (rec && typeof rec === "object") yield rec;
      } catch {
        // a torn line from a crashed writer must not hide the others
      }
    }
  }
}

/** Every well-formed use record of every machine, file by file in line order (torn or foreign lines left out). */
export function* usageRecords(root: string): Generator<UsageRecord> {
  for (const rec of jsonLines(usageDir(root))) {
    const event = rec.event ?? rec.result;
    if (typeof rec.id !== "string" || !(USAGE_EVENTS as readonly string[]).includes(event)) continue;
    yield { ...rec, event };
  }
}

export function readUsage(root: string): Map<string, UsageCounts> {
  const counts = new Map<string, UsageCounts>();
  for (const rec of usageRecords(root)) {
    const { event } = rec;
    const c = counts.get(rec.id) ?? { worked: 0, failed: 0, injected: 0, inferred: 0, irrelevant: 0 };
    c[event]++;
    counts.set(rec.id, c);
    // A record from another machine may be damaged: only a time written as text is a time.
    if (typeof rec.time !== "string") continue;
    if (event === "worked" && (!c.lastWorked || rec.time > c.lastWorked)) c.lastWorked = rec.time;
    if (event === "failed" && (!c.lastFailed || rec.time > c.lastFailed)) c.lastFailed = rec.time;
    if (!c.lastSeen || rec.time > c.lastSeen) c.lastSeen = rec.time;
  }
  return counts;
}
