import { describe, expect, test } from "bun:test";
import { invocation, isReadOnly, program } from "../../cli/shell/program.ts";
import { failureSignature, keyErrorLines, stripHarnessTrailer } from "../../cli/shell/result.ts";
import { checksWhatFailed } from "../../cli/shell/selection.ts";
import { isChecker, prepares, renamedTask, renames, taskOf } from "../../cli/shell/task.ts";

const task = (command: string) => taskOf(invocation(command));
const signature = (prog: string, errorText: string) => failureSignature(prog, keyErrorLines(errorText));

describe("stripHarnessTrailer", () => {
  test("pi: the exit line goes, the code stays", () => {
    expect(stripHarnessTrailer("about-to-fail\n\n\nCommand exited with code 3")).toEqual({ text: "about-to-fail", exitCode: 3 });
  });
  test("omp: wall time before the exit line goes too", () => {
    expect(stripHarnessTrailer("about-to-fail\n\n\nWall time: 0.09 seconds\n\nCommand exited with code 3")).toEqual({ text: "about-to-fail", exitCode: 3 });
  });
  test("omp success: wall time alone, no exit code", () => {
    expect(stripHarnessTrailer("hello\n\n\nWall time: 0.01 seconds")).toEqual({ text: "hello" });
  });
  test("Claude Code and hook error text lead with Exit code N", () => {
    expect(stripHarnessTrailer("Exit code 1\nCMake Error: x")).toEqual({ text: "CMake Error: x", exitCode: 1 });
  });
  test("output that merely mentions an exit code keeps it", () => {
    const text = "the doc says: Command exited with code 3 means retry\nthen more";
    expect(stripHarnessTrailer(text)).toEqual({ text });
  });
});

describe("program", () => {
  test.each([
    ["CC=gcc make -j8", "make"],
    ["/usr/bin/cmake -B build", "cmake"],
    ["'./configure' --prefix=/opt", "configure"],
    ["", ""],
    ["A=1", ""],
    // Setup statements before the command.
    ["export A=1 && pytest", "pytest"],
    ["  FOO=1 BAR=2 pytest -q", "pytest"],
    ["cd sub && make", "make"],
    ["(cd build && ninja)", "ninja"],
    ["mkdir -p build && cd build && cmake ..", "cmake"],
    ["source .venv/bin/activate; pytest", "pytest"],
    ["FOO=$(pwd) make", "make"],
    // Wrappers give way to what they run.
    ["sudo apt-get install -y zlib1g-dev", "apt-get"],
    ["sudo -u bob -E make install", "make"],
    ["env X=y cargo test", "cargo"],
    ["env -u HOME X=1 -- cargo build", "cargo"],
    ["time npm test", "npm"],
    ["time -p make", "make"],
    ["nice -n 5 make", "make"],
    ["nice -10 make", "make"],
    ["timeout 10 pytest", "pytest"],
    ["timeout -s KILL 5m cargo test", "cargo"],
    ["nohup ./server --port 80", "server"],
    ["npx tsc --noEmit", "tsc"],
    ["npx --yes tsc@5 -p .", "tsc"],
    ["npx @biomejs/biome@1.2 check", "biome"],
    ["bunx vitest run", "vitest"],
    ["npm exec -- jest", "jest"],
    ["uv run pytest", "pytest"],
    ["uv run --with requests python x.py", "python"],
    ["poetry run pytest", "pytest"],
    ["conda run -n dev pytest", "pytest"],
    ["bundle exec rake", "rake"],
    // Programs that run another.
    ["python -m pytest -q", "pytest"],
    ["python3 -X dev -m pytest", "pytest"],
    ["python3.11 -m pip install x", "pip"],
    ["python3 script.py", "python"],
    ["bash -c 'cd x && make'", "make"],
    ["sh ./build.sh --fast", "build.sh"],
    // One name per tool.
    ["pip3 install requests", "pip"],
    ["gcc-12 -c x.c", "gcc"],
    // Pipes: the stage that does the work, not the filter after it.
    ["make 2>&1 | tail -20", "make"],
    ["echo y | sudo apt-get install x", "apt-get"],
    ["cat data.csv | ./import", "import"],
    // Lists: the last statement that does work.
    ["pip install -e . && pytest", "pytest"],
    ["pytest; echo $?", "pytest"],
    ["pytest || true", "pytest"],
    ["cmake --build build && ls build", "cmake"],
    ["for f in a b; do pytest $f; done", "pytest"],
    ["if ! make; then echo fail; fi", "make"],
    ["cat <<'EOF' > x.py\nimport os\nrm -rf /\nEOF\npython x.py", "python"],
    // Nothing but setup or looking: that is the program.
    ["ls /missing", "ls"],
    ["cd /nope", "cd"],
    ["export A=1", "export"],
  ])("%p → %p", (command, expected) => {
    expect(program(command)).toBe(expected);
  });
  test("a success pairs with its failure however it is spelled", () => {
    expect(program("python -m pytest -q tests/")).toBe(program("pytest -q"));
    expect(program("cd build && make -j4")).toBe(program("make"));
    expect(program("sudo -E env PATH=/x apt-get install y")).toBe(program("apt-get update"));
  });
});

describe("task", () => {
  test.each([
    ["pytest -q", "python -m pytest -q", true],
    ["npm ci", "npm install", true],
    ["pip install x", "python3 -m pip install y", true],
    ["cargo build", "cargo test", true],
    ["cargo build", "cargo add serde", false],
    ["npm test", "npm install left-pad", false],
    ["apt-get install foo", "sudo apt-get update", false],
    ["git push", "git pull --rebase", false],
    ["git pull --rebase", "git pull --rebase --autostash", true],
    ["make install", "make -C build install", true],
    ["git -C repo push", "git -C repo pull", false],
    ["npm --prefix web test", "npm --prefix web install x", false],
    ["npm run check", "npm run build", false],
    ["npm test", "npm run test 2>&1 | tail -20", true],
    ["node /tmp/count.mjs", "node /tmp/count.mjs 2>&1", true],
    ["node a.mjs", "node b.mjs", false],
    ["npx tsx -e 'import x'", "npx tsx src/cli.ts --help", false],
    ["gadget build", "gadget lock", false],
    ["git push origin main", "git commit -m x", false],
    ["cmake -B build", "cmake -B build -DZLIB_ROOT=/opt/zlib", true],
    ["make", "make -f Makefile.linux", true],
    ["make test", "make build", false],
    ["pytest -q", "pytest tests/test_app.py", true],
    // a build tool's lint and format checks are tasks of their own
    ["go vet ./...", "go test ./...", false],
    ["go vet ./...", "go vet ./internal/api/...", true],
    ["cargo clippy", "cargo build", false],
    ["./gradlew checkstyleMain", "./gradlew test", false],
    ["mix credo", "mix test", false],
    ["go build ./...", "go test ./...", true],
    // an interpreter script's subcommand is its task
    ["php artisan test", "php artisan route:list", false],
    ["php artisan test --filter=A", "php artisan test", true],
    ["python manage.py migrate", "python3 manage.py test", false],
    ["node scripts/build.js", "node scripts/build.js --watch", true],
    // housekeeping prepares
    ["go build ./...", "go mod tidy", false],
    ["mix compile", "mix deps.get", false],
    // a build tool's queries and plugins build nothing: their own tasks
    ["cargo build", "cargo tree -i base64ct", false],
    ["SQLX_OFFLINE=true cargo build --locked", "cargo sqlx prepare -- --all-targets", false],
    ["cargo build --release", "cargo b", true],
    ["go test ./...", "go env GOPATH", false],
    ["./gradlew assembleDebug", "./gradlew bundleRelease", true],
    // a group's subcommand is the task
    ["docker buildx build --platform linux/amd64,linux/arm64 .", "docker buildx ls", false],
    ["docker buildx build .", "docker buildx build --push .", true],
    ["docker compose up -d", "docker compose ps", false],
    ["gh pr create --fill", "gh pr view", false],
    ["aws s3 cp a s3://b/a", "aws s3 ls s3://b", false],
    ["git remote add origin x", "git remote -v", false],
    ["docker run --rm img", "docker run -it img sh", true],
    // a long option's value that is no subcommand
    ["nix build", "nix --extra-experimental-features 'nix-command flakes' build -L", true],
    ["git --git-dir /x/.git status", "git status", true],
  ])("%p and %p are one task: %p", (a, b, same) => {
    expect(task(a) === task(b)).toBe(same);
  });

  test.each([
    ["go mod tidy", true],
    ["mix deps.get", true],
    ["mix local.hex --force", true],
    ["go vet ./...", false],
    ["mix test", false],
  ])("%p prepares: %p", (command, yes) => {
    expect(prepares(invocation(command))).toBe(yes);
  });

  test.each([
    ["git mv scripts/x.js scripts/x.mjs", [["scripts/x.js", "scripts/x.mjs"]]],
    ["mv -f a.txt b.txt && ls", [["a.txt", "b.txt"]]],
    ["mv a b c/", []],
    ["cp a.js a.mjs", []],
  ] as const)("%p renames %j", (command, pairs) => {
    expect(renames(command)).toEqual(pairs.map((p) => [...p]));
  });

  test("a renamed script carries its task", () => {
    expect(renamedTask(task("node ./scripts/x.js"), "scripts/x.js", "scripts/x.mjs")).toBe(task("node scripts/x.mjs"));
    expect(renamedTask(task("node scripts/y.js"), "scripts/x.js", "scripts/x.mjs")).toBe(task("node scripts/y.js"));
  });
});

describe("isChecker", () => {
  test.each([
    ["npx tsc --noEmit", true],
    ["cargo build", true],
    ["cargo run --release", false],
    ["go vet ./...", true],
    ["npm run lint", true],
    ["npm run test:unit", true],
    ["pnpm turbo run build --filter=web", true],
    ["./gradlew testDebugUnitTest", true],
    ["php artisan test", true],
    ["terraform validate", true],
    ["node scripts/migrate.mjs", false],
    ["npm install", false],
    ["python app.py", false],
    ["curl -sf localhost:8080/health", false],
    ["dart analyze lib/widgets", true],
    ["flutter analyze", true],
  ])("%p: %p", (command, yes) => {
    expect(isChecker(invocation(command))).toBe(yes);
  });
});

describe("checksWhatFailed", () => {
  const checks = (failed: string, worked: string, diagnostics: string[] = []) => checksWhatFailed(invocation(failed), invocation(worked), diagnostics);
  test.each([
    ["php artisan test --filter=ReminderTest", "php artisan test --filter=ScheduleTest", [], false],
    ["php artisan test --filter=ReminderTest", "php artisan test --filter=ReminderTest", [], true],
    ["pytest -k parse", "pytest -k 'parse or load'", [], true],
    ["pytest -k parse", "pytest", [], true],
    ["go vet ./...", "go vet ./internal/webhook/...", ["internal/payout/batch.go"], false],
    ["go vet ./...", "go vet ./internal/payout/...", ["internal/payout/batch.go"], true],
    ["go vet ./...", "go vet ./internal/webhook/...", ["/home/dev/gw/internal/webhook/verify.go"], true],
    ["go vet ./...", "go vet ./internal/webhook/...", [], true],
    ["pytest tests/", "pytest tests/test_app.py::test_load", ["tests/test_app.py"], true],
    ["pytest tests/", "pytest tests/test_app.py", ["tests/test_other.py"], false],
    ["tsc -p tsconfig.json", "tsc -p tsconfig.build.json", ["src/a.ts"], true],
    ["npm test", "npm test -- src/a.test.ts", ["src/b.test.ts"], true],
  ] as const)("%p then %p (report in %j): %p", (failed, worked, diagnostics, yes) => {
    expect(checks(failed, worked, [...diagnostics])).toBe(yes);
  });
});

describe("isReadOnly", () => {
  test.each([
    ["ls -la", true],
    ["cat README.md | grep zlib", true],
    ["cd src && grep -rn foo .", true],
    ["git status", true],
    ["git -C repo diff HEAD~1", true],
    ["git log --oneline | head", true],
    ["git branch -a", true],
    ["find . -name '*.py'", true],
    ["sed -n 1,20p x.c", true],
    ["cmake --version", true],
    ["pip list", true],
    ["echo hello", true],
    ["git branch -D old", false],
    ["git checkout -b x", false],
    ["find . -name '*.pyc' -delete", false],
    ["sed -i 's/a/b/' x.c", false],
    ["echo 'x=1' > config.ini", false],
    ["cat > x.py <<EOF\nprint(1)\nEOF", false],
    ["ls > files.txt", false],
    ["ls 2>/dev/null", true],
    ["pip install requests", false],
    ["cd build", false],
    ["export PATH=/opt/bin:$PATH", false],
    ["make", false],
    ["rm -rf build", false],
  ])("%p → %p", (command, expected) => {
    expect(isReadOnly(command)).toBe(expected);
  });
});

describe("keyErrorLines", () => {
  test("lines naming an error, trimmed, without Exit code lines", () => {
    const text =
      "Exit code 1\n-- The C compiler identification is GNU\nCMake Error at CMakeLists.txt:5 (find_package):\n  Could NOT find ZLIB\n-- Configuring incomplete, errors occurred!";
    expect(keyErrorLines(text)).toEqual(["CMake Error at CMakeLists.txt:5 (find_package):", "Could NOT find ZLIB"]);
  });
  test("aftermath lines that only count the errors go when a specific line is left", () => {
    const link = "main.c:(.text+0x1b): undefined reference to `foo_init'\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:4: app] Error 1";
    expect(keyErrorLines(link)).toEqual(["main.c:(.text+0x1b): undefined reference to `foo_init'"]);
    const rust = "error[E0382]: borrow of moved value: `x`\nerror: could not compile `p` (lib) due to 1 previous error";
    expect(keyErrorLines(rust)).toEqual(["error[E0382]: borrow of moved value: `x`"]);
    expect(keyErrorLines("collect2: error: ld returned 1 exit status")).toEqual(["collect2: error: ld returned 1 exit status"]);
  });
  test("no matching line: the last three", () => {
    expect(keyErrorLines("a\nb\n\nc\nd\n")).toEqual(["b", "c", "d"]);
  });
  test.each([
    "fatal: not a git repository",
    "bash: foo: command not found",
    'Could not find a package configuration file provided by "fmt"',
    "Permission denied",
    "thread 'main' panicked at src/x.rs",
    "zsh: no matches found: *.o",
    "System has not been booted with systemd as init system (PID 1). Can't operate.",
    "cp: error writing 'x': Disk quota exceeded",
    "ssh: connect to host bastion port 22: Connection timed out",
    "Address already in use - bind(2) for 0.0.0.0 port 3000",
    "'python' is not recognized as an internal or external command,",
    "Unit file backup.timer does not exist.",
    "rm: cannot remove 'x': Operation not permitted",
  ])("%p is a key line", (line) => {
    expect(keyErrorLines(`noise\n${line}\nmore noise`)).toEqual([line]);
  });
});

describe("failureSignature", () => {
  test("the same failure in another place and time has the same signature", () => {
    const a = signature("cmake", "CMake Error at /home/a/proj/CMakeLists.txt:5 (find_package):\nbuild 3f9a1c0d2e failed after 12 s");
    const b = signature("cmake", "CMake Error at /tmp/ci/x/CMakeLists.txt:17 (find_package):\nbuild 77aa00bb11 failed after 3 s");
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{24}$/);
  });
  test("a Windows path is a path; one escape, as in bash\\r, is not", () => {
    const a = signature("msbuild", 'error MSB3027: Could not copy "obj\\Debug\\net8.0\\App.dll" to C:\\src\\App\\bin\\App.dll.');
    const b = signature("msbuild", 'error MSB3027: Could not copy "obj\\Release\\net9.0\\Web.dll" to D:\\work\\Web\\bin\\Web.dll.');
    expect(a).toBe(b);
    expect(signature("env", "/usr/bin/env: 'bash\\r': No such file")).not.toBe(signature("env", "/usr/bin/env: 'ruby\\r': No such file"));
  });
  test("another program or another error differs", () => {
    const base = signature("cmake", "CMake Error: could not find ZLIB");
    expect(signature("make", "CMake Error: could not find ZLIB")).not.toBe(base);
    expect(signature("cmake", "CMake Error: could not find PNG")).not.toBe(base);
  });
});

describe("reading command lines", () => {
  test("broken and huge command lines are read without error", () => {
    for (const command of [
      "'unclosed",
      '"unclosed',
      "$(unclosed",
      "cat <<EOF\nno end",
      "|||&&;;",
      "(".repeat(100_000),
      "a=$(".repeat(20_000) + "make",
      "x ".repeat(200_000),
    ]) {
      expect(typeof program(command)).toBe("string");
      expect(typeof isReadOnly(command)).toBe("boolean");
    }
  });
});
