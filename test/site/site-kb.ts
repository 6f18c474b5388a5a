import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { BIN, rkb, sandbox, writeFile, type Sandbox } from "../helpers.ts";

// The knowledge base the site tests (test/cli/site.test.ts, test-browser/) read: public, internal
// and confidential lessons, a lesson that tries to run script, links and a supersession that point
// at lessons a web site leaves out, known use records and recorded replays, and an inbox item.

export const PUBLIC = {
  tar: { id: "5a00000001", title: "tar refuses to extract over an existing symlink" },
  cmake: { id: "5a00000002", title: "cmake cannot find zlib without ZLIB_ROOT" },
  hostile: { id: "5a00000003", title: "A lesson whose text tries to run script" },
  old: { id: "5a00000004", title: "Old advice about make jobs" },
};
/** Lessons a `--sink web` build must not hold: nothing of them, anywhere (ids, titles, words). */
export const HIDDEN = {
  internal: { id: "5b00000001", title: "Rotate the staging deploy key quarterly", word: "quokkaflux" },
  confidential: { id: "5b00000002", title: "Vendor contract pricing tiers", word: "zephyrquill" },
};
/** A project folder only the confidential lesson lives in (its name and alias must not leak either). */
export const HIDDEN_PROJECT = { name: "bluefalcon", alias: "hushhush" };

const lesson = (o: { id: string; title: string; tags: string[]; labels?: string; extra?: string; body: string; status?: string }) => `---
schema: 1
id: ${o.id}
type: pitfall
status: ${o.status ?? "active"}
${o.extra ?? ""}verified: 2026-10-02
verified_how: ran
tags:
${o.tags.map((t) => `  - ${t}`).join("\n")}
${o.labels ? `labels:\n  sensitivity: ${o.labels}\n` : ""}---

# ${o.title}

${o.body}`;

const sections = (symptom: string, rest = "") => `## Symptom
${symptom}

## Cause
The cause is written here.

## Fix
The fix is written here.${rest}

## Evidence
It worked on 2026-10-02.
`;

/** Use records with counts the plots must show: tar injected 3 times (worked, irrelevant, no report), cmake once (no report). */
export const USE_RECORDS = [
  { time: "2026-11-02T10:00:00Z", id: PUBLIC.tar.id, event: "injected", session: "s1" },
  { time: "2026-11-02T10:05:00Z", id: PUBLIC.tar.id, event: "worked", session: "s1" },
  { time: "2026-11-03T09:00:00Z", id: PUBLIC.tar.id, event: "injected", session: "s2" },
  { time: "2026-11-03T09:01:00Z", id: PUBLIC.tar.id, event: "irrelevant", session: "s2" },
  { time: "2026-11-04T09:00:00Z", id: PUBLIC.tar.id, event: "injected" },
  { time: "2026-11-10T09:00:00Z", id: PUBLIC.tar.id, event: "worked", session: "s9" },
  { time: "2026-11-11T12:00:00Z", id: PUBLIC.cmake.id, event: "injected", session: "s3" },
  { time: "2026-11-11T12:00:00Z", id: HIDDEN.confidential.id, event: "injected", session: "s4" },
  { time: "2026-11-11T12:01:00Z", id: HIDDEN.confidential.id, event: "worked", session: "s4" },
  { time: "2026-11-12T12:00:00Z", id: HIDDEN.internal.id, event: "irrelevant", session: "s5" },
];

export const REPLAYS = [
  { time: "2026-11-01T06:00:00Z", files: 3, failures: 10, covered: 4, lessons: { [PUBLIC.tar.id]: 2, [HIDDEN.confidential.id]: 2 } },
  { time: "2026-11-08T06:00:00Z", files: 4, failures: 20, covered: 10, lessons: { [PUBLIC.tar.id]: 5, [PUBLIC.cmake.id]: 1, [HIDDEN.internal.id]: 4 } },
];

export const HOSTILE_BODY = sections(
  "<script>window.__pwned = 'script'</script> and <img src=x onerror=\"window.__pwned='img'\">",
  `

- [a javascript link](javascript:window.__pwned='link')
- [an upper-case one](JAVASCRIPT:window.__pwned='upper')
- <a href="javascript:window.__pwned='raw'">a raw anchor</a>
- [a data page](data:text/html,<script>window.__pwned='data'</script>)
- <svg onload="window.__pwned='svg'"></svg>`,
);

export async function siteKb(name = "rkb-site"): Promise<Sandbox> {
  const box = sandbox(name);
  const init = await rkb(["init"], { env: box.env });
  if (init.exit !== 0) throw new Error(`rkb init: ${init.stderr}`);
  const put = (rel: string, text: string) => writeFile(join(box.kb, rel), text);
  put(
    "general/tar/tar-symlink.md",
    lesson({
      ...PUBLIC.tar,
      tags: ["tar"],
      labels: "public",
      body: sections(
        "`tar: Cannot open: File exists` when extracting.",
        `\n\nSee also [the cmake lesson](../cmake/cmake-zlib.md) and [the internal note](../deploy/deploy-key.md) and [the vendor one](../../projects/${HIDDEN_PROJECT.name}/contracts/vendor.md).`,
      ),
    }),
  );
  // Long lines and words: the layout must hold them at 375 px.
  const long = `cmake -S . -B build ${Array.from({ length: 12 }, (_, i) => `-DZLIB_ROOT_${i}=/opt/zlib/1.3.1/lib/cmake/zlib`).join(" ")}`;
  put(
    "general/cmake/cmake-zlib.md",
    lesson({
      ...PUBLIC.cmake,
      tags: ["cmake"],
      labels: "public",
      body: sections("`Could NOT find ZLIB` from cmake.", `\n\n\`\`\`sh\n${long}\n\`\`\`\n\nThe variable is ${"ZLIB_ROOT_".repeat(12)}DIR, set once.`),
    }),
  );
  put("general/security/hostile.md", lesson({ ...PUBLIC.hostile, tags: ["security"], labels: "public", body: HOSTILE_BODY }));
  put(
    "general/make/old-make.md",
    lesson({
      ...PUBLIC.old,
      tags: ["make"],
      labels: "public",
      status: "superseded",
      extra: `superseded_by: ${HIDDEN.confidential.id}\n`,
      body: `${sections("make -j runs out of memory.")}\n## Why superseded\nA newer lesson replaced it.\n`,
    }),
  );
  put("general/deploy/deploy-key.md", lesson({ ...HIDDEN.internal, tags: ["deploy"], body: sections(`The ${HIDDEN.internal.word} key expired.`) }));
  put(`projects/${HIDDEN_PROJECT.name}/README.md`, `---\naliases:\n  - ${HIDDEN_PROJECT.alias}\nlabels:\n  sensitivity: confidential\n---\n`);
  put(
    `projects/${HIDDEN_PROJECT.name}/contracts/vendor.md`,
    lesson({
      ...HIDDEN.confidential,
      tags: ["contracts"],
      extra: `when:\n  project: ${HIDDEN_PROJECT.name}\n`,
      body: sections(`The ${HIDDEN.confidential.word} tier costs more.`),
    }),
  );
  put(".rkb/usage/m1-aaaa.jsonl", USE_RECORDS.map((r) => JSON.stringify(r)).join("\n") + "\n");
  put(".rkb/replays/ci-bbbb.jsonl", REPLAYS.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const git = (...args: string[]) => {
    const p = Bun.spawnSync(["git", ...args], { cwd: box.kb, env: box.env });
    if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr}`);
  };
  git("add", "-A");
  git("commit", "-q", "--no-verify", "-m", "add the site test lessons");
  // Every lesson reads (lint would refuse the hostile one's script: it was committed by hand).
  for (const { id } of [...Object.values(PUBLIC), ...Object.values(HIDDEN)]) {
    const shown = await rkb(["show", id], { env: box.env });
    if (shown.exit !== 0) throw new Error(`rkb show ${id}: ${shown.stderr}`);
  }
  const note = await rkb(["note", "the staging db is reset every sunday"], { env: box.env });
  if (note.exit !== 0) throw new Error(`rkb note: ${note.stderr}`);
  return box;
}

/** `rkb serve` on a free port of 127.0.0.1, once it printed its URL. */
export async function startServe(box: Sandbox): Promise<{ url: string; proc: Bun.Subprocess<"ignore", "pipe", "pipe"> }> {
  const proc = Bun.spawn([BIN, "serve"], { env: box.env, cwd: box.home, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`rkb serve ended: ${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { url: /http:\/\/127\.0\.0\.1:\d+\//.exec(text)![0], proc };
}

/** Runs `use` against `rkb serve` started for this box, and stops the server however `use` ends. */
export async function whileServing(box: Sandbox, use: (url: string) => Promise<void>): Promise<void> {
  const { url, proc } = await startServe(box);
  try {
    await use(url);
  } finally {
    proc.kill("SIGINT");
    await proc.exited;
  }
}

/** Every file under a folder, with its bytes read as text (binary files too: the search index holds words and JSON). */
export function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path).toString("latin1"));
    }
  };
  walk(dir);
  return out;
}
