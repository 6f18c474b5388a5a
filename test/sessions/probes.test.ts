import { describe, expect, test } from "bun:test";
import { failureOf } from "../../cli/shell/failure.ts";
import type { Stopped } from "../../cli/sessions/entries.ts";
import { probeKind } from "../../cli/sessions/probes.ts";

const run = (command: string, output: string, exitCode?: number, stopped?: Stopped) => ({ failure: failureOf(command, output, exitCode), stopped });

describe("probeKind", () => {
  test.each([
    [run('grep -n "TODO" src/checkout.ts', "", 1), "search"],
    [run("rg -n priceFormat src", "", 1), "search"],
    [run("grep -rn x missing/", "grep: missing/: No such file or directory", 2), "search"],
    [run("make 2>&1 | grep -i warning", "", 1), "search"],
    [run("test -f config/local.yml", "", 1), "check"],
    [run("which docker", "", 1), "check"],
    [run("git diff --quiet", "", 1), "check"],
    [run("ls config/", "ls: cannot access 'config/': No such file or directory", 2), "path test"],
    [run("cat .env", "cat: .env: No such file or directory", 1), "check"],
    [run("sleep 30", "Command aborted"), "stopped"],
    [run("npm run dev", "anything", 1, "rejected"), "stopped"],
    [run("timeout 20 sh -c 'until curl -sf localhost:4000/health; do sleep 1; done'", "", 124), "wait loop"],
    [run("for i in $(seq 1 10); do curl -sf localhost:4000/health && break; sleep 1; done", "", 7), "wait loop"],
    [run("npm test", "some output", 1, "timeout"), "wait loop"],
    // the stop line last, after what the command printed (pi), or an interrupt read as stopped (Claude Code)
    [run("pytest -x", "collected 40 items\ntests/test_a.py ....\n\nCommand aborted", 1), "stopped"],
    [run("cargo test", "", undefined, "aborted"), "stopped"],
    [run("pnpm install", "PreToolUse:Bash hook error: pnpm is not allowed here", 1), "blocked"],
    [run("rm -rf node_modules", "Bash operation blocked by hook:\n- no rm -rf", 2), "blocked"],
    [run("npm run e2e", "Command timed out after 2m 0.0s\nrunning 12 specs", 124), "timed out"],
    // a check option that answered no
    [run("terraform fmt -check", "main.tf", 3), "check"],
    [run("npx prettier --check .", "[warn] src/a.ts\n[warn] Code style issues found in the above file.", 1), "check"],
    [run("cargo fmt --check", "Diff in /w/src/lib.rs at line 3:", 1), "check"],
    [run("python -m black --check src", "would reformat src/a.py\n1 file would be reformatted.", 1), "check"],
    [run("git diff --exit-code -- src", "diff --git a/src/a.ts b/src/a.ts", 1), "check"],
    // a formatter's answer is the diff it would apply
    [
      run(
        "eval $(opam env) && dune build @fmt",
        'File "src/since.ml", line 1, characters 0-0:\ndiff --git a/_build/default/src/since.ml b/_build/default/src/.formatted/since.ml\n@@ -1,5 +1,8 @@',
        1,
      ),
      "check",
    ],
  ] as const)("%#: %o is a %s", (r, kind) => {
    expect(probeKind(r.failure, r.stopped)).toBe(kind);
  });

  test.each([
    run("npm ci", "npm ERR! `npm ci` can only install packages when your package.json and package-lock.json are in sync.", 1),
    run("cmake -S . -B build", "CMake Error at CMakeLists.txt:4 (find_package):\n  Could NOT find ZLIB", 1),
    run("node build.mjs", "Error: Cannot find module './lib/config.js'", 1),
    run("pytest -q", "", 2),
    run("git push origin main", " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs", 1),
    run("docker ps", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", 1),
    run("mytool --check", "error: unknown option '--check'", 2),
    // a formatter that could not run says why: a lesson may follow
    run("cargo fmt", "error: 'cargo-fmt' is not installed for the toolchain 'stable-x86_64-unknown-linux-gnu'", 1),
    // a dry run's check option: it fails as the real run would
    run("ansible-playbook -i inventories/staging site.yml --check --diff", "ERROR! couldn't resolve module/action 'community.postgresql.postgresql_db'.", 4),
    run("npm test", "FAIL src/a.test.ts\nCommand aborted is what the test prints here\n1 failed", 1),
  ])("%#: %o may teach something", (r) => {
    expect(probeKind(r.failure, r.stopped)).toBeUndefined();
  });
});
