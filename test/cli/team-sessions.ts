import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gitIn, rkb, writeFile, type Sandbox } from "../helpers.ts";
import { SessionWriter, type Flavor } from "../sessions/session-writer.ts";

// A team's archive of sessions for the `rkb propose` tests: pi, omp and Claude Code files whose
// failures recur across sessions, with the fixes the agents found.

/** A failure, the steps that fixed it, and the command that then worked. */
export interface Story {
  command: string;
  output: string;
  exit: number;
  fix: string[];
  worked?: string;
}

export const STORIES = {
  leftPad: {
    command: "npm run build",
    output: "> app@1.0.0 build\n> tsc -p .\n\nerror TS2307: Cannot find module 'left-pad' or its corresponding type declarations.",
    exit: 2,
    fix: ["npm install left-pad @types/left-pad"],
  },
  serde: {
    command: "cargo build",
    output: "   Compiling app v0.1.0\nerror[E0432]: unresolved import `serde_json`\n --> src/main.rs:3:5",
    exit: 101,
    fix: ["cargo add serde_json"],
  },
  zlib: {
    command: "cmake -B build",
    output:
      "-- The C compiler identification is GNU 13.2.0\nCMake Error at CMakeLists.txt:5 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\n-- Configuring incomplete, errors occurred!",
    exit: 1,
    fix: [],
    worked: "cmake -B build -DZLIB_ROOT=/opt/zlib",
  },
  pgLock: {
    command: "make migrate",
    output: 'psql: error: FATAL:  database "app_test" is being accessed by other users\nmake: *** [Makefile:12: migrate] Error 2',
    exit: 2,
    fix: ["docker compose restart db"],
  },
  protoc: {
    command: "go generate ./...",
    output:
      'protoc-gen-go: program not found or is not executable\n--go_out: protoc-gen-go: Plugin failed with status code 1.\nmain.go:3: running "protoc": exit status 1',
    exit: 1,
    fix: ["go install google.golang.org/protobuf/cmd/protoc-gen-go@latest"],
  },
  unfixed: {
    command: "kubectl apply -f deploy.yaml",
    output: 'error: resource mapping not found for name: "web" namespace: "" from "deploy.yaml": no matches for kind "Ingress" in version "extensions/v1beta1"',
    exit: 1,
    fix: [],
  },
} satisfies Record<string, Story>;

/** Writes one session file with these stories told in order (an unfixed story is only its failure). */
export function writeSession(dir: string, name: string, flavor: Flavor, day: number, stories: Story[], extra?: (w: SessionWriter) => void): string {
  const w = new SessionWriter(flavor, `team-${name}`, "/work/app", Date.parse("2026-11-02T09:00:00Z") + day * 86_400_000);
  w.user("Get the build green, please.");
  for (const s of stories) {
    w.bash(s.command, s.output, s.exit);
    if (s === STORIES.unfixed) continue;
    for (const step of s.fix) w.bash(step, "done");
    w.bash(s.worked ?? s.command, "ok");
  }
  extra?.(w);
  w.agent("Done.");
  const path = join(dir, `${name}.jsonl`);
  writeFile(path, w.text());
  return path;
}

/**
 * The first archive: left-pad in six sessions (two of each harness), serde in three, zlib (which the
 * knowledge base answers) in two, pgLock in one, and an unfixed kubectl failure in two.
 */
export function firstArchive(dir: string): void {
  const { leftPad, serde, zlib, pgLock, unfixed } = STORIES;
  writeSession(dir, "pi-1", "pi", 0, [leftPad, zlib]);
  writeSession(dir, "omp-1", "omp", 1, [leftPad, serde]);
  writeSession(dir, "cc-1", "claude-code", 2, [serde, leftPad, unfixed]);
  writeSession(dir, "pi-2", "pi", 3, [leftPad, pgLock]);
  writeSession(dir, "omp-2", "omp", 4, [zlib, leftPad, leftPad]);
  writeSession(dir, "cc-2", "claude-code", 5, [leftPad, serde, unfixed]);
}

/** A knowledge base (rkb init) holding the lesson that answers the zlib failure. */
export async function teamKb(box: Sandbox, zlibLesson: string): Promise<void> {
  await rkb(["init"], { env: box.env });
  const added = await rkb(["add", "--topic", "cmake"], { env: box.env, stdin: zlibLesson });
  if (added.exit !== 0) throw new Error(added.stdout + added.stderr);
}

/** What the checkout looks like: HEAD, its branch, the index, every file (hidden ones too) and its content. */
export function checkoutSnapshot(kb: string, env: Record<string, string>): string {
  const files: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === "" && name === ".git") continue;
      const path = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path).isDirectory()) walk(path, r);
      else files.push(`${r} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`);
    }
  };
  walk(kb, "");
  return [
    gitIn(kb, env, "rev-parse", "HEAD"),
    gitIn(kb, env, "symbolic-ref", "HEAD"),
    gitIn(kb, env, "ls-files", "-s"),
    gitIn(kb, env, "status", "--porcelain", "--untracked-files=all"),
    ...files,
  ].join("\n");
}

/** The proposal branch's commit subjects, oldest first. */
export function branchSubjects(kb: string, env: Record<string, string>, branch = "rkb/proposals"): string[] {
  return gitIn(kb, env, "log", "--reverse", "--format=%s", `HEAD..${branch}`).trim().split("\n").filter(Boolean);
}

/** A file of the branch. */
export function onBranch(kb: string, env: Record<string, string>, rel: string, branch = "rkb/proposals"): string {
  return gitIn(kb, env, "show", `${branch}:${rel}`);
}
