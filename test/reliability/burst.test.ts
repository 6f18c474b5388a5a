import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_KB_TOML, parseKbToml } from "../../cli/lesson/config.ts";
import { BIN, gitIn, rkb, sandbox, type Sandbox, factLesson } from "../helpers.ts";

// Agent writes have a burst limit, and archiving a whole folder asks first: the command stops with
// exit 3 `needs_user`, writes nothing, and names the `rkb confirm` the person runs in their own
// terminal. Confirm needs that terminal: here a pseudo-terminal from `script`, and none under `setsid`.

/** A knowledge base whose burst limit is 3 commits per 10 minutes (init and this config are 2 of them). */
async function kbBox(): Promise<Sandbox & { agent: Record<string, string> }> {
  const box = sandbox();
  expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
  writeFileSync(join(box.kb, "kb.toml"), readFileSync(join(box.kb, "kb.toml"), "utf8") + "\n[writes]\nburst = 3\n");
  gitIn(box.kb, box.env, "commit", "-q", "--no-verify", "-am", "burst 3");
  return { ...box, agent: { ...box.env, RKB_HARNESS: "pi", RKB_SESSION: "session-1" } };
}

/** The stored request, as the state database holds it. */
function requestRow(box: Sandbox, id: string): string | undefined {
  const db = new Database(join(box.home, ".local/state", "rkb", "cursors.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT data FROM request WHERE id = ?").get(id) as { data: string } | null)?.data;
  } finally {
    db.close();
  }
}

const commits = (box: Sandbox) => Number(gitIn(box.kb, box.env, "rev-list", "--count", "HEAD").trim());
const addAs = (env: Record<string, string>, title: string) => rkb(["add", "--topic", "burst", "--format", "json"], { env, stdin: factLesson(title) });

/** Runs `rkb confirm` on a pseudo-terminal where the person types `answer`. */
function confirmOnTerminal(box: Sandbox, id: string, choice: string, answer: string): { out: string; exit: number } {
  const cmd = `${BIN} confirm ${id} --choice '${choice}' --format json`;
  const p = Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], { env: box.env, stdin: Buffer.from(answer + "\n"), stdout: "pipe", stderr: "pipe" });
  return { out: p.stdout.toString(), exit: p.exitCode ?? 1 };
}

/** Runs `rkb confirm` in a new session, without a controlling terminal (as an agent's background shell). */
async function confirmWithoutTerminal(box: Sandbox, id: string, choice: string) {
  const p = Bun.spawn(["setsid", "-w", BIN, "confirm", id, "--choice", choice, "--format", "json"], {
    env: box.env,
    stdin: new Blob(["yes\n"]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, exit] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return { exit, json: JSON.parse(out) };
}

describe("the burst limit on agent writes", () => {
  test("past the limit an agent write stops with needs_user and writes nothing; a person's write goes on", async () => {
    const box = await kbBox();
    expect((await addAs(box.agent, "First agent fact")).exit).toBe(0);
    const before = commits(box);
    const stopped = await addAs(box.agent, "One agent fact too many");
    expect(stopped.exit).toBe(3);
    // As in the Rust rkb, the write's outcome, not an error record.
    const err = stopped.json();
    expect(err.status).toBe("needs_user");
    expect(err.question).toContain("3 writes");
    expect(err.options).toEqual(["continue", "cancel"]);
    expect(err.request).toMatch(/^r-[0-9a-f]{6}$/);
    expect(err.next).toBe(`rkb confirm ${err.request} --choice "continue"`);
    expect(err.help[0]).toContain("in their own terminal");
    expect(commits(box)).toBe(before);
    expect(readdirSync(join(box.kb, "general", "burst"))).toEqual(["first-agent-fact.md"]);
    expect(gitIn(box.kb, box.env, "status", "--porcelain")).toBe("");
    // Kept in the state database (mode 600; it holds the lesson text), never in <state>/requests/,
    // the Rust rkb's folder for its own requests.
    const state = join(box.home, ".local/state", "rkb");
    expect(statSync(join(state, "cursors.sqlite")).mode & 0o777).toBe(0o600);
    expect(requestRow(box, err.request)).toContain("One agent fact too many");
    expect(existsSync(join(state, "requests"))).toBe(false);
    // The agent's tool call is an agent write too, with no harness in the environment.
    const tool = await rkb(["tool", "rkb_add", "--format", "json"], {
      env: box.env,
      stdin: JSON.stringify({ type: "fact", title: "Through the tool", topic: "burst", statement: "It holds.", evidence: "Read it." }),
    });
    expect(tool.exit).toBe(3);
    expect(tool.json().status).toBe("needs_user");
    // People read the question, the options and the command that answers it, on stdout.
    const human = await rkb(["add", "--topic", "burst"], { env: box.agent, stdin: factLesson("Asked in plain text") });
    expect(human.exit).toBe(3);
    expect(human.stdout).toMatch(
      /^Needs your decision:\n.*3 writes.*\nOptions: "continue", "cancel"\nAnswer with: rkb confirm r-[0-9a-f]{6} --choice "continue"\n$/,
    );
    // An invalid write is refused for what it is, never asked about.
    const invalid = await rkb(["add", "--topic", "burst", "--format", "json"], { env: box.agent, stdin: "---\ntype: fact\n---\n\nno title\n" });
    expect(invalid.exit).toBe(1);
    expect(invalid.json().error.code).not.toBe("needs_user");
    // A person at their own terminal is not limited.
    expect((await addAs(box.env, "A person's fact")).exit).toBe(0);
  });

  test("confirm: unknown or expired request, a choice not offered, no terminal are exit-1 errors (as in the Rust rkb); yes on the terminal writes and opens a grace window", async () => {
    const box = await kbBox();
    await addAs(box.agent, "First agent fact");
    const req = (await addAs(box.agent, "Asked about")).json();
    const unknown = await rkb(["confirm", "r-000000", "--choice", "continue", "--format", "json"], { env: box.env });
    expect(unknown.exit).toBe(1);
    expect(unknown.json().error.code).toBe("expired");
    const traversal = await rkb(["confirm", "../../kb.toml", "--choice", "continue", "--format", "json"], { env: box.env });
    expect(traversal.exit).toBe(1);
    expect(traversal.json().error.code).toBe("expired");
    const bad = await rkb(["confirm", req.request, "--choice", "sure", "--format", "json"], { env: box.env });
    expect(bad.exit).toBe(1);
    expect(bad.json().error.code).toBe("bad_choice");
    expect(bad.json().error.options).toEqual(["continue", "cancel"]);
    const noTerminal = await confirmWithoutTerminal(box, req.request, "continue");
    expect(noTerminal.exit).toBe(1);
    expect(noTerminal.json.error.code).toBe("needs_terminal");
    expect(noTerminal.json.error.fix).toContain(`rkb confirm ${req.request} --choice "continue"`);
    const refused = confirmOnTerminal(box, req.request, "continue", "no");
    expect(refused.exit).toBe(1);
    expect(refused.out).toContain("refused");
    expect(existsSync(join(box.kb, "general", "burst", "asked-about.md"))).toBe(false);
    const yes = confirmOnTerminal(box, req.request, "continue", "yes");
    expect(yes.exit).toBe(0);
    expect(yes.out).toContain('"status":"written"');
    expect(readFileSync(join(box.kb, "general", "burst", "asked-about.md"), "utf8")).toContain("# Asked about");
    expect(gitIn(box.kb, box.env, "log", "-1", "--format=%s")).toContain("add(general/burst): Asked about");
    // Answered once: the request is gone.
    expect((await rkb(["confirm", req.request, "--choice", "continue", "--format", "json"], { env: box.env })).json().error.code).toBe("expired");
    // `continue` opened a grace window for that session; another session is still asked.
    expect((await addAs(box.agent, "Within the grace window")).exit).toBe(0);
    expect((await addAs({ ...box.agent, RKB_SESSION: "session-2" }, "Another session")).exit).toBe(3);
    // The window is kept in the state database, not in a file beside it.
    const state = join(box.home, ".local/state", "rkb");
    const db = new Database(join(state, "cursors.sqlite"), { readonly: true });
    expect((db.query("SELECT count(*) AS n FROM burst_grace").get() as { n: number }).n).toBe(1);
    db.close();
    expect(readdirSync(state).filter((f) => f.endsWith(".json"))).toEqual([]);
  });

  test("cancel needs no terminal and writes nothing", async () => {
    const box = await kbBox();
    await addAs(box.agent, "First agent fact");
    const req = (await addAs(box.agent, "Cancelled")).json();
    const before = commits(box);
    const r = await confirmWithoutTerminal(box, req.request, "cancel");
    expect(r.exit).toBe(0);
    expect(r.json.status).toBe("cancelled");
    expect(commits(box)).toBe(before);
    expect((await rkb(["confirm", req.request, "--choice", "cancel", "--format", "json"], { env: box.env })).exit).toBe(1);
    // A request older than an hour has expired, and is removed.
    const old = (await addAs(box.agent, "Asked too long ago")).json();
    const db = new Database(join(box.home, ".local/state", "rkb", "cursors.sqlite"));
    db.query("UPDATE request SET created = created - 3601 WHERE id = ?").run(old.request);
    db.close();
    const expired = await rkb(["confirm", old.request, "--choice", "cancel", "--format", "json"], { env: box.env });
    expect(expired.exit).toBe(1);
    expect(expired.json().error.code).toBe("expired");
    expect(requestRow(box, old.request)).toBeUndefined();
  });

  test("the Rust rkb's requests in <state>/requests/ stay; an older rkb's own request files there are removed", async () => {
    const box = await kbBox();
    const folder = join(box.home, ".local/state", "rkb", "requests");
    mkdirSync(folder, { recursive: true });
    // The Rust rkb's shape: created in epoch seconds, an `action`; an older rkb of ours wrote `write`.
    const rust = JSON.stringify({ id: "r-0a0b0c", created: 1, action: { kind: "archive" }, approved: [], question: "q", choices: [], session: "s" });
    writeFileSync(join(folder, "r-0a0b0c.json"), rust);
    writeFileSync(join(folder, "r-1a1b1c.json"), JSON.stringify({ id: "r-1a1b1c", created: Date.now(), options: ["continue", "cancel"], write: {} }));
    await addAs(box.agent, "First agent fact");
    const asked = (await addAs(box.agent, "Asked while the Rust rkb waits too")).json();
    expect(asked.status).toBe("needs_user");
    expect(readdirSync(folder)).toEqual(["r-0a0b0c.json"]);
    expect(readFileSync(join(folder, "r-0a0b0c.json"), "utf8")).toBe(rust);
    expect((await confirmWithoutTerminal(box, asked.request, "cancel")).json.status).toBe("cancelled");
    expect(readFileSync(join(folder, "r-0a0b0c.json"), "utf8")).toBe(rust);
  });

  test("the default limit is the Rust rkb's: 30 writes, 10 minutes of grace", () => {
    const config = parseKbToml(DEFAULT_KB_TOML);
    expect(config.writes).toEqual({ burst: 30, graceMs: 600_000 });
  });
});

test("archiving a whole folder asks first, then archives every lesson in one commit", async () => {
  const box = await kbBox();
  for (const t of ["Old cluster fact one", "Old cluster fact two"])
    expect((await rkb(["add", "--topic", "old", "--format", "json"], { env: box.env, stdin: factLesson(t) })).exit).toBe(0);
  const before = commits(box);
  const asked = await rkb(["archive", "general/old", "--reason", "the cluster was retired", "--format", "json"], { env: box.env });
  expect(asked.exit).toBe(3);
  const err = asked.json();
  expect(err.status).toBe("needs_user");
  expect(err.options).toEqual(["archive general/old", "cancel"]);
  expect(err.question).toContain("archive all 2 lessons under general/old");
  expect(commits(box)).toBe(before);
  const yes = confirmOnTerminal(box, err.request, "archive general/old", "yes");
  expect(yes.exit).toBe(0);
  expect(gitIn(box.kb, box.env, "log", "-1", "--format=%s")).toBe("archive(general/old): 2 lessons\n");
  for (const name of readdirSync(join(box.kb, "general", "old")))
    expect(readFileSync(join(box.kb, "general", "old", name), "utf8")).toContain("status: archived");
});

/** Runs rkb on a pseudo-terminal (stdin and stdout a terminal) where the person types `typed`. */
function rkbOnTerminal(env: Record<string, string>, args: string[], typed: string): { out: string; exit: number } {
  const cmd = [BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const p = Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], { env, stdin: Buffer.from(typed), stdout: "pipe", stderr: "pipe" });
  return { out: p.stdout.toString(), exit: p.exitCode ?? 1 };
}

describe("a person at their own terminal answers at once, from a menu", () => {
  async function oldFolder() {
    const box = await kbBox();
    for (const t of ["Old cluster fact one", "Old cluster fact two"])
      expect((await rkb(["add", "--topic", "old", "--format", "json"], { env: box.env, stdin: factLesson(t) })).exit).toBe(0);
    return box;
  }

  test("a number picks the option: the write is made, with no second command", async () => {
    const box = await oldFolder();
    const r = rkbOnTerminal(box.env, ["archive", "general/old", "--reason", "the cluster was retired"], "9\n1\n");
    expect(r.out).toContain("Needs your decision:");
    expect(r.out).toContain("  1. archive general/old");
    expect(r.out).toContain("  2. cancel");
    expect(r.exit).toBe(0);
    expect(gitIn(box.kb, box.env, "log", "-1", "--format=%s")).toBe("archive(general/old): 2 lessons\n");
  });

  test("Enter cancels and writes nothing; an agent's environment gets no menu", async () => {
    const box = await oldFolder();
    const before = commits(box);
    const cancelled = rkbOnTerminal(box.env, ["archive", "general/old", "--reason", "retired"], "\n");
    expect(cancelled.out).toMatch(/cancelled r-[0-9a-f]{6}; nothing was written/);
    expect(cancelled.exit).toBe(0);
    const agent = rkbOnTerminal({ ...box.env, RKB_HARNESS: "pi" }, ["archive", "general/old", "--reason", "retired"], "1\n");
    expect(agent.exit).toBe(3);
    expect(agent.out).not.toContain("Your choice");
    expect(agent.out).toContain("Answer with: rkb confirm r-");
    expect(commits(box)).toBe(before);
  });
});
