import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { refuseWhileStopped } from "../base/git.ts";
import { lintStaged } from "../lint/lint.ts";
import { counted } from "../output/words.ts";
import { clearLeftIndexes, commitOnBranch, requireOtherBranch, type BranchStep } from "../write/branch.ts";
import type { CandidateSet } from "./candidates.ts";
import { chooseProposals, type Choice, type FailureRule, type LeftOut, type Proposal } from "./choose.ts";
import { ledgerFile } from "./ledger.ts";
import { readProposalState } from "./state.ts";

// `rkb propose` after the sessions were read: choose the proposals against the knowledge base and
// its proposal branch, and commit them on that branch, one commit per lesson and one for the
// record, without touching the checkout. When the branch moves while the commits are made (someone
// pushed to it, or a reviewer's commit was fetched into it), the run starts over from the branch as
// it is then, so no reviewer's commit is ever replaced.

export interface ProposeOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  branch: string;
  set: CandidateSet;
  rule: FailureRule;
  minSessions: number;
  max: number;
  minSimilarity: number;
  /** rkb's cache folder, for the temporary index. */
  cache: string;
}

export interface ProposedEntry {
  id: string;
  path: string;
  title: string;
  signature: string;
  occurrences: number;
  sessions: number;
  harnesses: string[];
  first_seen?: string;
  last_seen?: string;
  today: Proposal["today"];
  failed: string;
  key_line: string;
  worked: string;
  fix_steps: number;
  /** The last steps before the success (at most SHOWN_STEPS), each as one short line. */
  last_steps: string[];
  commit: string;
}

export interface ProposeResult {
  branch: string;
  /** The commit the proposals were added to, and the branch's tip afterwards (the same when nothing was new). */
  base: string;
  tip: string;
  proposals: ProposedEntry[];
  left_out: LeftOut[];
  unfixed: number;
  too_few: number;
  waiting: number;
  /** Proposals on record whose lesson is in neither the checkout nor the branch: declined in review. */
  declined: number;
  files: number;
  sessions: number;
  not_sessions: number;
  skipped_lines: number;
  problems: CandidateSet["problems"];
  min_sessions: number;
}

/** Fix steps a result names; the count covers the rest. */
const SHOWN_STEPS = 3;

/** Times the run starts over when the branch moved under it, before it gives up. */
const ATTEMPTS = 3;

export async function proposeOnBranch(opts: ProposeOptions): Promise<ProposeResult> {
  // A checkout in the middle of a rebase or merge is no knowledge base to judge proposals against.
  refuseWhileStopped(opts.root);
  requireOtherBranch(opts.root, opts.env, opts.branch);
  const scratch = join(opts.cache, "propose");
  // Also when nothing is new: a run killed after it moved the branch left its index behind.
  clearLeftIndexes(scratch);
  for (let attempt = 1; ; attempt++) {
    const state = readProposalState(opts.root, opts.env, opts.branch);
    const choice = chooseProposals(opts.set, { ...opts, state });
    const declined = state.ledger.filter((e) => !state.lessonSignatures.has(e.signature)).length;
    if (!choice.proposals.length) return result(opts, choice, declined, state.parent, state.tip ?? state.parent, []);
    const steps = [...choice.proposals.map(lessonStep), ledgerStep(choice.proposals, opts.branch)];
    const ours = new Set(steps.flatMap((s) => s.files.map((f) => f.rel)));
    try {
      const commits = await commitOnBranch({
        root: opts.root,
        env: opts.env,
        branch: opts.branch,
        parent: state.parent,
        expected: state.tip,
        steps,
        scratch,
        check: (env) => requireLintClean(opts.root, env, ours),
      });
      return result(opts, choice, declined, state.parent, commits.at(-1)!, commits);
    } catch (e) {
      if (!(e instanceof RkbError && e.extra.moved && attempt < ATTEMPTS)) throw e;
    }
  }
}

function lessonStep(p: Proposal): BranchStep {
  const c = p.candidate;
  const why = p.today.silent ? "rkb stays silent on it today" : `rkb injects ${p.today.lesson.id} for it today, which does not say what fixed it`;
  const message = [
    `add(${p.folder}): ${p.lesson.title} [${p.id}]`,
    "",
    `Proposed by rkb propose: seen ${counted(c.occurrences, "time")} in ${counted(c.sessions.length, "session")} (${c.harnesses.join(", ")}); ${why}.`,
  ].join("\n");
  return { files: [{ rel: p.rel, text: p.text }], message };
}

function ledgerStep(proposals: Proposal[], branch: string): BranchStep {
  const file = ledgerFile(proposals.map((p) => ({ signature: p.candidate.signature, id: p.id, path: p.rel, title: p.lesson.title })));
  const message = [
    `propose: record ${counted(proposals.length, "proposal")}`,
    "",
    `The record of what rkb propose put on ${branch}. To decline a proposal, delete its lesson (or drop`,
    "its commit) and keep this record: a failure on record is never proposed again.",
  ].join("\n");
  return { files: [file], message };
}

/** The branch as committed must lint clean in rkb's own files; other files' errors are the reviewers' to fix. */
async function requireLintClean(root: string, env: NodeJS.ProcessEnv, ours: Set<string>): Promise<void> {
  const errors = (await lintStaged(root, env)).filter((f) => f.severity === "error" && ours.has(f.path));
  if (errors.length)
    throw new RkbError(
      "invalid_lesson",
      `the proposals would not lint clean on the branch: ${errors.map((f) => `${f.path}${f.line ? `:${f.line}` : ""} ${f.rule}: ${f.message}`).join("; ")}`,
      "nothing was written; report this as a bug in rkb, with the lines above",
      { findings: errors },
    );
}

function result(opts: ProposeOptions, choice: Choice, declined: number, base: string, tip: string, commits: string[]): ProposeResult {
  const proposals = choice.proposals.map((p, i): ProposedEntry => {
    const c = p.candidate;
    const d = c.fixed.draft;
    return {
      id: p.id,
      path: p.rel,
      title: p.lesson.title,
      signature: c.signature,
      occurrences: c.occurrences,
      sessions: c.sessions.length,
      harnesses: c.harnesses,
      ...(c.firstSeen ? { first_seen: c.firstSeen } : {}),
      ...(c.lastSeen ? { last_seen: c.lastSeen } : {}),
      today: p.today,
      failed: d.failed.command,
      key_line: d.failed.keyLines.find((l) => !l.trim().endsWith(":")) ?? d.failed.keyLines[0] ?? "",
      worked: d.worked.command,
      fix_steps: d.fix.length,
      last_steps: d.fix.slice(-SHOWN_STEPS).map((s) => (s.kind === "change" ? `${s.verb} ${s.path}` : s.command.split("\n")[0]!)),
      commit: commits[i] ?? "",
    };
  });
  const s = opts.set;
  return {
    branch: opts.branch,
    base,
    tip,
    proposals,
    left_out: choice.leftOut,
    unfixed: choice.unfixed,
    too_few: choice.tooFew,
    waiting: choice.waiting,
    declined,
    files: s.files,
    sessions: s.sessions,
    not_sessions: s.notSessions,
    skipped_lines: s.skippedLines,
    problems: s.problems,
    min_sessions: opts.minSessions,
  };
}
