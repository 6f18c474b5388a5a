import { sha256Hex } from "../base/hash.ts";
import { RkbError } from "../base/errors.ts";

// The record of what `rkb propose` has proposed, kept in the knowledge base itself:
// `.rkb/proposed/<hash>.jsonl`, one file per run, one line per proposal (its failure signature, the
// lesson's id, path and title). Each run that proposes anything adds its file in a commit of its
// own after the lessons' commits, so a reviewer who drops a lesson (deletes its file, reverts or
// drops its commit) leaves its record behind: a signature on record with no lesson carrying it was
// declined. Once the pull request is merged the records are in the main branch and reach every
// later run, however the branch was merged and even after it is deleted; a signature on record is
// never proposed again.

export const LEDGER_DIR = ".rkb/proposed";

export interface LedgerEntry {
  signature: string;
  id: string;
  path: string;
  title: string;
}

/** One run's records as the file that holds them (named by its content: the same proposals, the same file). */
export function ledgerFile(entries: LedgerEntry[]): { rel: string; text: string } {
  const text = entries.map((e) => JSON.stringify({ signature: e.signature, id: e.id, path: e.path, title: e.title })).join("\n") + "\n";
  return { rel: `${LEDGER_DIR}/${sha256Hex(text).slice(0, 16)}.jsonl`, text };
}

export function parseLedger(rel: string, text: string): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let e: any;
    try {
      e = JSON.parse(line);
    } catch {
      e = undefined;
    }
    if (!e || typeof e.signature !== "string" || typeof e.id !== "string" || typeof e.path !== "string" || typeof e.title !== "string")
      throw new RkbError(
        "bad_format",
        `${rel}:${i + 1} is not a proposal record ({"signature", "id", "path", "title"})`,
        `restore the file from git (\`git log -p -- ${rel}\`); rkb propose writes these files and reads them to never propose a failure twice`,
      );
    out.push({ signature: e.signature, id: e.id, path: e.path, title: e.title });
  });
  return out;
}
