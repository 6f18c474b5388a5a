import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Candidate, FixedFailure } from "../../cli/proposals/candidates.ts";
import { chooseProposals, type ChooseOptions, type FailureRule } from "../../cli/proposals/choose.ts";
import { readProposalState } from "../../cli/proposals/state.ts";
import { gitIn, sandbox, writeFile, ZLIB_PITFALL } from "../helpers.ts";

// Which candidates become proposals, in-process with a failure rule the test decides: the rule's
// answer counts only when the injected lesson is related to what fixed the failure; near-duplicates
// of a proposal ranked above are left out; sessions rank before times seen; --max and
// --min-sessions cut the list with counts, never silently.

function kb(): { root: string; env: Record<string, string> } {
  const box = sandbox("rkb-choose");
  writeFile(join(box.kb, "kb.toml"), "");
  writeFile(
    join(box.kb, "general/cmake/zlib.md"),
    ZLIB_PITFALL.replace("type: pitfall", "schema: 1\nid: 1a2b3c4d5e\ntype: pitfall\nstatus: active\nverified: 2026-01-01"),
  );
  gitIn(box.kb, box.env, "init", "-q", "-b", "main");
  gitIn(box.kb, box.env, "add", "-A");
  gitIn(box.kb, box.env, "commit", "-q", "-m", "kb");
  return { root: box.kb, env: box.env };
}

let line = 0;
function candidate(program: string, keyLine: string, fix: string, sessions: number, occurrences = sessions): Candidate & { fixed: FixedFailure } {
  const command = `${program} build`;
  line += 10;
  return {
    signature: `sig-${program}-${line}`,
    program,
    keyLine,
    occurrences,
    sessions: Array.from({ length: sessions }, (_, i) => `s${i}`),
    harnesses: ["pi"],
    firstSeen: "2026-11-02T10:00:00Z",
    lastSeen: "2026-11-03T10:00:00Z",
    fixed: {
      draft: {
        program,
        failed: { command, exitCode: 1, keyLines: [keyLine], line, time: "2026-11-02T10:00:00Z" },
        attempts: 1,
        worked: { command, line: line + 2, time: "2026-11-02T10:01:00Z" },
        fix: [{ kind: "command", command: fix, ok: true, line: line + 1 }],
        fixDropped: 0,
      },
      session: "s0",
      harness: "pi",
      command,
      error: keyLine,
      order: `2026-11-02T10:00:00Z\ts0\t${String(line).padStart(10, "0")}`,
    },
  };
}

function options(root: string, env: Record<string, string>, rule: FailureRule, extra: Partial<ChooseOptions> = {}): ChooseOptions {
  return { root, env, state: readProposalState(root, env, "rkb/proposals"), rule, minSessions: 2, max: 20, minSimilarity: 0.4, ...extra };
}

const set = (candidates: Candidate[]) => ({ files: 1, sessions: 1, notSessions: 0, skippedLines: 0, problems: [], candidates });
const silent: FailureRule = () => ({ reason: "no lesson matches the error" });

describe("chooseProposals", () => {
  test("the rule's lesson answers a failure only when it is related to the fix; an unrelated one is wrong, and the failure is proposed", () => {
    const { root, env } = kb();
    const zlib = candidate("cmake", "Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)", "export ZLIB_ROOT=/opt/zlib", 3);
    const rust = candidate("cargo", "error[E0599]: no method named `try_into_vec` found for struct `Buffer`", "cargo update -p bytes", 3);
    const injectsZlib: FailureRule = () => ({ lesson: { id: "1a2b3c4d5e", title: "CMake cannot find ZLIB unless ZLIB_ROOT is set" }, reason: "quoted" });
    const choice = chooseProposals(set([zlib, rust]), options(root, env, injectsZlib));
    expect(choice.proposals.map((p) => p.candidate.program)).toEqual(["cargo"]);
    expect(choice.proposals[0]!.today).toEqual({ silent: false, lesson: { id: "1a2b3c4d5e", title: "CMake cannot find ZLIB unless ZLIB_ROOT is set" } });
    expect(choice.leftOut).toEqual([
      expect.objectContaining({
        signature: zlib.signature,
        reason: "answered",
        detail: expect.stringContaining('rkb injects 1a2b3c4d5e "CMake cannot find ZLIB unless ZLIB_ROOT is set"'),
      }),
    ]);
  });

  test("a near-duplicate of a lesson or of a proposal ranked above is left out; sessions rank before times seen", () => {
    const { root, env } = kb();
    const often = candidate("pytest", "ModuleNotFoundError: No module named 'yaml'", "pip install pyyaml", 2, 9);
    const wide = candidate("python", "ModuleNotFoundError: No module named 'yaml'", "pip install pyyaml", 4, 4);
    const zlib = candidate("cmake", "Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)", "export ZLIB_ROOT=/opt/zlib", 2);
    const choice = chooseProposals(set([often, wide, zlib]), options(root, env, silent));
    expect(choice.proposals.map((p) => p.candidate.program)).toEqual(["python"]);
    const reasons = choice.leftOut.map((l) => [l.signature, l.reason, l.detail.split(" (")[0]]);
    expect(reasons).toEqual([
      [often.signature, "near_duplicate", `says much the same as the proposal "${choice.proposals[0]!.lesson.title}"`],
      [zlib.signature, "near_duplicate", 'says much the same as 1a2b3c4d5e "CMake cannot find ZLIB unless ZLIB_ROOT is set"'],
    ]);
  });

  test("--min-sessions and --max cut the list and count what they cut", () => {
    const { root, env } = kb();
    const cs = [
      candidate("make", "make: *** No rule to make target 'install'.  Stop.", "make -C build install", 5),
      candidate("docker", "docker: Error response from daemon: pull access denied for acme/api", "docker login ghcr.io", 4),
      candidate("terraform", "Error: Inconsistent dependency lock file", "terraform init -upgrade", 3),
      candidate("helm", "Error: INSTALLATION FAILED: cannot re-use a name that is still in use", "helm uninstall web", 1),
    ];
    const unfixed = { ...candidate("ssh", "Permission denied (publickey).", "x", 6), fixed: undefined };
    const choice = chooseProposals(set([...cs, unfixed]), options(root, env, silent, { max: 2 }));
    expect(choice.proposals.map((p) => p.candidate.program)).toEqual(["make", "docker"]);
    expect({ waiting: choice.waiting, tooFew: choice.tooFew, unfixed: choice.unfixed }).toEqual({ waiting: 1, tooFew: 1, unfixed: 1 });
  });
});
