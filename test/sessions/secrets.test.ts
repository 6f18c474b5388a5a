import { describe, expect, test } from "bun:test";
import { maskSecrets } from "../../cli/sessions/secrets.ts";
import { SECRETS, SECRET_TEXT } from "./secret-samples.ts";

describe("maskSecrets", () => {
  const masked = maskSecrets(SECRET_TEXT);
  test.each(Object.entries(SECRETS))("%s is masked", (_name, secret) => {
    expect(masked).not.toContain(secret);
  });
  test("names and context stay readable", () => {
    expect(masked).toContain("export GITHUB_TOKEN=[masked]");
    expect(masked).toContain("postgres://admin:[masked]@db.internal:5432/app");
    expect(masked).toContain("DB_PASSWORD=[masked]");
    expect(masked).toContain("[private key [masked]]");
  });
  test("a private key cut off before its END line is masked to the end", () => {
    expect(maskSecrets(`key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRETS.pemBody}`)).not.toContain(SECRETS.pemBody);
  });
  test("ordinary output is left alone", () => {
    const text = "CMake Error at CMakeLists.txt:5 (find_package):\nmax_tokens=4096\ncommit 3f9a1c0d2e4b5a6978\nAuthor: Test <t@example.invalid>\nuuid 01a228b6-33db-7556-b4bf-cceeee9f76d3\nPassword:";
    expect(maskSecrets(text)).toBe(text);
  });
});
