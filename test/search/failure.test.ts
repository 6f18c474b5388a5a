import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadKb } from "../../cli/kb/store.ts";
import { FAILURE_MIN_QUOTE_FOUND, FAILURE_MIN_QUOTED, type FailureEvidence, failureEvidence } from "../../cli/search/evidence.ts";
import { decideFailureIn, failureEvidenceLine, failureQuery, failureVeto } from "../../cli/search/failure.ts";
import { buildIndex } from "../../cli/kb/index.ts";
import { errorCodes, failureOf, readFailure, speakingPrograms } from "../../cli/shell/failure.ts";
import { program } from "../../cli/shell/program.ts";
import { recallDecision, subjectWords, unnamedTopics } from "../../cli/search/recall.ts";
import { searchKb } from "../../cli/search/search.ts";
import { sandbox, writeFile } from "../helpers.ts";

const failureTextOf = (error: string) => readFailure("", error).text;
const failureLinesOf = (error: string) => readFailure("", error).lines;

const index = buildIndex(loadKb(join(import.meta.dir, "../fixtures/search-kb")));
const nowhere = { facts: {}, isAncestor: () => undefined };

describe("failureQuery", () => {
  test("program and key error lines, without paths, hex ids, numbers or the harness trailer", () => {
    const q = failureQuery(
      readFailure(
        "CC=gcc /usr/bin/make -j8",
        "main.c: In function 'main':\n/usr/bin/ld: /tmp/cc1a2b3c4d.o: undefined reference to `vtable for Shape'\ncollect2: error: ld returned 1 exit status\n\nCommand exited with code 2",
      ),
    );
    expect(q.startsWith("make ")).toBe(true);
    expect(q).toContain("undefined reference to `vtable for Shape'");
    expect(q).not.toMatch(/\/usr|cc1a2b3c4d|\b1\b|Command exited/);
  });
  test("stops before 40 terms", () => {
    const error = Array.from({ length: 30 }, (_, i) => `error: unknown option word${i} another${i}`).join("\n");
    expect(failureQuery(readFailure("tool", error)).split(" ").length).toBeLessThan(45);
  });
});

describe("inject or stay silent", () => {
  test("a failure whose error a lesson shows is injected", () => {
    const error =
      "/usr/bin/ld: shape.o: in function `ShapeRenderer::ShapeRenderer()':\nshape.cpp:(.text+0x1b): undefined reference to `vtable for ShapeRenderer'\ncollect2: error: ld returned 1 exit status";
    const d = decideFailureIn(index, nowhere, new Map(), readFailure("make", error));
    expect(d.lesson?.id).toBe("3c00000002");
  });
  test("an unrelated failure injects nothing", () => {
    const d = decideFailureIn(index, nowhere, new Map(), readFailure("git push", "! [rejected] main -> main (fetch first)\nerror: failed to push some refs"));
    expect(d.lesson).toBeUndefined();
    expect(d.reason).not.toBe("");
  });
  test("a lesson that shares only the error's label and common words is not injected", () => {
    const error =
      "CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n  CMake 3.28 or higher is required.  You are running version 3.22.1\n\n-- Configuring incomplete, errors occurred!";
    const d = decideFailureIn(index, nowhere, new Map(), readFailure("cmake -B build", error));
    expect(d.lesson).toBeUndefined();
  });
  test("recall needs a clear winner", () => {
    expect(recallDecision(index, searchKb({ index, query: "undefined reference to vtable for my class", place: nowhere, limit: 2 })).lesson?.id).toBe(
      "3c00000002",
    );
    expect(recallDecision(index, searchKb({ index, query: "how do I plot a histogram in gnuplot", place: nowhere, limit: 2 })).lesson).toBeUndefined();
  });
});

test("the rule judges the lesson it would inject, not a higher-ranked one that is hidden here", () => {
  const { kb } = sandbox("rkb-hidden-top");
  const header = (id: string, extra = "") =>
    `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: active\n${extra}verified: 2026-10-01\nverified_how: ran\n---\n\n`;
  writeFile(
    join(kb, "general/cpp/gcc-widget-vtable.md"),
    header("3c0000aa01", 'when:\n  compiler: "gcc@12:"\n') +
      "# undefined reference to vtable for Widget with gcc\n\n## Symptom\n`undefined reference to 'vtable for Widget'` when linking.\n\n## Cause\nA virtual function has no definition.\n\n## Fix\nDefine it.\n\n## Evidence\nThe link passed.\n",
  );
  writeFile(
    join(kb, "general/cpp/widget-notes.md"),
    header("3c0000aa02") +
      "# Widget vtable linking notes\n\n## Symptom\nThe Widget build shows an undefined reference to the vtable of Widget at link time.\n\n## Cause\nUnclear.\n\n## Fix\nUnclear.\n\n## Evidence\nSeen once.\n",
  );
  // Unrelated lessons, so the error's words are as rare as in a real knowledge base.
  for (const [i, topic] of [
    "git rebase conflicts",
    "python virtual environments",
    "ssh agent forwarding",
    "latex bibliography",
    "docker volume permissions",
    "slurm job arrays",
  ].entries()) {
    writeFile(
      join(kb, `general/misc/filler-${i}.md`),
      header(`3c0000bb0${i}`) +
        `# Notes on ${topic}\n\n## Symptom\nSomething about ${topic}.\n\n## Cause\nThe ${topic} setup.\n\n## Fix\nChange the ${topic} settings.\n\n## Evidence\nIt worked.\n`,
    );
  }
  const idx = buildIndex(loadKb(kb));
  const error = "/usr/bin/ld: undefined reference to `vtable for Widget'\ncollect2: error: ld returned 1 exit status";
  const clang = { facts: { compiler: "clang@17" }, isAncestor: () => undefined };
  // With clang the lesson that quotes the error is hidden; the one left on top only talks about
  // the error in prose, so it must not be injected on the strength of the hidden lesson's quote.
  const d = decideFailureIn(idx, clang, new Map(), readFailure("make", error));
  expect(d.lesson).toBeUndefined();
  expect(d.reason).toContain("3c0000aa02 quotes no part of the error");
});

describe("failure evidence", () => {
  const docOf = (id: string) => [...Array(index.size).keys()].find((i) => index.lesson(i).id === id)!;
  const hitOf = (id: string) => ({ lesson: index.lesson(docOf(id)), doc: docOf(id), applies: "unknown" as const, applyKeys: [], relevance: 0.5 });
  const evidence = (id: string, command: string, error: string) => failureEvidence(index, hitOf(id), readFailure(command, error));

  test("the words of a key line the lesson quotes in order, and how much of its quote the error holds", () => {
    const e = evidence("3c00000002", "make", "shape.cpp:(.text+0x1b): undefined reference to `vtable for Widget'\ncollect2: error: ld returned 1 exit status");
    expect(e.quoted).toEqual(["undefin", "referenc", "vtabl"]);
    expect(e.quote).toBe("undefined reference to `vtable for ShapeRenderer'");
    // The class name is this run's argument: it counts for little on either side.
    expect(e.quotedShare).toBeGreaterThan(0.6);
    expect(e.foundShare).toBeGreaterThan(0.6);
  });
  test("words the lesson uses only in prose, a severity label or a file name are no quote", () => {
    expect(evidence("3c00000002", "cc", "error: the compiler emits garbage").quoted).toEqual([]);
    expect(evidence("3c00000001", "cmake", "CMake Error at CMakeLists.txt:1 (project):").quoted).toEqual([]);
  });
  test("a compound name counts on its own", () => {
    expect(evidence("3c00000001", "cmake", "error: cache holds Eigen3_DIR-NOTFOUND").quoted).toContain("eigen3_dir-notfound");
  });
});

describe("error codes and programs", () => {
  test.each([
    ["npm ERR! code ERESOLVE", ["eresolve"]],
    ["error[E0382]: borrow of moved value", ["e0382"]],
    ["error NU1101: Unable to find package", ["nu1101"]],
    ["Main process exited, code=exited, status=203/EXEC", ["203/exec"]],
    ["Error [ERR_REQUIRE_ESM]: require() of ES Module", ["err_require_esm"]],
    ["ERROR: relation does not exist; export JAVA_HOME=/opt/jdk", []],
  ])("%s", (text, codes) => expect(errorCodes(text)).toEqual(codes));
  test("the command's program and the names that start its error lines", () => {
    expect(
      speakingPrograms([program("CC=gcc make -j8")], ["/usr/bin/ld: main.o: undefined reference", "npm ERR! code E404", "fatal: not a git repository"]),
    ).toEqual(["make", "ld", "npm"]);
  });
});

describe("failureVeto", () => {
  const base: FailureEvidence = {
    id: "x",
    relevance: 0.8,
    quoted: ["address", "alreadi", "use"],
    quotedShare: 0.9,
    foundShare: 0.9,
    codes: { failure: [], lesson: [], shared: [] },
    programs: ["nginx"],
    programMatch: true,
  };
  test.each<[string, Partial<FailureEvidence>, boolean]>([
    ["a strong quote of a lesson that names the program", {}, true],
    ["a quote of less than the minimum share of the line", { quotedShare: FAILURE_MIN_QUOTED - 0.01 }, false],
    ["a long quote the error holds little of", { foundShare: FAILURE_MIN_QUOTE_FOUND - 0.01 }, false],
    ["no quote", { quoted: [], quotedShare: 0, foundShare: 0 }, false],
    ["another error code of the same tool", { codes: { failure: ["e404"], lesson: ["eresolve"], shared: [] } }, false],
    [
      "a shared error code, even without a quoted phrase",
      { quoted: [], quotedShare: 0, foundShare: 0, codes: { failure: ["e0382"], lesson: ["e0382"], shared: ["e0382"] } },
      true,
    ],
    ["a lesson about another program with a middling quote", { programMatch: false, quotedShare: 0.6, foundShare: 0.6 }, false],
    ["a lesson about another program that quotes the whole line", { programMatch: false, quotedShare: 0.95, foundShare: 0.9 }, true],
    ["a program the knowledge base never names tells nothing", { programMatch: undefined, quotedShare: 0.6, foundShare: 0.6 }, true],
    ["a whole-line quote of what another program prints, that program being the lesson's subject", { otherSpeaker: "nginx", programs: ["httpd"] }, false],
    [
      "a whole-line quote of the same frame with another detail in it",
      { specifics: { frame: ["authentic", "fail"], slots: [], differs: { failure: ["password"], lesson: ["peer"] } } },
      false,
    ],
    [
      "a shared errno, the lesson naming another program, and no quote",
      { quoted: [], quotedShare: 0, foundShare: 0, programMatch: false, codes: { failure: ["eaddrinuse"], lesson: ["eaddrinuse"], shared: ["eaddrinuse"] } },
      false,
    ],
    [
      "a shared errno alone, even from the program the lesson is about",
      { quoted: [], quotedShare: 0, foundShare: 0, namedProgram: "nginx", codes: { failure: ["eacces"], lesson: ["eacces"], shared: ["eacces"] } },
      false,
    ],
    ["a shared errno with a quote", { codes: { failure: ["eacces"], lesson: ["eacces"], shared: ["eacces"] } }, true],
    [
      "a shared errno from a program the lesson only mentions",
      { quoted: [], quotedShare: 0, foundShare: 0, codes: { failure: ["eacces"], lesson: ["eacces"], shared: ["eacces"] } },
      false,
    ],
    [
      "a shared error code outweighs another word in the frame",
      {
        specifics: { frame: ["e0382", "mov", "valu"], slots: [{ failure: ["borrow"], lesson: ["use"], tolerated: "the same error code" }] },
        codes: { failure: ["e0382"], lesson: ["e0382"], shared: ["e0382"] },
      },
      true,
    ],
    [
      "but not swapped specifics",
      {
        specifics: { frame: ["e0308", "expect", "found"], slots: [], differs: { failure: ["str"], lesson: ["string"] } },
        codes: { failure: ["e0308"], lesson: ["e0308"], shared: ["e0308"] },
      },
      false,
    ],
  ])("%s", (_, change, injects) => expect(failureVeto({ ...base, ...change }) === undefined).toBe(injects));
});

describe("prompt recall names the prompt's topics", () => {
  const docOf = (id: string) => [...Array(index.size).keys()].find((i) => index.lesson(i).id === id)!;
  test("a folder name in the prompt that the lesson never mentions blocks it", () => {
    expect(index.topics).toEqual(expect.arrayContaining(["cmak", "cpp"]));
    expect(unnamedTopics(index, "vtable error in my cmake project", docOf("3c00000002"))).toEqual(["cmak"]);
    expect(unnamedTopics(index, "undefined reference to vtable for my class", docOf("3c00000002"))).toEqual([]);
    const d = recallDecision(index, searchKb({ index, query: "undefined reference to vtable with cmake", place: nowhere, limit: 2 }));
    expect(d.lesson).toBeUndefined();
  });
});

test("prompt recall needs the prompt's words in the lesson's title, tags or queries, not only its prose", () => {
  const docOf = (id: string) => [...Array(index.size).keys()].find((i) => index.lesson(i).id === id)!;
  const about = searchKb({ index, query: "undefined reference to vtable for my class", place: nowhere, limit: 2 });
  expect(subjectWords(index, about, docOf("3c00000002"))).toEqual(expect.arrayContaining(["vtabl"]));
  // "compiler emits" is only in the Cause of the vtable lesson.
  const prose = searchKb({ index, query: "why does the compiler emits nothing", place: nowhere, limit: 2 });
  expect(subjectWords(index, prose, docOf("3c00000002"))).toEqual([]);
});

describe("the same message frame with another detail is another error", () => {
  const kb = buildIndex(loadKb(join(import.meta.dir, "../fixtures/eval-kb")));
  const docOf = (id: string) => [...Array(kb.size).keys()].find((i) => kb.lesson(i).id === id)!;
  const judge = (id: string, command: string, error: string) => {
    const hit = { lesson: kb.lesson(docOf(id)), doc: docOf(id), applies: "unknown" as const, applyKeys: [], relevance: 0.5 };
    return failureEvidence(kb, hit, readFailure(command, error));
  };
  const UNREACHABLE = (detail: string) =>
    `fatal: [app3]: UNREACHABLE! => {"changed": false, "msg": "Failed to connect to the host via ssh: ${detail}", "unreachable": true}`;
  // 5c00000052: psql's "Peer authentication failed"; 5c000000a3: 'python' is not recognized…;
  // 5c00000061: nginx cannot bind port 80; 5c00000081: ansible UNREACHABLE with Permission denied (publickey).
  test.each<[string, string, string, string, boolean]>([
    [
      "the same error on another host and user",
      "5c00000081",
      "ansible-playbook -i hosts deploy.yml",
      UNREACHABLE("ops@192.168.1.20: Permission denied (publickey)."),
      true,
    ],
    [
      "the same frame, a timeout where the lesson has publickey",
      "5c00000081",
      "ansible-playbook -i hosts deploy.yml",
      UNREACHABLE("ssh: connect to host 10.0.3.7 port 22: Connection timed out"),
      false,
    ],
    [
      "peer authentication, as the lesson",
      "5c00000052",
      "psql -U app appdb",
      'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: FATAL:  Peer authentication failed for user "app"',
      true,
    ],
    [
      "password authentication over TCP",
      "5c00000052",
      "psql -h db.internal -U app appdb",
      'psql: error: connection to server at "db.internal" (10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user "app"',
      false,
    ],
    [
      "python not recognized, as the lesson",
      "5c000000a3",
      "python script.py",
      "'python' is not recognized as an internal or external command,\noperable program or batch file.",
      true,
    ],
    [
      "another command not recognized",
      "5c000000a3",
      "mvn clean install",
      "'mvn' is not recognized as an internal or external command,\noperable program or batch file.",
      false,
    ],
    [
      "nginx's bind error",
      "5c00000061",
      "sudo nginx",
      "nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)\nnginx: [emerg] still could not bind()",
      true,
    ],
    ["the same words printed by httpd", "5c00000061", "sudo httpd -k start", "httpd: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)", false],
  ])("%s", (_, id, command, error, injects) => {
    const e = judge(id, command, error);
    expect(failureVeto(e) === undefined).toBe(injects);
    if (!injects) expect(failureEvidenceLine(e)).toMatch(/not injectable: .*(where .* quotes|quotes what .* prints)/);
  });
});

describe("errors as tools print them", () => {
  test("colour codes, journal, ISO and klog prefixes and terraform's box are not the message", () => {
    const error = [
      "\u001b[1m\u001b[31merror[E0382]\u001b[0m: borrow of moved value",
      "Nov 02 11:03:44 web1 systemd[1]: api.service: Failed with result 'start-limit-hit'.",
      "2026-11-02T11:03:44.120Z worker crashed",
      "E1128 10:02:11.123456   48213 memcache.go:265] couldn't get current server API group list",
      "│ Error: Invalid count argument",
    ].join("\n");
    expect(failureTextOf(error).split("\n")).toEqual([
      "error[E0382]: borrow of moved value",
      "systemd: api.service: Failed with result 'start-limit-hit'.",
      "worker crashed",
      "couldn't get current server API group list",
      "Error: Invalid count argument",
    ]);
  });
  test("a wrapped sentence is one line; a new message, a stack frame or a quoted source line is not its continuation", () => {
    const wrapped =
      "The virtual environment was not created successfully because ensurepip is not\navailable.  On Debian/Ubuntu systems, you need to install the python3-venv";
    expect(failureTextOf(wrapped).split("\n")).toHaveLength(1);
    for (const apart of [
      "/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 exit status",
      "Error: listen EADDRINUSE: address already in use :::3000 by the old instance\n    at Server.setupListenHandle (node:net:1817:16)",
      "Sources/App/Client.swift:2:8: error: no such module 'Alamofire'\nimport Alamofire",
    ])
      expect(failureTextOf(apart).split("\n")).toHaveLength(2);
  });
  test("only a lower-case name before a colon is a program: not a field label, an exception class or a severity", () => {
    expect(
      speakingPrograms(
        [program("systemctl status api")],
        [
          "Active: failed (Result: start-limit-hit)",
          "ModuleNotFoundError: No module named 'x'",
          "Caused by: java.lang.IllegalStateException",
          "psql: error: connection to server failed",
        ],
      ),
    ).toEqual(["systemctl", "psql"]);
  });
  test("typographic quotes read as ASCII ones", () => {
    expect(failureTextOf("/usr/bin/env: ‘bash\\r’: No such file or directory")).toBe("/usr/bin/env: 'bash\\r': No such file or directory");
  });
  test("a command run in a container, a pod or over ssh fails too", () => {
    expect(readFailure("docker compose exec app systemctl status cron", "").programs).toEqual(["docker", "systemctl"]);
    expect(readFailure("kubectl exec -it web-0 -- psql -U app", "").programs).toEqual(["kubectl", "psql"]);
    expect(readFailure("ssh -p 2222 build01 'ninja -C build'", "").programs).toEqual(["ssh", "ninja"]);
    expect(readFailure("docker run --rm -v /srv:/data alpine touch /data/probe", "").programs).toEqual(["docker", "touch"]);
    expect(readFailure("ssh hpc-login2", "").programs).toEqual(["ssh"]);
    expect(readFailure("kubectl get pods", "").programs).toEqual(["kubectl"]);
  });
  test("a location in a line is noise, as a path or a number", () => {
    expect(failureLinesOf("bash: line 1: ninja: command not found")).toEqual(["bash: : ninja: command not found"]);
  });
  test("a long chain of causes is read from its root cause first", () => {
    const chain =
      "[ERROR] Failed to execute goal on project orders: Could not resolve dependencies for project org.example:orders:jar:2.1.0: Failed to collect dependencies at com.google.guava:guava:jar:33.0.0-jre: Could not transfer artifact com.google.guava:guava:pom:33.0.0-jre from/to central: PKIX path building failed: unable to find valid certification path to requested target";
    const [first, second] = failureLinesOf(chain);
    expect(first).toEndWith("PKIX path building failed: unable to find valid certification path to requested target");
    expect(first).not.toContain("execute goal");
    expect(second).toStartWith("[ERROR] Failed to execute goal");
    expect(failureLinesOf("error: cannot open file: No such file or directory")).toHaveLength(1);
  });
});

test("a lesson that quotes the error's variant elsewhere covers it", () => {
  const kb = buildIndex(loadKb(join(import.meta.dir, "../fixtures/eval-kb")));
  const judge = (error: string) => {
    const doc = [...Array(kb.size).keys()].find((i) => kb.lesson(i).id === "5c00000045")!;
    const hit = { lesson: kb.lesson(doc), doc, applies: "unknown" as const, applyKeys: [], relevance: 0.5 };
    return failureEvidence(kb, hit, readFailure("terraform plan", error));
  };
  // 5c00000045 quotes "Error: Invalid count argument" and names `for_each` in its cause; it never names `depends_on`.
  expect(failureVeto(judge("Error: Invalid for_each argument"))).toBeUndefined();
  expect(failureVeto(judge("Error: Invalid depends_on argument"))).toBeDefined();
});

test("a lesson filed where the knowledge base files the failing program's lessons is about that program", () => {
  const kb = buildIndex(loadKb(join(import.meta.dir, "../fixtures/eval-kb")));
  const doc = [...Array(kb.size).keys()].find((i) => kb.lesson(i).id === "5c00000054")!;
  const hit = { lesson: kb.lesson(doc), doc, applies: "unknown" as const, applyKeys: [], relevance: 0.5 };
  // The lesson is about the PostgreSQL server and never names psql; psql's lessons live in postgres/ beside it.
  const error = 'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: FATAL:  sorry, too many clients already';
  const e = failureEvidence(kb, hit, readFailure("psql -d appdb", error));
  expect(e.namedProgram).toBeUndefined();
  expect(e.filedWith?.program).toBe("psql");
  expect(e.programMatch).toBe(true);
  expect(failureVeto(e)).toBeUndefined();
  expect(failureEvidenceLine(e)).toContain("with psql's lessons");
});

test("a lesson's queries are quotes of the errors it answers", () => {
  const { kb } = sandbox("rkb-query-quotes");
  const lesson = (id: string, title: string, extra: string) =>
    `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: active\n${extra}verified: 2026-10-01\nverified_how: ran\n---\n\n# ${title}\n\n## Symptom\nThe deploy stops early.\n\n## Cause\nThe ${title.toLowerCase()}.\n\n## Fix\nFix it.\n\n## Evidence\nIt worked.\n`;
  writeFile(join(kb, "general/deploy/quota.md"), lesson("3c0000cc01", "Release quota", "queries:\n  - release quota reached for the shipping project\n"));
  for (const [i, topic] of ["git rebase conflicts", "python virtual environments", "ssh agent forwarding", "latex bibliography"].entries())
    writeFile(join(kb, `general/misc/filler-${i}.md`), lesson(`3c0000dd0${i}`, `Notes on ${topic}`, ""));
  const idx = buildIndex(loadKb(kb));
  const d = decideFailureIn(idx, nowhere, new Map(), readFailure("shipit deploy", "shipit: error: release quota reached: 42 of 42 releases this week"));
  expect(d.lesson?.id).toBe("3c0000cc01");
});

describe("a failure read once", () => {
  test("what it runs, its exit code, and its error as printed and as the rule reads it", () => {
    const f = readFailure(
      "sudo docker compose exec app systemctl restart api",
      "Exit code 1\n\u001b[31mJob for api.service failed\u001b[0m because the control process exited with error code.\nSee 'systemctl status api.service' for details.",
    );
    expect([f.program, f.launched, f.exitCode]).toEqual(["docker", "systemctl", 1]);
    expect(f.output).toStartWith("\u001b[31mJob for api.service failed");
    expect(f.outputLines).toEqual(["\u001b[31mJob for api.service failed\u001b[0m because the control process exited with error code."]);
    expect(f.keyLines).toEqual(["Job for api.service failed because the control process exited with error code."]);
    expect(f.programs).toEqual(["docker", "systemctl"]);
    expect(f.signature).toMatch(/^[0-9a-f]{24}$/);
  });
  test("output a session reader already freed of the trailer is kept as it is", () => {
    expect(failureOf("make", "Command exited with code 2").output).toBe("Command exited with code 2");
    expect(readFailure("make", "Command exited with code 2").output).toBe("");
  });
});
