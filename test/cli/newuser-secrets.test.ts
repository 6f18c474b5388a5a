// Issue 22, item 3: secret shapes that still reached disk, fixed by principle. The shapes are made up
// here, one or more per principle: a private key whose END line was cut off, a known prefix glued to
// other characters, a chat bot token of three dot-separated parts. `rkb note` refuses a note that
// holds a secret with the same scan that masks what a session keeps.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { factLesson, rkb, sandbox, seededRandom } from "../helpers.ts";

const random = seededRandom(0x22);
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}-_`;
const keyLine = () => pick(B64, 64);
const lines = [keyLine(), keyLine(), keyLine()];
const id = (n: number) => Buffer.from(String(10 ** (n - 1) + Math.floor(random() * 9 * 10 ** (n - 2)))).toString("base64url");

/** [name, text, the secret in it] */
const SHAPES: [string, string, string][] = [];
const shape = (name: string, secret: string, line: (s: string) => string) => SHAPES.push([name, line(secret), secret]);
const AWS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
// A private key whose END line was cut off: everything after BEGIN until the base64 ends.
shape("key body on one long line", lines.join(""), (s) => `-----BEGIN PRIVATE KEY-----\n${s}\n`);
shape("key body glued to BEGIN", lines.join(""), (s) => `cat key.pem => -----BEGIN RSA PRIVATE KEY-----${s}`);
shape("key in JSON with \\r\\n", lines.join("\\r\\n"), (s) => `{"key": "-----BEGIN PRIVATE KEY-----\\r\\n${s}`);
shape("key in JSON in JSON", lines.join("\\\\n"), (s) => `"{\\"key\\": \\"-----BEGIN EC PRIVATE KEY-----\\\\n${s}`);
shape("key in a shell comment", lines.join("\n# "), (s) => `# -----BEGIN OPENSSH PRIVATE KEY-----\n# ${s}\n`);
shape("key in a Markdown quote", lines.join("\n> "), (s) => `> -----BEGIN PRIVATE KEY-----\n> ${s}\n`);
shape("key in code, one string per line", lines.join('\\n" +\n  "'), (s) => `const key = "-----BEGIN PRIVATE KEY-----\\n" +\n  "${s}`);
shape("key cut in the middle of a line", `${lines[0]}\n${lines[1]!.slice(0, 40)}`, (s) => `-----BEGIN PRIVATE KEY-----\n${s}… [output truncated]`);
shape("key lines joined by blanks", lines.join(" "), (s) => `KEY -----BEGIN PRIVATE KEY----- ${s} (cut)`);
// A known prefix glued to other word characters.
shape("github token after letters", `ghp_${pick(ALNUM, 36)}`, (s) => `authtoken${s}`);
shape("github token glued on both sides", `ghp_${pick(ALNUM, 36)}`, (s) => `xx${s}yy`);
shape("token after a JSON \\n", `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(ALNUM, 24)}`, (s) => `{"log": "logged in\\n${s}"}`);
shape("token after %20", `glpat-${pick(URLSAFE, 20)}`, (s) => `Authorization=Bearer%20${s}`);
shape("short prefix after a JSON \\t", `hf_${pick(ALNUM, 34)}`, (s) => `"env": "HF\\t${s}"`);
shape("stripe key after an underscore", `sk_live_${pick(ALNUM, 24)}`, (s) => `pay_${s}`);
shape("aws key id with more after it", `AKIA${pick(AWS, 16)}`, (s) => `AWS=${s}${pick(AWS, 6)}`);
shape("aws key id glued after a digit", `AKIA${pick(AWS, 16)}`, (s) => `id9${s}`);
// Three dot-separated parts, a chat platform's bot token: a base64 id, a time, an HMAC.
shape("bot token, new id", `${id(19)}.${pick(URLSAFE, 6)}.${pick(URLSAFE, 38)}`, (s) => `client.login("${s}")`);
shape("bot token, old id", `${id(17)}.${pick(URLSAFE, 6)}.${pick(URLSAFE, 27)}`, (s) => `TOKEN: ${s}`);
shape("bot token, first part not M, N or O", `${pick("PQRSTUVWXYZ", 1)}${pick(ALNUM, 25)}.${pick(URLSAFE, 6)}.${pick(URLSAFE, 38)}`, (s) => `bot.run('${s}')`);
shape("bot token, longer first part", `${id(20)}Ab.${pick(URLSAFE, 7)}.${pick(URLSAFE, 40)}`, (s) => `${s}`);

/** Ordinary text a lesson or a note holds: none of it is a secret. */
const NOT_SECRETS = [
  "the release is 1.14.3.2 and the next is 2.0.0-rc.1",
  "commit 3f9a1c0d2e4b5a69788f0e1d2c3b4a5968778695 fixed it (short 3f9a1c0)",
  "sha512-Xq7rZ2mKp9LwN4vT8sY3dF6hJ1gA5uE0oB+c/i2Rn8Ew== is the integrity of the tarball",
  "configure with org.apache.maven.plugins.maven_surefire_plugin.version=3.2.5",
  "thresholds_highs_and_lows_for_the_quarter_2024 is a table name",
  "the file is my_config_ghp_settings_template_for_the_team_v2.yaml",
  "SomeVeryLongClassName.method.anotherVeryLongMethodName is called twice",
  "com.example.service.internal.cache.RedisCacheManager logs at debug",
  "python -m pip install torch==2.3.1+cu121 --index-url https://download.pytorch.org/whl/cu121",
  "the image digest is sha256:9b7c3c1ad6c0a5e4f1f6e3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2",
  "base64 of hello world is aGVsbG8gd29ybGQ= and of the logo iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ",
  "an example key header: -----BEGIN PRIVATE KEY----- marks where the key starts",
  "kubectl get pod web-7d9f8b6c5d-x2v4q.default.svc.cluster.local",
  "the task id is task-9f8e7d6c5b4a3f2e1d0c and the disk is disk-0a1b2c3d4e5f6a7b8c9d",
];

describe("secret shapes that reached disk are refused and masked", () => {
  test.each(SHAPES)("%s", async (_name, text) => {
    const box = sandbox();
    const r = await rkb(["note", "--format", "json"], { env: box.env, stdin: text });
    expect(r.exit).toBe(1);
    expect(r.json().error.code).toBe("refused");
    expect(r.json().error.message).toContain("looks like");
  });

  test("masked in what a captured session keeps: no run of 12 characters of any of them is left", async () => {
    const { maskSecrets } = await import("../../cli/text/secrets.ts");
    for (const [name, text, secret] of SHAPES) {
      const masked = maskSecrets(text);
      for (let i = 0; i + 12 <= secret.length; i += 4) expect({ name, kept: masked.includes(secret.slice(i, i + 12)) }).toEqual({ name, kept: false });
    }
  });

  test.each(NOT_SECRETS.map((t) => [t]))("no secret in %p", async (text) => {
    const box = sandbox();
    const r = await rkb(["note", text, "--format", "json"], { env: box.env });
    expect(r.exit).toBe(0);
  });

  test("a lesson with one of them is refused by add, and nothing is committed", async () => {
    const box = sandbox();
    expect((await rkb(["init"], { env: box.env })).exit).toBe(0);
    const lesson = factLesson("The deploy bot logs in with its token").replace("Something that holds.", SHAPES.find(([n]) => n === "bot token, new id")![1]);
    const r = await rkb(["add", "--topic", "deploy", "--format", "json"], { env: box.env, stdin: lesson });
    expect(r.exit).toBe(1);
    expect(r.json().error.findings.map((f: any) => f.rule)).toContain("leak/secret");
    expect(readdirSync(join(box.kb, "general"))).toEqual([".gitkeep"]);
  });
});
