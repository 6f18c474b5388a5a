// The per-machine state through the compiled binary: what `rkb doctor` reports from it, and that no
// secret from a session, a hook payload or a broken payload reaches any byte under the state and
// cache folders (SQLite pages, -wal and -shm included), nor stays there once expired.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rkb, sandbox, type Sandbox } from "../helpers.ts";
import { SECRETS } from "../sessions/secret-samples.ts";
import { SessionWriter } from "../sessions/session-writer.ts";

function hook(box: Sandbox, event: string, payload: Record<string, unknown> | string) {
  return rkb(["hook", event], { env: box.env, stdin: typeof payload === "string" ? payload : JSON.stringify(payload) });
}

/** Every file below the folders, with its bytes. */
function filesUnder(...dirs: string[]): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push({ path, bytes: readFileSync(path) });
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

const stateFolder = (box: Sandbox) => join(box.env.XDG_STATE_HOME!, "rkb");
const cacheFolder = (box: Sandbox) => join(box.env.XDG_CACHE_HOME!, "rkb");

function expectNowhere(box: Sandbox, needles: string[]): void {
  const files = filesUnder(stateFolder(box), cacheFolder(box));
  expect(files.some((f) => f.path.endsWith("cursors.sqlite"))).toBe(true);
  const found = files.flatMap((f) => needles.filter((n) => f.bytes.includes(n)).map((n) => `${n} in ${f.path}`));
  expect(found).toEqual([]);
}

async function doctorChecks(box: Sandbox): Promise<Record<string, { status: string; detail: string; fix: string }>> {
  const r = await rkb(["doctor", "--format", "json"], { env: box.env });
  return Object.fromEntries(r.json().checks.map((c: any) => [c.check, c]));
}

describe("rkb doctor reads the state", () => {
  test("the last hook call per harness, recent hook errors and what distilling led to", async () => {
    const box = sandbox("rkb-state");
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["install", "pi"], { env: box.env })).exit).toBe(0);
    expect((await rkb(["install", "claude"], { env: box.env })).exit).toBe(0);
    let checks = await doctorChecks(box);
    expect(checks["last hook call"]!.status).toBe("warn");
    expect(checks["last hook call"]!.detail).toBe("pi none yet, claude-code none yet");
    expect(
      (
        await hook(box, "session-start", {
          session_id: "c",
          cwd: box.home,
          hook_event_name: "SessionStart",
          source: "startup",
          transcript_path: join(box.dir, "t.jsonl"),
        })
      ).exit,
    ).toBe(0);
    expect(checks["hook errors"]!.status).toBe("ok");
    expect(checks.distilled!.detail).toBe("none in the last 30 days");

    expect((await hook(box, "tool-ok", { session_id: "s", command: "ls", harness: "pi" })).exit).toBe(0);
    expect((await hook(box, "tool-failed", `{"harness": "omp", "command": "deploy --token ${SECRETS.github}"`)).exit).toBe(0);
    const note = await rkb(["note", "cmake needs ZLIB_ROOT here", "--format", "json"], { env: box.env });
    expect(note.exit).toBe(0);
    expect((await rkb(["inbox", "done", note.json().id, "--outcome", "noop"], { env: box.env })).exit).toBe(0);

    checks = await doctorChecks(box);
    expect(checks["last hook call"]!.status).toBe("ok");
    expect(checks["last hook call"]!.detail).toMatch(/^claude-code \d+ min ago \(session-start\), pi \d+ min ago \(tool-ok\)$/);
    expect(checks["hook errors"]!.status).toBe("warn");
    expect(checks["hook errors"]!.detail).toMatch(/^1 in the last 7 days; \d+ min ago tool-failed: /);
    expect(checks["hook errors"]!.detail).not.toContain(SECRETS.github);
    expect(checks.distilled!.detail).toBe("1 inbox item in the last 30 days: 1 noop");
  });
});

describe("no secret on disk", () => {
  test("hook payloads, failed and pending commands and parse errors leave no secret in any state or cache file", async () => {
    const box = sandbox("rkb-state");
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const base = { session_id: "s1", cwd: box.dir, harness: "pi" };
    // Hook payloads: failed and working commands, a prompt, and programs that are tokens.
    await hook(box, "session-start", base);
    await hook(box, "tool-failed", {
      ...base,
      command: `curl -H "Authorization: Bearer ${SECRETS.bearer}" https://api.example.com`,
      error: `401: GITHUB_TOKEN=${SECRETS.github} rejected`,
    });
    await hook(box, "tool-failed", { ...base, command: `${SECRETS.npm} publish`, error: "not found" });
    await hook(box, "tool-ok", { ...base, command: `${SECRETS.npm} publish` });
    await hook(box, "prompt", { ...base, prompt: `Remember that the deploy key is OPENAI_API_KEY=${SECRETS.openai}` });
    await hook(box, "stop", base);
    // Payloads that do not parse: the error quotes them.
    await hook(box, "tool-failed", `${SECRETS.github} {"command": "x"`);
    await hook(box, "prompt", `{"prompt": "export AWS_ACCESS_KEY_ID=${SECRETS.aws}", `);
    // A session with a fixed failure (an inbox item), a failure never fixed and a call with no result
    // yet (both carried in the cursor to the next read).
    const w = new SessionWriter("pi", "01a228b6-0000-7000-8000-00000000secr", box.dir);
    w.bash(`mysql --password=${SECRETS.flagPassword} -e 'select 1'`, `ERROR 1045: Access denied, token ${SECRETS.slack}`, 1);
    w.bash(`mysql --password=${SECRETS.flagPassword} -h db -e 'select 1'`, "1");
    w.bash(`STRIPE_API_KEY=${SECRETS.stripe} ./charge --live`, `error: card declined for key ${SECRETS.stripe}`, 1);
    w.entry({
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "toolCall", id: "call_pending", name: "bash", arguments: { command: `export GITHUB_TOKEN=${SECRETS.github}; gh release create v1` } },
        ],
        stopReason: "toolUse",
      },
    });
    const file = join(box.dir, "session.jsonl");
    writeFileSync(file, w.text());
    const end = await rkb(["hook", "session-end", "--session-file", file, "--session-id", w.sessionId, "--cwd", box.dir, "--harness", "pi"], { env: box.env });
    expect(end.exit).toBe(0);
    expect((await rkb(["doctor"], { env: box.env })).stdout).not.toContain(SECRETS.github);

    // The state did keep what it needs: an inbox item, the hook errors, the open failure.
    const db = new Database(join(stateFolder(box), "cursors.sqlite"), { readonly: true });
    expect((db.query("SELECT count(*) AS n FROM hook_error").get() as { n: number }).n).toBe(2);
    const carry = db.query("SELECT data FROM cursor_carry").all() as { data: string }[];
    db.close();
    expect(carry).toHaveLength(1);
    expect(carry[0]!.data).toContain("./charge --live");
    expect(carry[0]!.data).toContain("gh release create v1");
    expect(filesUnder(join(stateFolder(box), "inbox"))).toHaveLength(1);
    expectNowhere(box, Object.values(SECRETS));
    for (const f of filesUnder(stateFolder(box))) expect([f.path, statSync(f.path).mode & 0o777]).toEqual([f.path, 0o600]);
  });

  test("what masking cannot recognise is gone from every byte once it expires", async () => {
    const box = sandbox("rkb-state");
    // An unrecognisable value: in a failure left open in a session, and as a program name in a hook.
    const marker = "qzx7marker4vk";
    await hook(box, "tool-failed", { session_id: "s2", harness: "pi", command: `${marker} --go`, error: "failed" });
    const w = new SessionWriter("pi", "01a228b6-0000-7000-8000-0000000expir", box.dir);
    w.bash(`deploy --secret-word ${marker}x`, "error: denied", 1);
    const file = join(box.dir, "session.jsonl");
    writeFileSync(file, w.text());
    expect((await rkb(["hook", "session-end", "--session-file", file, "--harness", "pi"], { env: box.env })).exit).toBe(0);
    const path = join(stateFolder(box), "cursors.sqlite");
    const all = () => Buffer.concat(filesUnder(stateFolder(box)).map((f) => f.bytes));
    expect(all().includes(marker)).toBe(true);

    // Make both a month old (with secure_delete, so this update leaves no copy of its own).
    const db = new Database(path);
    db.run("PRAGMA secure_delete = ON");
    db.run("UPDATE cursor_carry SET updated = updated - 30 * 86400");
    db.run("UPDATE session_record SET time = time - 30 * 86400");
    db.close();
    expect((await hook(box, "session-start", { session_id: "s3", harness: "pi" })).exit).toBe(0);
    expect(all().includes(marker)).toBe(false);
    expectNowhere(box, [marker]);
  });
});
