// Inputs that made rkb report "a bug in rkb", drop data silently or give a wrong message: keys named
// `__proto__` or `constructor`, NUL bytes, a YAML alias bomb, an unreadable or read-only RKB_HOME.
// Each must end in a clear error naming the file or folder (and line) and the fix.
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { BIN, kbFromFixture, rkb, sandbox, writeFile, type Run } from "../helpers.ts";

const HEAD = "schema: 1\nid: 3f9a0c1b2d\ntype: fact\nstatus: active\nverified: 2026-11-01\nverified_how: ran\n";
const BODY = "# A fact\n\n## Statement\nIt holds.\n\n## Evidence\nRan it.\n";
const NEW = (frontmatter: string, body = BODY) => `---\ntype: fact\nverified_how: ran\n${frontmatter}---\n${body}`;

const noBug = (r: Run) => expect(r.stdout + r.stderr).not.toMatch(/bug in rkb|internal|undefined is not|is not a function/);

async function lint(files: Record<string, string>) {
  const box = sandbox("rkb-crash");
  kbFromFixture(box);
  for (const [rel, text] of Object.entries(files)) writeFile(join(box.kb, rel), text);
  const r = await rkb(["lint", "--format", "json"], { env: box.env });
  noBug(r);
  return { box, r, findings: r.json().findings as { path: string; line?: number; rule: string; message: string }[] };
}

describe("keys named like Object.prototype's", () => {
  test("lint names a top-level __proto__ key by its line; __proto__ and constructor labels are undeclared labels", async () => {
    const { findings } = await lint({
      "general/git/top.md": `---\n${HEAD}__proto__: {polluted: yes}\n---\n${BODY}`,
      "general/git/labels.md": `---\n${HEAD.replace("2d", "2e")}labels:\n  __proto__: b\n  constructor: c\n---\n${BODY}`,
    });
    expect(findings).toContainEqual(
      expect.objectContaining({
        path: "general/git/top.md",
        line: 8,
        rule: "format/parse",
        message: expect.stringContaining("unknown frontmatter key `__proto__`"),
      }),
    );
    const labels = findings.filter((f) => f.path === "general/git/labels.md" && f.rule === "labels/unknown");
    expect(labels.map((f) => f.line)).toEqual([9, 10]);
  });

  test("add refuses a __proto__ key (it was dropped without a word) and names its line", async () => {
    const box = sandbox("rkb-crash");
    kbFromFixture(box);
    const r = await rkb(["add", "--topic", "git"], { env: box.env, stdin: NEW("__proto__: {a: 1}\n") });
    noBug(r);
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain("<stdin>:4: unknown frontmatter key `__proto__`");
  });

  test("when.constructor and when.__proto__ are conditions on facts nobody has, not Object.prototype's", async () => {
    const box = sandbox("rkb-crash");
    kbFromFixture(box);
    writeFile(join(box.kb, "general/git/when.md"), `---\n${HEAD}when:\n  constructor: x\n---\n${BODY}`);
    const r = await rkb(["show", "3f9a0c1b2d", "--format", "json"], { env: box.env });
    noBug(r);
    expect(r.json().applies.keys).toEqual([expect.objectContaining({ key: "constructor", have: null })]);
  });
});

describe("NUL bytes and alias bombs", () => {
  test("a NUL byte in a lesson is a lint error on its line, and add refuses it before git sees it", async () => {
    const { findings, box } = await lint({ "general/git/nul.md": `---\n${HEAD}---\n# A fact\n\n## Statement\nIt\0 holds.\n\n## Evidence\nRan it.\n` });
    expect(findings).toContainEqual(expect.objectContaining({ path: "general/git/nul.md", line: 12, rule: "format/nul" }));
    const add = await rkb(["add", "--topic", "git"], { env: box.env, stdin: NEW("", "# A title\0\n\n## Statement\nX.\n\n## Evidence\nY.\n") });
    noBug(add);
    expect(add.exit).toBe(1);
    expect(add.stderr).toContain("NUL byte");
  });

  test("a billion-laughs frontmatter is named as an alias bomb with the fix, and search goes on without it", async () => {
    let bomb = "  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 9; i++)
      bomb += `  a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    const { findings, box } = await lint({ "general/git/bomb.md": `---\n${HEAD}meta:\n${bomb}---\n${BODY}` });
    expect(findings).toContainEqual(
      expect.objectContaining({
        path: "general/git/bomb.md",
        rule: "format/parse",
        message: expect.stringContaining("aliases (`*name`) expand to too much data"),
      }),
    );
    const search = await rkb(["search", "git pull rebase"], { env: box.env });
    noBug(search);
    expect(search.exit).toBe(0);
  });
});

describe("an RKB_HOME this user may not read or write", () => {
  // As root every permission check passes, so the binary runs as `nobody` there.
  const root = process.getuid?.() === 0;
  // `nobody` must be able to reach the sandbox: TMPDIR may be a 0700 folder of root's.
  const parent = root ? [tmpdir(), "/tmp", "/var/tmp"].find(traversableByAll) : tmpdir();
  const permBox = () => {
    if (!parent) throw new Error("no temp folder that every user may enter (tried TMPDIR, /tmp, /var/tmp)");
    return sandbox("rkb-perm", parent);
  };
  function asUser(box: ReturnType<typeof sandbox>) {
    const bin = join(box.dir, "rkb");
    cpSync(BIN, bin);
    if (root) Bun.spawnSync(["chown", "-R", "65534:65534", box.dir]);
    return async (args: string[], stdin = ""): Promise<Run> => {
      const argv = root ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, ...args] : [bin, ...args];
      const p = Bun.spawn(argv, { env: box.env, cwd: box.dir, stdin: new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, exit] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { stdout, stderr, exit, json: () => JSON.parse(stdout) };
    };
  }

  test("read-only: writes say the folder is not writable and how to fix it; reads still work", async () => {
    const box = permBox();
    kbFromFixture(box);
    const run = asUser(box);
    Bun.spawnSync(["chmod", "-R", "a-w", box.kb]);
    try {
      const add = await run(["add", "--topic", "git"], NEW(""));
      noBug(add);
      expect(add.exit).toBe(1);
      expect(add.stderr).toContain(`rkb cannot write to the knowledge base folder ${box.kb} (permission denied)`);
      expect(add.stderr).toContain("chmod -R u+rwX");
      expect((await run(["search", "git pull rebase"])).exit).toBe(0);
    } finally {
      Bun.spawnSync(["chmod", "-R", "u+w", box.kb]);
    }
  });

  test("unreadable: every command says the folder cannot be read, not that there is no knowledge base", async () => {
    const box = permBox();
    kbFromFixture(box);
    const run = asUser(box);
    chmodSync(box.kb, 0o000);
    try {
      for (const args of [["search", "git"], ["lint"], ["list"], ["status"], ["add", "--topic", "git"]]) {
        const r = await run(args, NEW(""));
        noBug(r);
        expect(r.exit).toBe(1);
        expect(r.stderr).toContain(`rkb cannot ${args[0] === "add" ? "write to" : "read"} the knowledge base folder ${box.kb}`);
      }
    } finally {
      chmodSync(box.kb, 0o755);
    }
  });
});

/** Whether every folder from / down to dir lets any user enter it. */
function traversableByAll(dir: string): boolean {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    if (d === dirname(d)) return true;
  }
}
