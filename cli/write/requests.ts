import { randomHex } from "../base/hash.ts";
import { deleteRequestRow, liveRequestRows, saveRequestRow } from "../machine/state.ts";
import { RkbError } from "../base/errors.ts";
import type { Change } from "./write.ts";
import type { InboxEntry } from "../inbox/inbox.ts";

// Writes that wait for the user: when an agent write needs a person's yes (the burst limit, archiving
// a whole folder), the write is planned and checked, then kept here instead of made. The person allows
// it with `rkb confirm <id> --choice <option>` in their own terminal; it expires after an hour.
// Kept in the state database (mode 600; it holds the lesson text), not in `<state>/requests/`,
// where the Rust rkb keeps its requests in another shape.

/** A planned write, with the text of each file before it, so confirm can tell the files did not change meanwhile. */
export interface StoredWrite {
  root: string;
  changes: Change[];
  before: Record<string, string | null>;
  message: string;
  result: unknown;
  /** Inbox items made after the commit (masked). */
  inbox?: InboxEntry[];
  /** Files the write changes only in passing (Plan.incidental). */
  incidental?: string[];
}

export interface PendingRequest {
  id: string;
  /** ms since the epoch. */
  created: number;
  question: string;
  /** The options the user may choose; the last is always `cancel`. */
  options: string[];
  /** The agent session that asked (or "machine"): a `continue` opens the burst grace for it. */
  session: string;
  write: StoredWrite;
}

export function pendingRequests(env: NodeJS.ProcessEnv): number {
  return liveRequestRows(env).length;
}

export function saveRequest(env: NodeJS.ProcessEnv, req: Omit<PendingRequest, "id" | "created">): PendingRequest {
  const full: PendingRequest = { id: `r-${randomHex(3)}`, created: Date.now(), ...req };
  saveRequestRow(env, full.id, JSON.stringify(full));
  return full;
}

export function loadRequest(env: NodeJS.ProcessEnv, id: string): PendingRequest {
  const row = liveRequestRows(env).find((r) => r.id === id);
  if (!row) {
    throw new RkbError(
      "expired",
      `there is no pending request ${JSON.stringify(id)}: it was answered, expired after an hour, or never existed`,
      "run the command again; it asks anew",
    );
  }
  return JSON.parse(row.data) as PendingRequest;
}

export function removeRequest(env: NodeJS.ProcessEnv, id: string): void {
  deleteRequestRow(env, id);
}

/**
 * What a write that waits for the user reports: nothing written, the exact command that allows
 * it (exit 3). As in the Rust rkb, an outcome of the write, not an error.
 */
export interface NeedsUser {
  status: "needs_user";
  request: string;
  question: string;
  options: string[];
  next: string;
  help: string[];
}

export function needsUser(req: PendingRequest): NeedsUser {
  const next = `rkb confirm ${req.id} --choice ${JSON.stringify(req.options[0])}`;
  const help = `ask the user to allow it by running \`${next}\` in their own terminal (or \`rkb confirm ${req.id} --choice "cancel"\`); an agent cannot answer for them`;
  return { status: "needs_user", request: req.id, question: req.question, options: req.options, next, help: [help] };
}
