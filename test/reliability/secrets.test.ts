import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { rkb, sandbox, type Sandbox } from "../helpers.ts";
import { SessionWriter, type Flavor } from "../sessions/session-writer.ts";
import { SECRET_SAMPLES, type SecretSample } from "./secret-corpus.ts";

// Every secret shape of the corpus, put in every part of pi, omp and Claude Code sessions and
// through every write path of the compiled binary: afterwards no file rkb wrote holds any of them
// (inbox, report, state and cache folders as raw bytes, SQLite -wal/-shm included, and every object
// of the knowledge base's git repository, decompressed), and every write holding one was refused
// with a leak/secret finding.

const FLAVORS: Flavor[] = ["pi", "omp", "claude-code"];

/** The agent's file edit in each harness's own shape. */
function edit(w: SessionWriter, path: string, before: string, after: string): void {
  if (w.flavor === "pi") w.tool("edit", { path, edits: [{ oldText: before, newText: after }] }, `Successfully replaced text in ${path}.`);
  else if (w.flavor === "omp") w.tool("edit", { path, old_string: before, new_string: after }, `Updated ${path}`);
  else w.tool("Edit", { file_path: path, old_string: before, new_string: after }, `The file ${path} has been updated.`);
}

function write(w: SessionWriter, path: string, content: string): void {
  w.tool(w.flavor === "claude-code" ? "Write" : "write", { [w.flavor === "claude-code" ? "file_path" : "path"]: path, content }, `Wrote ${path}`);
}

/** A session that puts each sample everywhere a session can hold text; ends with a call still waiting for its result. */
function sessionWithSecrets(flavor: Flavor, samples: SecretSample[]): string {
  const w = new SessionWriter(flavor);
  samples.forEach((s, i) => {
    const tool = `deploy${i}`;
    w.user(`Please remember this, we need it for the deploy:\n${s.line}\nDon't forget it!`);
    w.agent(`I will use it: ${s.line}`, `thinking about ${s.line}`);
    w.bash(`${tool} --config x ${s.line}`, `error: ${tool} failed\nstderr: ${s.line}\nfatal: cannot continue`, 1);
    w.bash(`${tool} --config y ${s.line}`, `${tool} ok\n${s.line}`);
    w.bash(`${s.line}`, `fatal: ${s.line}`, 2);
    w.tool("grep", { pattern: s.line, path: "." }, `config.env:3:${s.line}`);
    edit(w, `config${i}.env`, "TOKEN=old", s.line);
    write(w, `secrets${i}.env`, `# generated\n${s.line}\n`);
    w.user(`No, use this instead: ${s.line}`);
  });
  // A call whose result is not written yet: the cursor keeps it for the next read.
  const pending = samples[0]!.line;
  if (flavor === "claude-code")
    w.entry({
      type: "assistant",
      message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_pending", name: "Bash", input: { command: pending } }], stop_reason: "tool_use" },
    });
  else
    w.entry({
      type: "message",
      message: { role: "assistant", content: [{ type: "toolCall", id: "call_pending", name: "bash", arguments: { command: pending } }], stopReason: "toolUse" },
    });
  return w.text();
}

const LESSON = (title: string, evidence: string) => `---
type: fact
---

# ${title}

## Statement
Deploys read their credentials from the CI settings.

## Evidence
${evidence}
`;

/** Every file below dir, except the ones the test itself wrote. */
function filesBelow(dir: string, skip: Set<string>): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (skip.has(path)) continue;
    const st = statSync(path, { throwIfNoEntry: false });
    if (st?.isDirectory()) out.push(...filesBelow(path, skip));
    else if (st?.isFile()) out.push(path);
  }
  return out;
}

/** The pieces of a secret that must not appear: the whole, and for long ones every 16-character window. */
function piecesOf(secret: string): string[] {
  if (secret.length < 24) return [secret];
  const pieces: string[] = [];
  for (let i = 0; i + 16 <= secret.length; i += 8) pieces.push(secret.slice(i, i + 16));
  return pieces;
}

function findLeaks(name: string, bytes: Buffer, found: string[]): void {
  const text = bytes.toString("latin1");
  for (const s of SECRET_SAMPLES) {
    for (const piece of piecesOf(s.secret)) {
      if (text.includes(Buffer.from(piece).toString("latin1"))) {
        found.push(`${name}: ${s.name}`);
        break;
      }
    }
  }
}

async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

describe("secrets corpus", () => {
  let box: Sandbox;
  const ours = new Set<string>();
  const refusals: { path: string; sample: string; exit: number; error: any }[] = [];

  test("sessions of pi, omp and Claude Code holding every secret everywhere, captured by the hooks and extract", async () => {
    box = sandbox("rkb-secrets");
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const sessions = join(box.dir, "sessions");
    mkdirSync(sessions);
    ours.add(sessions);
    const files: Record<Flavor, string[]> = { pi: [], omp: [], "claude-code": [] };
    for (const flavor of FLAVORS) {
      // Split in a few files: the hooks capture one, extract the rest.
      for (let part = 0; part < 3; part++) {
        const file = join(sessions, `${flavor}-${part}.jsonl`);
        writeFileSync(
          file,
          sessionWithSecrets(
            flavor,
            SECRET_SAMPLES.filter((_, i) => i % 3 === part),
          ),
        );
        files[flavor].push(file);
      }
    }
    for (const flavor of FLAVORS) {
      const file = files[flavor][0]!;
      if (flavor === "claude-code") {
        // Claude Code calls the hooks with its own payload on stdin.
        for (const [event, hook_event_name] of [
          ["pre-compact", "PreCompact"],
          ["session-end", "SessionEnd"],
        ]) {
          const payload = { hook_event_name, session_id: "s-claude", transcript_path: file, cwd: box.home, reason: "other" };
          expect((await rkb(["hook", event!], { env: box.env, stdin: JSON.stringify(payload) })).exit).toBe(0);
        }
        continue;
      }
      expect((await rkb(["hook", "pre-compact", "--session-file", file, "--harness", flavor, "--session-id", `s-${flavor}`], { env: box.env })).exit).toBe(0);
      expect(
        (await rkb(["hook", "session-end", "--session-file", file, "--harness", flavor, "--session-id", `s-${flavor}`, "--reason", "quit"], { env: box.env }))
          .exit,
      ).toBe(0);
    }
    const report = join(box.dir, "report.md");
    const extracted = await rkb(["extract", sessions, "--report", report, "--format", "json"], { env: box.env });
    expect(extracted.exit).toBe(0);
    const summary = extracted.json();
    expect(summary.sessions).toBe(9);
    expect(summary.items_written).toBeGreaterThanOrEqual(6);
    expect(summary.remember + summary.correction).toBeGreaterThan(0);
    expect(summary.drafts.length).toBeGreaterThan(0);
    const inbox = join(box.env.XDG_STATE_HOME!, "rkb", "inbox");
    const items = readdirSync(inbox).map((name) => readFileSync(join(inbox, name), "utf8"));
    expect(items.length).toBeGreaterThanOrEqual(9);
    // The items quote the sessions with the secrets masked, kind by kind, not left out.
    const kinds = new Set(items.join("\n").match(/\[masked:[a-z0-9-]+\]/g));
    expect(kinds.size).toBeGreaterThanOrEqual(30);
    expect(readFileSync(report, "utf8")).toContain("[masked:");

    // The other hooks see commands, errors and prompts as the pi/omp extension and Claude Code hand them over.
    const claudeEvent: Record<string, string> = { "tool-failed": "PostToolUseFailure", "tool-ok": "PostToolUse", prompt: "UserPromptSubmit", stop: "Stop" };
    for (const [i, s] of SECRET_SAMPLES.entries()) {
      if (i % 10) continue;
      const pi = {
        session_id: `s-hooks-${i}`,
        cwd: box.home,
        harness: "pi",
        command: s.line,
        error: `Exit code 1\nfatal: ${s.line}`,
        prompt: `remember ${s.line}`,
      };
      const claude = (event: string) => ({
        hook_event_name: claudeEvent[event],
        session_id: `s-claude-${i}`,
        transcript_path: files["claude-code"][1],
        cwd: box.home,
        tool_name: "Bash",
        tool_input: { command: s.line, description: "run" },
        tool_response: { stdout: s.line, stderr: "", interrupted: false },
        error: `Exit code 1\n${s.line}`,
        prompt: `remember ${s.line}`,
      });
      for (const event of ["tool-failed", "tool-ok", "prompt", "stop"]) {
        expect((await rkb(["hook", event], { env: box.env, stdin: JSON.stringify(pi) })).exit).toBe(0);
        expect((await rkb(["hook", event], { env: box.env, stdin: JSON.stringify(claude(event)) })).exit).toBe(0);
      }
    }
  }, 120_000);

  test("every write path refuses a secret with a leak/secret finding naming its kind, and writes nothing", async () => {
    const add = async (title: string) => {
      const r = await rkb(["add", "--topic", "deploy", "--format", "json"], { env: box.env, stdin: LESSON(title, "Seen in the deploy logs.") });
      expect(r.exit).toBe(0);
      return r.json() as { id: string; path: string };
    };
    const a = await add("Deploy credentials come from the CI settings");
    const b = await add("The deploy job reads its token from the CI vault");
    const head = () => Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: box.kb, env: box.env }).stdout.toString();
    const before = head();
    const hash = (await rkb(["show", a.id, "--format", "json"], { env: box.env })).json().hash as string;
    const raw = readFileSync(join(box.kb, a.path), "utf8");

    type Path = { name: string; run: (s: SecretSample) => Promise<{ exit: number; stdout: string; stderr: string }> };
    const paths: Path[] = [
      {
        name: "add",
        run: (s) =>
          rkb(["add", "--topic", "deploy", "--format", "json"], {
            env: box.env,
            stdin: LESSON("Deploy with the shared credentials", `Ran:\n\n\`\`\`sh\n${s.line}\n\`\`\``),
          }),
      },
      // A key's body line alone is no recognisable secret: only one-line samples go in a title.
      {
        name: "add (title)",
        run: (s) =>
          rkb(["add", "--topic", "deploy", "--format", "json"], {
            env: box.env,
            stdin: s.line.includes("\n") ? LESSON("Deploy", s.line) : LESSON(`Deploy with ${s.line}`, "Seen."),
          }),
      },
      {
        name: "edit",
        run: (s) =>
          rkb(["edit", a.id, "--base", hash, "--format", "json"], {
            env: box.env,
            stdin: raw.replace("Seen in the deploy logs.", `Seen after running\n${s.line}`),
          }),
      },
      { name: "note", run: (s) => rkb(["note", "--format", "json"], { env: box.env, stdin: `for the deploy: ${s.line}` }) },
      { name: "used --reason", run: (s) => rkb(["used", a.id, "--irrelevant", "--reason", `it was about ${s.line}`, "--format", "json"], { env: box.env }) },
      { name: "used --failed --reason", run: (s) => rkb(["used", a.id, "--failed", "--reason", `broke with ${s.line}`, "--format", "json"], { env: box.env }) },
      { name: "flag --reason", run: (s) => rkb(["flag", a.id, "--reason", `now needs ${s.line}`, "--format", "json"], { env: box.env }) },
      { name: "supersede --reason", run: (s) => rkb(["supersede", a.id, "--by", b.id, "--reason", `merged; ${s.line}`, "--format", "json"], { env: box.env }) },
      { name: "archive --reason", run: (s) => rkb(["archive", a.id, "--reason", `obsolete since ${s.line}`, "--format", "json"], { env: box.env }) },
    ];
    const jobs = SECRET_SAMPLES.map((s, i) => ({ s, path: paths[i % paths.length]! }));
    await pool(jobs, 3, async ({ s, path }) => {
      const r = await path.run(s);
      let error: any;
      try {
        error = JSON.parse(r.stdout).error;
      } catch {
        error = { unparsed: r.stdout + r.stderr };
      }
      refusals.push({ path: path.name, sample: s.name, exit: r.exit, error });
    });
    const wrong = refusals.filter(
      (r) => r.exit !== 1 || !r.error?.findings?.some((f: any) => f.rule === "leak/secret" && /\([a-z0-9-]+\)/.test(f.message) && f.line >= 1),
    );
    expect(wrong).toEqual([]);
    expect(new Set(refusals.map((r) => r.path)).size).toBe(paths.length);
    expect(head()).toBe(before);
    expect(readFileSync(join(box.kb, a.path), "utf8")).toBe(raw);
    // The refusal names the kind and the line, never the secret.
    for (const r of refusals) findLeaks(`${r.path} output`, Buffer.from(JSON.stringify(r.error)), []);
    const quoted: string[] = [];
    findLeaks("refusals", Buffer.from(JSON.stringify(refusals)), quoted);
    expect(quoted).toEqual([]);
  }, 180_000);

  test("lint reports a secret in a lesson already in the knowledge base", async () => {
    const sample = SECRET_SAMPLES.find((s) => s.name === "github classic token")!;
    const lesson = join(box.kb, "general", "deploy", "hand-written.md");
    const text = LESSON("A hand-written lesson", `Ran \`${sample.line}\`.`).replace(
      "---\ntype: fact\n---",
      "---\nschema: 1\nid: 0a1b2c3d4e\ntype: fact\nstatus: active\nverified: 2026-11-01\nverified_how: ran\n---",
    );
    writeFileSync(lesson, text);
    const r = await rkb(["lint", "--format", "json"], { env: box.env });
    expect(r.exit).toBe(1);
    expect(r.stdout).not.toContain(sample.secret);
    const findings = r.json().findings.filter((f: any) => f.rule === "leak/secret");
    expect(findings).toEqual([
      expect.objectContaining({
        path: "general/deploy/hand-written.md",
        line: text.split("\n").findIndex((l) => l.includes(sample.secret)) + 1,
        severity: "error",
      }),
    ]);
    expect(findings[0].message).toContain("(github-token)");
    Bun.spawnSync(["rm", lesson]);
  });

  test("no file rkb wrote holds a secret: inbox, report, state, cache and the knowledge base, raw and in git objects", () => {
    const found: string[] = [];
    const files = filesBelow(box.dir, ours);
    const names = files.map((f) => relative(box.dir, f));
    // The places the other tests filled are all looked at.
    expect(names.some((n) => n.includes("/inbox/"))).toBe(true);
    expect(names.some((n) => n.endsWith("cursors.sqlite") || n.endsWith(".sqlite"))).toBe(true);
    expect(names).toContain("report.md");
    expect(names.some((n) => n.startsWith("kb/.git/objects/"))).toBe(true);
    for (const file of files) findLeaks(relative(box.dir, file), readFileSync(file), found);
    const objects = Bun.spawnSync(["git", "cat-file", "--batch-all-objects", "--batch"], { cwd: box.kb, env: box.env });
    expect(objects.exitCode).toBe(0);
    expect(objects.stdout.length).toBeGreaterThan(1000);
    findLeaks("kb git objects", objects.stdout, found);
    expect(found).toEqual([]);
  });
});
