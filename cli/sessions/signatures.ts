import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { withLock } from "../lock.ts";
import { stateDir } from "../paths.ts";

// Failure signatures seen on this machine, `<state>/signatures.jsonl` lines {time, sig, session}
// (the same log `hook tool-failed` appends to). A failure is a repeat when another session had
// its signature within the last 90 days. Only hashes are stored, never commands or output.

const WINDOW_SECONDS = 90 * 86400;

export const signaturesPath = (env: NodeJS.ProcessEnv) => join(stateDir(env), "signatures.jsonl");

export class SignatureStore {
  private readonly sessions = new Map<string, Set<string>>();

  /** The log as it is now; unreadable lines are ignored (it is a cache of past sessions). */
  static load(env: NodeJS.ProcessEnv, now = Date.now() / 1000): SignatureStore {
    const store = new SignatureStore();
    let text = "";
    try {
      text = readFileSync(signaturesPath(env), "utf8");
    } catch {
      return store;
    }
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const r = JSON.parse(line);
        if (typeof r.sig === "string" && typeof r.session === "string" && !(typeof r.time === "number" && now - r.time > WINDOW_SECONDS)) store.note(r.sig, r.session);
      } catch {}
    }
    return store;
  }

  seenElsewhere(sig: string, session: string): boolean {
    const seen = this.sessions.get(sig);
    if (!seen) return false;
    return seen.size > 1 || !seen.has(session);
  }

  /** Records the signature in memory; returns false when this session already had it. */
  note(sig: string, session: string): boolean {
    let seen = this.sessions.get(sig);
    if (!seen) this.sessions.set(sig, (seen = new Set()));
    if (seen.has(session)) return false;
    seen.add(session);
    return true;
  }
}

/** Appends new {sig, session} pairs to the log under its lock. */
export async function appendSignatures(env: NodeJS.ProcessEnv, records: { sig: string; session: string }[]): Promise<void> {
  if (!records.length) return;
  const path = signaturesPath(env);
  mkdirSync(stateDir(env), { recursive: true });
  const time = Math.floor(Date.now() / 1000);
  const text = records.map((r) => JSON.stringify({ time, sig: r.sig, session: r.session }) + "\n").join("");
  await withLock(path + ".lock", { staleMs: 30_000, waitMs: 10_000, what: "the failure signature log" }, () => appendFileSync(path, text, { mode: 0o600 }));
}
