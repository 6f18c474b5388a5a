import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sessionFromEnv, stateDir } from "../settings.ts";
import { readIfExists, writeAtomic } from "../fsutil.ts";
import { randomHex } from "../hash.ts";
import { RkbError } from "../output/errors.ts";
import type { Change } from "./write.ts";

// Writes that wait for the user: when an agent write needs a person's yes (the burst limit, archiving
// a whole folder), the write is planned and checked, then kept here instead of made. The person allows
// it with `rkb confirm <id> --choice <option>` in their own terminal; it expires after an hour.
// One file per request under `<state>/requests/`, mode 600 (it holds the lesson text).

export const REQUEST_TTL_MS = 3600_000;
const REQUEST_ID = /^r-[0-9a-f]{6}$/;

/** A planned write, with the text of each file before it, so confirm can tell the files did not change meanwhile. */
export interface StoredWrite {
  root: string;
  changes: Change[];
  before: Record<string, string | null>;
  message: string;
  result: unknown;
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

function requestsDir(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), "requests");
}

/** Removes expired requests; returns the live ones' ids. */
function sweep(env: NodeJS.ProcessEnv): string[] {
  const live: string[] = [];
  let names: string[];
  try {
    names = readdirSync(requestsDir(env));
  } catch {
    return live;
  }
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const file = join(requestsDir(env), name);
    try {
      const req = JSON.parse(readIfExists(file) ?? "null") as PendingRequest | null;
      if (req && Date.now() - req.created < REQUEST_TTL_MS) live.push(req.id);
      else rmSync(file, { force: true });
    } catch {
      rmSync(file, { force: true });
    }
  }
  return live;
}

export function pendingRequests(env: NodeJS.ProcessEnv): number {
  return sweep(env).length;
}

export function saveRequest(env: NodeJS.ProcessEnv, req: Omit<PendingRequest, "id" | "created" | "session">): PendingRequest {
  sweep(env);
  const full: PendingRequest = { id: `r-${randomHex(3)}`, created: Date.now(), session: sessionFromEnv(env) ?? "machine", ...req };
  writeAtomic(join(requestsDir(env), `${full.id}.json`), JSON.stringify(full), 0o600);
  return full;
}

export function loadRequest(env: NodeJS.ProcessEnv, id: string): PendingRequest {
  sweep(env);
  const text = REQUEST_ID.test(id) ? readIfExists(join(requestsDir(env), `${id}.json`)) : undefined;
  if (text === undefined) {
    throw new RkbError(
      "expired",
      `there is no pending request ${JSON.stringify(id)}: it was answered, expired after an hour, or never existed`,
      "run the command again; it asks anew",
    );
  }
  return JSON.parse(text) as PendingRequest;
}

export function removeRequest(env: NodeJS.ProcessEnv, id: string): void {
  if (REQUEST_ID.test(id)) rmSync(join(requestsDir(env), `${id}.json`), { force: true });
}

/** The needs_user error for a saved request: exit 3, nothing written, the exact command that allows it. */
export function needsUser(req: PendingRequest): RkbError {
  const next = `rkb confirm ${req.id} --choice ${JSON.stringify(req.options[0])}`;
  return new RkbError(
    "needs_user",
    `needs the user's decision: ${req.question} Nothing was written.`,
    `ask the user to allow it by running \`${next}\` in their own terminal (or \`rkb confirm ${req.id} --choice "cancel"\`); an agent cannot answer for them`,
    { request: req.id, question: req.question, options: req.options, next },
  );
}
