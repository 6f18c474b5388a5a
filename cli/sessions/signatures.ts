import { loadSignatures, saveSignatures, signatureSession } from "../machine/state.ts";

// Failure signatures seen on this machine (kept in the state database, see state.ts): a failure is
// a repeat when another session had its signature within the last 90 days. Only hashes are kept:
// the signature, and a hash of the session that saw it.

export class SignatureStore {
  private readonly sessions = new Map<string, Set<string>>();

  static load(env: NodeJS.ProcessEnv): SignatureStore {
    const store = new SignatureStore();
    for (const r of loadSignatures(env)) store.remember(r.sig, r.session);
    return store;
  }

  seenElsewhere(sig: string, session: string): boolean {
    const seen = this.sessions.get(sig);
    if (!seen) return false;
    return seen.size > 1 || !seen.has(signatureSession(session));
  }

  /** Records the signature in memory; returns false when this session already had it. */
  note(sig: string, session: string): boolean {
    return this.remember(sig, signatureSession(session));
  }

  private remember(sig: string, sessionHash: string): boolean {
    let seen = this.sessions.get(sig);
    if (!seen) this.sessions.set(sig, (seen = new Set()));
    if (seen.has(sessionHash)) return false;
    seen.add(sessionHash);
    return true;
  }
}

/** Stores new {sig, session} pairs (as hashes) in one transaction. */
export function appendSignatures(env: NodeJS.ProcessEnv, records: { sig: string; session: string }[]): void {
  saveSignatures(
    env,
    records.map((r) => ({ sig: r.sig, session: signatureSession(r.session) })),
  );
}
