import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { catBlobs, git, gitOrThrow } from "../base/git.ts";
import { classify } from "../lesson/layout.ts";
import { isMap, LessonParseError, parseLesson, type Lesson } from "../lesson/lesson.ts";
import { parseNote } from "../lesson/notes.ts";
import { loadKb, type Kb } from "../kb/store.ts";
import { branchTip, isAncestor } from "../write/branch.ts";
import { LEDGER_DIR, parseLedger, type LedgerEntry } from "./ledger.ts";

// What the knowledge base knows about proposals: the checkout (the team's main branch, with the
// records and lessons of every merged proposal) and the proposal branch (the proposals under review
// and what reviewers did to them). Read from the working tree and from git's objects; nothing is
// checked out.

export interface ProposalState {
  branch: string;
  /** The checked-out commit. */
  head: string;
  tip?: string;
  /** The commit the next proposals go on: the branch's tip, or the checkout's when the branch is new or was merged. */
  parent: string;
  /** The checkout's lessons and notes with the files the branch changed laid over them. */
  kb: Kb;
  /** Every proposal on record, in the checkout or on the branch, once per signature. */
  ledger: LedgerEntry[];
  /** The signatures of failures lessons were proposed for, found in the lessons themselves. */
  lessonSignatures: Set<string>;
}

/** The signature a proposed lesson records in `meta.source`, if it has one. */
export function proposalSignature(lesson: Pick<Lesson, "frontmatter">): string | undefined {
  const meta = lesson.frontmatter.meta;
  const source = isMap(meta) ? meta.source : undefined;
  return isMap(source) && typeof source.signature === "string" ? source.signature : undefined;
}

export function readProposalState(root: string, env: NodeJS.ProcessEnv, branch: string): ProposalState {
  const head = gitOrThrow(root, ["rev-parse", "--verify", "HEAD^{commit}"], { env }).trim();
  const tip = branchTip(root, env, branch);
  // A branch whose every commit the checkout has (merged with a merge commit, or never written to)
  // starts again from the checkout: a fast-forward, so nothing on it is lost.
  const parent = tip && !isAncestor(root, env, tip, head) ? tip : head;
  const kb = loadKb(root);
  const ledger = ledgerOnDisk(root);
  if (parent === tip) {
    overlayBranch(root, env, kb, head, tip);
    ledger.push(...ledgerInCommit(root, env, tip));
  }
  const once = new Map(ledger.map((e) => [e.signature, e]));
  const lessonSignatures = new Set(kb.lessons.map(proposalSignature).filter((s): s is string => s !== undefined));
  return { branch, head, ...(tip ? { tip } : {}), parent, kb, ledger: [...once.values()], lessonSignatures };
}

function ledgerOnDisk(root: string): LedgerEntry[] {
  const dir = join(root, LEDGER_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()
    .flatMap((n) => parseLedger(`${LEDGER_DIR}/${n}`, readFileSync(join(dir, n), "utf8")));
}

function ledgerInCommit(root: string, env: NodeJS.ProcessEnv, commit: string): LedgerEntry[] {
  const names = lsTree(root, env, commit, LEDGER_DIR).filter((n) => n.endsWith(".jsonl"));
  const blobs = catBlobs(
    root,
    env,
    names.map((n) => `${commit}:${n}`),
  );
  return names.flatMap((n, i) => parseLedger(n, blobs[i]!.toString("utf8")));
}

function lsTree(root: string, env: NodeJS.ProcessEnv, commit: string, path?: string): string[] {
  const args = ["ls-tree", "-r", "-z", "--name-only", commit, ...(path ? ["--", path] : [])];
  return gitOrThrow(root, args, { env }).split("\0").filter(Boolean);
}

/** Lays the lessons and notes the branch added or changed (since it left the checkout's history) over the checkout's. */
function overlayBranch(root: string, env: NodeJS.ProcessEnv, kb: Kb, head: string, tip: string): void {
  const base = git(root, ["merge-base", head, tip], { env }).stdout.trim();
  const changed = (
    base ? gitOrThrow(root, ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", base, tip], { env }).split("\0") : lsTree(root, env, tip)
  ).filter((rel) => rel && (classify(rel) === "lesson" || classify(rel) === "note"));
  const blobs = catBlobs(
    root,
    env,
    changed.map((rel) => `${tip}:${rel}`),
  );
  const paths = new Set(changed);
  kb.lessons = kb.lessons.filter((l) => !paths.has(l.path));
  kb.notes = kb.notes.filter((n) => !paths.has(n.path));
  for (const [i, rel] of changed.entries()) {
    const text = blobs[i]!.toString("utf8");
    try {
      if (classify(rel) === "note") kb.notes.push(parseNote(text, rel));
      else kb.lessons.push(parseLesson(text, rel));
    } catch (e) {
      // A file a reviewer left unparseable is lint's to report; it still holds its path.
      if (!(e instanceof LessonParseError)) throw e;
    }
  }
  kb.files = [...new Set([...kb.files, ...lsTree(root, env, tip)])].sort();
}
