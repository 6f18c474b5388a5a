import { describe, expect, test } from "bun:test";
import { findSecrets, maskSecrets } from "../../cli/text/secrets.ts";
import { NOT_SECRETS, SECRET_SAMPLES } from "../reliability/secret-corpus.ts";
import { SECRETS, SECRET_TEXT as SESSION_SECRET_TEXT } from "./secret-samples.ts";

const SECRET_TEXT = SECRET_SAMPLES.map((s) => s.line).join("\n");

describe("maskSecrets", () => {
  test("the corpus has at least 80 shapes", () => {
    expect(SECRET_SAMPLES.length).toBeGreaterThanOrEqual(80);
    expect(new Set(SECRET_SAMPLES.map((s) => s.secret)).size).toBe(SECRET_SAMPLES.length);
  });

  test.each(SECRET_SAMPLES.map((s) => [s.name, s] as const))("%s is masked alone, and in a text of all of them", (_name, sample) => {
    expect(maskSecrets(sample.line)).not.toContain(sample.secret);
    expect(findSecrets(sample.line).length).toBeGreaterThan(0);
  });

  test.each(Object.entries(SECRETS))("the session tests' %s sample is masked", (_name, secret) => {
    expect(maskSecrets(SESSION_SECRET_TEXT)).not.toContain(secret);
  });

  test("in one text of every sample, every secret is masked and none is split", () => {
    const masked = maskSecrets(SECRET_TEXT);
    for (const s of SECRET_SAMPLES) {
      expect(masked).not.toContain(s.secret);
      // No run of 12 characters of a secret is left either: a mask never keeps half of one.
      for (let i = 0; i + 12 <= s.secret.length; i += 6) expect(masked).not.toContain(s.secret.slice(i, i + 12));
    }
  });

  test("the mask names the kind and keeps the words around it", () => {
    expect(maskSecrets(`export GITHUB_TOKEN=ghp_${"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hI6"}`)).toBe("export GITHUB_TOKEN=[masked:github-token]");
    expect(maskSecrets("psql postgres://admin:s3cr3t!Pw@db.internal:5432/app")).toBe("psql postgres://admin:[masked:url-password]@db.internal:5432/app");
    expect(maskSecrets("DB_PASSWORD=hunter2hunter2")).toBe("DB_PASSWORD=[masked:secret-assignment]");
    // A typed field, as in a settings class.
    expect(maskSecrets('+  redis_password: str = "k3yV4lu3x9q"')).toBe('+  redis_password: str = "[masked:secret-assignment]"');
    expect(maskSecrets('const apiKey: string | undefined = "Zq8xR2vT5wY1"')).toBe('const apiKey: string | undefined = "[masked:secret-assignment]"');
    expect(maskSecrets("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0\n-----END RSA PRIVATE KEY-----")).toBe(
      "-----BEGIN RSA PRIVATE KEY-----[masked:private-key]-----END RSA PRIVATE KEY-----",
    );
  });

  test("masking masked text changes nothing", () => {
    const once = maskSecrets(SECRET_TEXT);
    expect(maskSecrets(once)).toBe(once);
    expect(findSecrets(once)).toEqual([]);
  });

  test("a private key cut off before its END line is masked as far as its key lines go", () => {
    const body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0";
    const masked = maskSecrets(`key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\nq1w2e3r4t5y6u7i8o9p0\n[tool output]\nnext line`);
    expect(masked).not.toContain(body);
    expect(masked).not.toContain("q1w2e3r4t5y6u7i8o9p0");
    expect(masked).toContain("[tool output]\nnext line");
  });

  test.each(NOT_SECRETS.map((t) => [t]))("no secret in %p", (text) => {
    expect(findSecrets(text)).toEqual([]);
    expect(maskSecrets(text)).toBe(text);
  });

  test("ordinary output is left alone", () => {
    const text =
      "CMake Error at CMakeLists.txt:5 (find_package):\nmax_tokens=4096\ncommit 3f9a1c0d2e4b5a6978\nAuthor: Test <t@example.invalid>\nuuid 01a228b6-33db-7556-b4bf-cceeee9f76d3\nPassword:";
    expect(maskSecrets(text)).toBe(text);
  });

  // Time grows with the input, not faster: runs built to make a backtracking pattern retry (a
  // prefix of every sample, the rules' keywords, one character again and again) are scanned at
  // 1 MB and at 8 MB in all; linear costs 8x, quadratic 64x. Absolute times belong to benchmarks.
  test("linear time on inputs made to make patterns retry", () => {
    const fragments = [
      ...SECRET_SAMPLES.map((s) => s.line.slice(0, Math.max(1, s.line.indexOf(s.secret) + 3))),
      "a",
      " ",
      "=",
      "a=",
      "password=",
      "PASSWORD=x",
      "token: ",
      "--token ",
      "my password is ",
      "://",
      "://a:",
      "a:b@",
      "@",
      "-----BEGIN PRIVATE KEY-----",
      "-----BEGIN PRIVATE KEY-----\nAAAA",
      "\\nAAAA",
      "-----END ",
      "eyJ",
      "eyJa.",
      "AKIA",
      "ghp_",
      "xoxb-1",
      "sk-",
      "SG.",
      ":AA",
      "Ma.",
      "curl ",
      "curl -u ",
      "mysql -p",
      "docker login ",
      "sshpass -p ",
      "echo a | x --password-stdin",
      "echo a | ",
      " --password-stdin <<< ",
      "password a1",
      "Authorization: ",
      "Bearer ",
      "sig=",
      "AccountKey=",
      "_authToken=",
      "1:",
      "aaaaaaaaaaaa.",
      "key",
      "pass_",
      // The scanners of issue 22: a key cut off after BEGIN, glued prefixes, three dotted parts.
      "-----BEGIN PRIVATE KEY-----A",
      "-----BEGIN PRIVATE KEY----- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      '\\n" +\n  "AAAA',
      "\\\\",
      "xghp_",
      "\\nghp_A1",
      "%20sk-",
      "aghp_and_",
      "AAAAAAAAAAAAAAAAAAAA.",
      "AAAAAAAAAAAAAAAAAAAA.aaaaaa.",
      "a.",
    ];
    // The fastest of three runs: one run's time holds a GC pause or a busy core (a loaded machine gave 17.7×).
    const cost = (text: string) => {
      let fastest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run++) {
        const t = performance.now();
        findSecrets(text);
        fastest = Math.min(fastest, performance.now() - t);
      }
      return fastest;
    };
    const text = (bytes: number) => fragments.map((f) => f.repeat(Math.ceil(bytes / fragments.length / f.length))).join("\n");
    const small = text(1_000_000);
    const large = text(8_000_000);
    cost(small); // warm up the JIT
    const ratio = cost(large) / cost(small);
    expect(ratio).toBeLessThan(16);
  }, 120_000);
});
