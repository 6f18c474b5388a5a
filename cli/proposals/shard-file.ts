import { readFileSync } from "node:fs";
import { RkbError } from "../base/errors.ts";
import { writeAtomic } from "../base/fsutil.ts";
import type { Candidate, CandidateSet, Shard } from "./candidates.ts";

// The file a `--shard K/N` run leaves for the merge step: its candidate set as JSON. It holds only
// what capture kept of the sessions (masked), so a CI job may pass it on as an artifact.

const FORMAT = "rkb-propose-candidates";
const VERSION = 1;

/** `K/N` with 1 ≤ K ≤ N. */
export function parseShard(text: string): Shard | undefined {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  if (!m) return undefined;
  const k = Number(m[1]);
  const n = Number(m[2]);
  return k >= 1 && k <= n ? { k, n } : undefined;
}

export function writeShardFile(path: string, set: CandidateSet & { shard: Shard }): void {
  const { shard, ...rest } = set;
  writeAtomic(path, `${JSON.stringify({ format: FORMAT, version: VERSION, shard: `${shard.k}/${shard.n}`, ...rest })}\n`);
}

export function readShardFile(path: string): CandidateSet & { shard: Shard } {
  let data: any;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ? "cannot be read" : "is not JSON";
    throw notShardFile(path, why);
  }
  if (data?.format !== FORMAT) throw notShardFile(path, "is not a candidate file");
  if (data.version !== VERSION) throw notShardFile(path, `has version ${data.version}; this rkb reads version ${VERSION}`);
  const shard = typeof data.shard === "string" ? parseShard(data.shard) : undefined;
  if (!shard) throw notShardFile(path, "names no shard K/N");
  const counts = ["files", "sessions", "notSessions", "skippedLines"] as const;
  if (!counts.every((k) => Number.isInteger(data[k])) || !Array.isArray(data.problems) || !Array.isArray(data.candidates))
    throw notShardFile(path, "lacks its counts or its candidates");
  data.candidates.forEach((c: unknown, i: number) => {
    if (!isCandidate(c)) throw notShardFile(path, `has a damaged candidate (number ${i + 1})`);
  });
  return {
    shard,
    files: data.files,
    sessions: data.sessions,
    notSessions: data.notSessions,
    skippedLines: data.skippedLines,
    problems: data.problems,
    candidates: data.candidates,
  };
}

function isCandidate(c: any): c is Candidate {
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string");
  if (!c || typeof c.signature !== "string" || typeof c.program !== "string" || typeof c.keyLine !== "string") return false;
  if (!Number.isInteger(c.occurrences) || !strings(c.sessions) || !strings(c.harnesses)) return false;
  if (c.fixed === undefined) return true;
  const f = c.fixed;
  const d = f?.draft;
  return (
    typeof f.command === "string" &&
    typeof f.error === "string" &&
    typeof f.order === "string" &&
    typeof f.session === "string" &&
    typeof d?.program === "string" &&
    typeof d.failed?.command === "string" &&
    strings(d.failed.keyLines) &&
    typeof d.worked?.command === "string" &&
    Array.isArray(d.fix)
  );
}

/** The shard files of one archive: every shard 1..N once, all of the same N. */
export function requireAllShards(files: { name: string; set: { shard: Shard } }[]): void {
  const n = files[0]!.set.shard.n;
  const other = files.find((f) => f.set.shard.n !== n);
  if (other)
    throw new RkbError(
      "usage",
      `${files[0]!.name} is shard ${files[0]!.set.shard.k}/${n} but ${other.name} is shard ${other.set.shard.k}/${other.set.shard.n}`,
      "merge the files of one split of the archive (the same N)",
    );
  const byK = new Map<number, string>();
  for (const f of files) {
    const twice = byK.get(f.set.shard.k);
    if (twice) throw new RkbError("usage", `${twice} and ${f.name} are both shard ${f.set.shard.k}/${n}`, "pass each shard's file once");
    byK.set(f.set.shard.k, f.name);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((k) => !byK.has(k));
  if (missing.length)
    throw new RkbError(
      "usage",
      `shard ${missing.map((k) => `${k}/${n}`).join(", ")} ${missing.length === 1 ? "is" : "are"} missing`,
      "pass the candidate files of every shard; a shard left out would make the counts wrong",
    );
}

function notShardFile(path: string, why: string): RkbError {
  return new RkbError("bad_format", `${path} ${why}`, "pass the files `rkb propose --shard K/N --candidates FILE` wrote");
}
