// The QA attacks on the Gemini CLI reader (JSON lines and the older one-document JSON) and on
// opencode's SQLite store: files as they come out of crashes, copies, editors and other tools.
// Sessions are written here, record by record, in the shapes the two programs write.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findSessionFiles } from "../../cli/sessions/extract.ts";
import { readSession, type SessionRead } from "../../cli/sessions/reader.ts";
import { opencodeStore, recordedOpencode, rkb, sandbox } from "../helpers.ts";

const T = "2026-12-01T10:00:00.000Z";
const HEADER = { sessionId: "attack-1", projectHash: "a".repeat(64), startTime: T, lastUpdated: T, kind: "main" };
const user = (id: string, text: string) => ({ id, timestamp: T, type: "user", content: [{ text }] });
/** A model record running one shell command, as Gemini CLI writes it once the command ended. */
function shell(id: string, command: string, output: string, exit: number) {
  const sent = `Command: ${command}\nDirectory: (root)\nOutput: ${output}\nError: (none)\n${exit ? `Exit Code: ${exit}\n` : ""}Signal: 0\nBackground PIDs: (none)\nProcess Group PGID: 4242`;
  const call = { id: `call-${id}`, name: "run_shell_command", args: { command }, status: "success", timestamp: T, resultDisplay: output };
  return {
    id,
    timestamp: T,
    type: "gemini",
    content: "",
    toolCalls: [{ ...call, result: [{ functionResponse: { id: call.id, name: call.name, response: { output: sent } } }] }],
  };
}
const SESSION = [
  user("u1", "build it"),
  shell("g1", "make", "cc: error: zlib.h: No such file or directory", 2),
  shell("g2", "apt-get install zlib1g-dev", "done", 0),
  shell("g3", "make", "ok", 0),
];
const jsonLines = (records: unknown[]) => [HEADER, ...records].map((r) => JSON.stringify(r)).join("\n") + "\n";
const document = (records: unknown[]) => JSON.stringify({ ...HEADER, messages: records }, null, 2);
const commands = (r: SessionRead) => r.events.flatMap((e) => (e.kind === "command" ? [`${e.command}:${e.ok ? "ok" : `exit ${e.exitCode}`}`] : []));
const EXPECTED = ["make:exit 2", "apt-get install zlib1g-dev:ok", "make:ok"];

function file(name: string, text: string | Buffer): string {
  const path = join(sandbox("rkb-programs-attack").dir, name);
  writeFileSync(path, text);
  return path;
}

describe("Gemini CLI sessions as they come", () => {
  test("a command whose own output prints an `Exit Code: 0` line failed all the same: Gemini CLI's trailer comes last", async () => {
    const noisy = shell("g1", "make test", "suite a\nExit Code: 0\nsuite b failed", 2);
    for (const path of [file("s.jsonl", jsonLines([user("u1", "test"), noisy])), file("session-x.json", document([user("u1", "test"), noisy]))])
      expect(commands(await readSession(path))).toEqual(["make test:exit 2"]);
  });

  test("/rewind (`$rewindTo`): the records from the named one on are gone, as when Gemini CLI loads the file; not a skipped line", async () => {
    const tried = [user("u2", "use cmake instead"), shell("g9", "cmake .", "CMake Error: no CMakeLists.txt", 1)];
    const lines = jsonLines([SESSION[0], SESSION[1], ...tried, { $rewindTo: "u2" }, SESSION[2], SESSION[3]]);
    const r = await readSession(file("s.jsonl", lines));
    expect(r.skipped).toEqual([]);
    expect(commands(r)).toEqual(EXPECTED);
    // Rewound to a record an earlier read saw: all this read holds before the rewind is gone.
    const path = file("s.jsonl", jsonLines([SESSION[0], SESSION[1]]));
    const first = await readSession(path);
    writeFileSync(path, `${readFileSync(path, "utf8")}${[...tried, { $rewindTo: "u1" }, SESSION[2]].map((x) => JSON.stringify(x)).join("\n")}\n`);
    const next = await readSession(path, { fromOffset: first.endOffset, fromLine: first.endLine, harness: "gemini" });
    expect(commands(next)).toEqual(["apt-get install zlib1g-dev:ok"]);
  });

  test("a prompt naming a file with @: the user's words are what they typed, not the file's text Gemini CLI sent with them", async () => {
    const files = "--- Content from referenced files ---\nContent from @NOTES.md:\nremember: always vendor zlib\nno, never use cmake\n--- End of content ---";
    const sent = { id: "u1", timestamp: T, type: "user", content: [{ text: "summarize @NOTES.md" }, { text: files }] };
    const typed = { ...sent, displayContent: [{ text: "summarize @NOTES.md" }] };
    for (const record of [typed, sent]) {
      const r = await readSession(file("s.jsonl", jsonLines([record])));
      expect(r.events).toMatchObject([{ kind: "user", text: "summarize @NOTES.md" }]);
    }
  });

  test("a byte-order mark before the first line: the header is read (JSON lines), the document is a session (older JSON)", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    for (const path of [
      file("s.jsonl", Buffer.concat([bom, Buffer.from(jsonLines(SESSION))])),
      file("session-x.json", Buffer.concat([bom, Buffer.from(document(SESSION))])),
    ]) {
      const r = await readSession(path);
      expect(r).toMatchObject({ kind: "session", harness: "gemini", sessionId: "attack-1", skipped: [] });
      expect(commands(r)).toEqual(EXPECTED);
    }
  });

  test("CRLF line ends (a Windows checkout of an archive): the same events as LF", async () => {
    const crlf = (text: string) => text.replaceAll("\n", "\r\n");
    for (const path of [file("s.jsonl", crlf(jsonLines(SESSION))), file("session-x.json", crlf(document(SESSION)))]) {
      const r = await readSession(path);
      expect(r).toMatchObject({ kind: "session", sessionId: "attack-1", skipped: [] });
      expect(commands(r)).toEqual(EXPECTED);
    }
  });

  test("an older session cut off in the middle (copied while Gemini CLI wrote it) is named as that, with its last line", async () => {
    const whole = document(SESSION);
    const cut = whole.slice(0, whole.indexOf("apt-get"));
    const r = await readSession(file("session-x.json", cut));
    expect(r.kind).toBe("not-session");
    expect(r.looksLike).toBe(`a Gemini CLI session (one JSON document) cut off after line ${cut.split("\n").length} (copied while Gemini CLI wrote it?)`);
  });

  test("an older session of 50 MB with the failure at its end: read whole, the failure found", async () => {
    const chatter = Array.from({ length: 25_000 }, (_, i) => user(`c${i}`, `note ${i} ${"x".repeat(2_000)}`));
    const path = file("session-big.json", document([...chatter, ...SESSION]));
    expect(readFileSync(path).length).toBeGreaterThan(50 * 1024 * 1024);
    const r = await readSession(path);
    expect(r.counts.userMessages).toBe(25_001);
    expect(commands(r)).toEqual(EXPECTED);
  });

  test("arguments nested a million levels deep: read, nothing thrown", async () => {
    const deep = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`;
    const record = JSON.stringify(shell("g1", "make", "boom", 2)).replace('"args":{', `"args":{"deep":${deep},`);
    const r = await readSession(file("s.jsonl", `${JSON.stringify(HEADER)}\n${record}\n`));
    expect(commands(r)).toEqual(["make:exit 2"]);
  });

  test("record kinds rkb does not know in an older session are skipped and counted, as in JSON lines", async () => {
    const r = await readSession(file("session-x.json", document([...SESSION, { id: "h1", timestamp: T, type: "hologram" }])));
    expect(r.skipped).toEqual([{ line: 5, reason: 'unknown record type "hologram"' }]);
  });

  test("an older session Gemini CLI resumed (it copies it into <name>.jsonl and writes on there): one session, one item", async () => {
    const box = sandbox("rkb-gemini-resumed");
    const chats = join(box.dir, "tmp", "app", "chats");
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, "session-x.json"), document(SESSION));
    writeFileSync(join(chats, "session-x.jsonl"), jsonLines([...SESSION, user("u9", "thanks")]));
    const run = await rkb(["extract", box.dir, "--format", "json"], { env: box.env });
    expect(run.json()).toMatchObject({ sessions: 1, items_written: 1, fixed: 1 });
    expect(run.json().files.map((f: any) => f.path)).toEqual([join(chats, "session-x.jsonl")]);
  });

  test("an older session read again after it grew (Gemini CLI writes it whole each time): only the new records make an item", async () => {
    const box = sandbox("rkb-gemini-regrow");
    const path = join(box.dir, "session-x.json");
    writeFileSync(path, document(SESSION));
    expect((await rkb(["extract", path], { env: box.env })).exit).toBe(0);
    const remember = user("u2", "remember: zlib1g-dev is needed before make");
    writeFileSync(path, document([...SESSION, remember]));
    const second = await rkb(["extract", path, "--format", "json"], { env: box.env });
    expect(second.json()).toMatchObject({ items_written: 1, fixed: 0, remember: 1 });
    // A model turn still running its command is read once it ended, whole.
    const running = { ...shell("g4", "make install", "", 0), toolCalls: [{ ...shell("g4", "make install", "", 0).toolCalls[0]!, status: "executing" }] };
    writeFileSync(path, document([...SESSION, remember, running]));
    expect((await rkb(["extract", path, "--format", "json"], { env: box.env })).json()).toMatchObject({ items_written: 0 });
    writeFileSync(path, document([...SESSION, remember, shell("g4", "make install", "cp: permission denied", 1)]));
    expect((await rkb(["extract", path, "--format", "json"], { env: box.env })).json()).toMatchObject({ failed: 1 });
  });
});

const RECORDED = recordedOpencode();
const OC_SESSION = RECORDED.session[0]!.id as string;

function store(): string {
  const db = join(sandbox("rkb-opencode-attack").dir, "opencode.db");
  opencodeStore(db);
  return db;
}

describe("opencode's store as it comes", () => {
  test("reading the store leaves nothing beside it (no -wal, no -shm: rkb writes only its own folders)", async () => {
    const db = store();
    const dir = join(db, "..");
    const before = readdirSync(dir).sort();
    expect(findSessionFiles([db], dir).files.map((f) => f.path)).toEqual([`${db}#${OC_SESSION}`]);
    expect((await readSession(`${db}#${OC_SESSION}`)).counts.failedBash).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  test("a store opencode is writing (its log open, a write not committed): the committed session is read", async () => {
    const db = store();
    const writer = new Database(db);
    writer.exec("PRAGMA journal_mode = WAL");
    writer.exec("BEGIN IMMEDIATE");
    writer.query("UPDATE part SET data = '{' WHERE session_id = ?").run(OC_SESSION);
    try {
      expect(existsSync(`${db}-wal`)).toBe(true);
      const r = await readSession(`${db}#${OC_SESSION}`);
      expect(r.counts.failedBash).toBe(2);
      expect(r.skipped).toEqual([]);
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
    }
  });

  test("a row whose time is no time (a damaged or hand-made store) loses its time, not the session", async () => {
    const db = store();
    const edit = new Database(db);
    edit.exec("UPDATE session SET time_created = 1e20");
    edit.exec("UPDATE message SET time_created = 'yesterday'");
    edit.close();
    const r = await readSession(`${db}#${OC_SESSION}`);
    expect(r.kind).toBe("session");
    expect(r.startedAt).toBeUndefined();
    expect(r.counts.failedBash).toBe(2);
  });

  test("a damaged, a cut-off and a foreign SQLite file: each named with SQLite's reason and what to do", () => {
    const good = readFileSync(store());
    const damaged = Buffer.from(good);
    damaged.fill(0x41, 1500, 4500);
    const foreign = join(sandbox("rkb-opencode-foreign").dir, "opencode-other.db");
    const other = new Database(foreign);
    other.exec("CREATE TABLE notes (a)");
    other.close();
    const cases: [string, RegExp][] = [
      [file("opencode.db", damaged), /^is an SQLite file rkb cannot read \(SQLite: .+\); copy the store again, with opencode stopped/],
      [file("opencode.db", good.subarray(0, good.length / 2 + 100)), /^is an SQLite file rkb cannot read \(SQLite: .+\); copy the store again/],
      [foreign, /^is an SQLite file but not opencode's store \(SQLite: no such table: session\); pass opencode's opencode\.db/],
    ];
    for (const [path, message] of cases) {
      const found = findSessionFiles([path], "/");
      expect(found.files).toEqual([]);
      expect(found.problems).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
  });

  test("a store whose writer died mid-write (its journal beside it): named, not read half-written", async () => {
    const db = store();
    // In rollback-journal mode, pages spilled to the file before the kill: the store holds a write that never ended.
    const writer = `const { Database } = require("bun:sqlite"); const s = new Database(${JSON.stringify(db)});
      s.exec("PRAGMA journal_mode = DELETE"); s.exec("PRAGMA cache_size = 1"); s.exec("BEGIN"); s.exec("UPDATE part SET data = '{}'");
      s.exec("CREATE TABLE filler (x)"); for (let i = 0; i < 2000; i++) s.query("INSERT INTO filler VALUES (?)").run("y".repeat(1000));
      process.kill(process.pid, "SIGKILL");`;
    Bun.spawnSync([process.execPath, "-e", writer]);
    expect(existsSync(`${db}-journal`)).toBe(true);
    await expect(readSession(`${db}#${OC_SESSION}`)).rejects.toThrow(/has the journal of a write that never ended/);
  });

  test("a session name `<file>#ses_…` for a file that is no SQLite file: named as that", () => {
    const path = `${file("s.jsonl", jsonLines(SESSION))}#ses_1`;
    expect(findSessionFiles([path], "/").problems).toEqual([]);
    return expect(readSession(path)).rejects.toThrow(/s\.jsonl is no SQLite file \(opencode's store is one\)/);
  });

  test("`rkb extract <db>#<session>`, the name extract itself gives a session of the store, reads that session", async () => {
    const box = sandbox("rkb-opencode-source");
    const db = join(box.dir, "opencode.db");
    opencodeStore(db);
    const run = await rkb(["extract", `${db}#${OC_SESSION}`, "--dry-run", "--format", "json"], { env: box.env });
    expect(run.json()).toMatchObject({ sessions: 1, failed: 2, problems: [] });
  });

  test("a secret in a tool's output and in a command, the home in the session's folder: nothing of them is kept", async () => {
    const box = sandbox("rkb-opencode-secret");
    const db = join(box.dir, "opencode.db");
    opencodeStore(db);
    const edit = new Database(db);
    edit.query("UPDATE session SET directory = ?").run(join(box.home, "work", "zlibapp"));
    for (const row of edit.query("SELECT id, data FROM part").all() as { id: string; data: string }[]) {
      const part = JSON.parse(row.data);
      if (part.type !== "tool" || part.state?.metadata?.exit !== 1) continue;
      part.state.input.command += " --token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
      part.state.output += `\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzEXAMPLE\nin ${box.home}/work/zlibapp/build`;
      edit.query("UPDATE part SET data = ? WHERE id = ?").run(JSON.stringify(part), row.id);
    }
    edit.close();
    const run = await rkb(["extract", db, "--format", "json"], { env: box.env });
    expect(run.json()).toMatchObject({ items_written: 1, failed: 2 });
    const kept: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, name.name);
        if (name.isDirectory()) walk(path);
        else if (path !== db) kept.push(readFileSync(path, "latin1"));
      }
    };
    walk(box.dir);
    const all = kept.join("\n");
    expect(all).toContain("Could NOT find ZLIB");
    for (const leak of ["ghp_0123456789", "wJalrXUtnFEMI", box.home]) expect(all).not.toContain(leak);
  });
});
