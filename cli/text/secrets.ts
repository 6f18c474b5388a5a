// The one rule set for secrets: a table of named kinds, each a pattern for where the secret sits.
// `maskSecrets` uses it on everything rkb keeps from a session or a user; `findSecrets` uses it for
// the `leak/secret` finding of lint and of every write, so what is refused and what is masked never
// drift apart. Every pattern starts at a literal or at the start of a run of its own characters and
// has bounded repetitions (or none that can fail after a long run), and the assignment scanner skips
// past each name it read: the work per character is bounded, so any input is handled in linear time.

import { scanBotTokens, scanPrivateKeys } from "./secret-shapes.ts";

export interface SecretKind {
  /** Short name shown in masks and findings, e.g. `github-token`. */
  kind: string;
  /** What it is, for people: "a GitHub token". */
  what: string;
  /** Strings one of which the text must contain for the pattern to run (a fast skip); none: always runs. */
  hints: string[];
  /** The hints are lowercase and looked for in the lowercased text. */
  caseless?: boolean;
  /** Global pattern with the `d` flag; the secret is the group `s`, or the whole match. */
  pattern?: RegExp;
  /** Extra test of the secret text found; false leaves it. */
  accept?: (secret: string, text: string, at: number) => boolean;
  /** A hand-written scanner instead of a pattern, for rules a regex cannot state in linear time; it may name another kind. */
  scan?: (text: string, found: (start: number, end: number, kind?: SecretKind) => void) => void;
  /** The literal prefix, the token's characters and their least number: the glued scanner finds it inside a longer word too. */
  glued?: { prefix: string; chars: string; min: number };
}

export interface SecretMatch {
  kind: SecretKind;
  /** Offsets of the secret in the text (end exclusive). */
  start: number;
  end: number;
}

/**
 * The mask that replaces a secret: names its kind and hides every character of it. No blank in
 * it, so a pattern that reads a value (`user:[masked:url-password]@host`) reads the whole mask,
 * which counts as a placeholder: masking masked text changes nothing.
 */
export const maskFor = (kind: string) => `[masked:${kind}]`;

// ---- values that are no secret ---------------------------------------------------------------

const PLACEHOLDER_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "pass",
  "secret",
  "token",
  "key",
  "apikey",
  "api_key",
  "api-key",
  "changeme",
  "change_me",
  "example",
  "redacted",
  "hidden",
  "masked",
  "dummy",
  "placeholder",
  "none",
  "null",
  "nil",
  "true",
  "false",
  "yes",
  "no",
  "on",
  "off",
  "undefined",
  "empty",
  "required",
  "optional",
  "string",
  "str",
  "value",
  "your_token",
  "your-token",
  "mytoken",
  "mypassword",
  "yourpassword",
  "your_password",
  "your-password",
  "secret_key",
  "foo",
  "bar",
  "baz",
  "xyz",
  "abc",
  "qwerty",
  "bearer",
  "basic",
  "test",
  "sample",
  "todo",
]);

const PLACEHOLDER_PARTS = new Set([
  ...PLACEHOLDER_WORDS,
  "fake",
  "my",
  "your",
  "our",
  "the",
  "a",
  "here",
  "api",
  "access",
  "auth",
  "app",
  "bot",
  "new",
  "old",
  "some",
  "db",
  "admin",
  "user",
  "super",
  "very",
  "real",
  "actual",
  "prod",
  "dev",
  "staging",
  "local",
  "default",
  "xxxx",
  "xxxxx",
  "abc",
  "123",
  "goes",
  "insert",
  "put",
  "replace",
  "with",
  "this",
  "that",
  "it",
  "own",
  "private",
  "public",
  "client",
  "service",
  "access",
  "s3cret",
]);

/**
 * Values that stand for a secret rather than being one: variables and templates (`$TOKEN`,
 * `${{ secrets.X }}`, `{{ .Token }}`, `%PASS%`, `<token>`), blanks (`****`, `xxx`, `...`), the
 * words docs use (`changeme`, `your-password`), all-capital names (`YOUR_TOKEN`), masks rkb wrote,
 * small numbers and file paths.
 */
export function isPlaceholder(value: string): boolean {
  const v = value.replace(/^["'`]+|["'`]+$/g, "").trim();
  if (v.length < 3) return true;
  if (/^[$%<{[]/.test(v) || v.startsWith("(") || v.startsWith("…")) return true;
  if (/^([*x•#.\-_])\1*$/i.test(v) || /^[*•.…x]{3,}/i.test(v) || /\*{3}|•{3}|\.{3}|…/.test(v)) return true;
  if (PLACEHOLDER_WORDS.has(v.toLowerCase())) return true;
  // `fake-key`, `dummy_token`, `my-test-password`: made only of the words docs use for a stand-in.
  if (v.split(/[-_ ]+/).every((w) => PLACEHOLDER_PARTS.has(w.toLowerCase()))) return true;
  if (/^(?:your|my|the|some|a|an|insert|enter|replace|put)[-_ ]?(?:own[-_ ]?)?[a-z_-]*$/i.test(v) && !/\d/.test(v)) return true;
  if (/^[A-Z][A-Z_]*$/.test(v)) return true;
  if (/^\d{1,7}$/.test(v) || /^#[0-9a-f]{3,8}$/i.test(v)) return true;
  if (/^(?:\/|~\/|\.\.?\/|file:|@)/.test(v) || /^[A-Za-z]:\\/.test(v)) return true;
  return false;
}

/** A value that reads like a generated or chosen secret, not a word: letters with digits or symbols. */
export function looksRandom(value: string, minLength = 6): boolean {
  if (value.length < minLength || isPlaceholder(value)) return false;
  if (!/[A-Za-z]/.test(value)) return /^\d{8,}$/.test(value);
  return /\d/.test(value) || /[!#%&*+/=?@^~]/.test(value) || (value.length >= 12 && /[a-z]/.test(value) && /[A-Z]/.test(value));
}

// ---- named assignments: FOO_TOKEN=x, "password": "x", --api-key x, my password is x ---------------

/** Name parts that make a name a secret's. */
const STRONG_PARTS = new Set(["password", "passwd", "passphrase", "passcode", "pwd", "pw", "secret", "token", "apikey", "credential", "credentials", "pat"]);
/** `<part>_key` names that hold a secret key. */
const KEY_QUALIFIERS = new Set([
  "api",
  "access",
  "secret",
  "private",
  "auth",
  "signing",
  "session",
  "master",
  "encryption",
  "account",
  "client",
  "app",
  "license",
  "service",
  "admin",
  "shared",
  "write",
  "deploy",
]);
/** Last name parts that say the value is about a secret, not the secret: TOKEN_FILE, ACCESS_KEY_ID. */
const META_TAILS = new Set([
  "file",
  "path",
  "dir",
  "id",
  "ids",
  "name",
  "type",
  "len",
  "length",
  "count",
  "ttl",
  "expiry",
  "expires",
  "expiration",
  "header",
  "env",
  "var",
  "cmd",
  "command",
  "prompt",
  "helper",
  "min",
  "max",
  "size",
  "algo",
  "algorithm",
  "endpoint",
  "url",
  "uri",
  "host",
  "port",
  "user",
  "username",
  "limit",
  "region",
  "policy",
  "rotation",
  "kind",
  "stdin",
  "hash",
  "format",
  "mode",
  "source",
  "store",
  "manager",
  "provider",
  "field",
  "label",
  "hint",
  "prefix",
  "suffix",
  "version",
  "location",
  "scope",
  "scopes",
  "enabled",
  "required",
  "auth",
  "method",
  "timeout",
  "lifetime",
  "arn",
  "ref",
  "fingerprint",
  "pub",
  "public",
]);

function nameParts(name: string): string[] {
  return name
    .replace(/^-+/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_.-]+/)
    .filter(Boolean);
}

/** "strong": any real value is a secret; "weak" (`STRIPE_KEY`): only a random-looking one; or none. */
function secretName(name: string): "strong" | "weak" | undefined {
  // `db.password` names a password; `Token.Comment` (an attribute of something called Token) does not.
  const dot = name.lastIndexOf(".");
  if (dot > 0) return secretName(name.slice(dot + 1));
  const parts = nameParts(name);
  if (!parts.length || META_TAILS.has(parts.at(-1)!)) return undefined;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (STRONG_PARTS.has(p)) return "strong";
    if (p === "key" && i > 0 && KEY_QUALIFIERS.has(parts[i - 1]!)) return "strong";
    if (p === "pass" && (parts.length > 1 || name === name.toUpperCase())) return "strong";
    // One-word env names: PGPASSWORD, SSHPASS, NPMTOKEN.
    if (parts.length === 1 && /^[A-Z0-9]+$/.test(name) && /(?:PASSWORD|PASSWD|PASSPHRASE|PASS|SECRET|TOKEN|APIKEY)$/.test(name)) return "strong";
  }
  return parts.at(-1) === "key" ? "weak" : undefined;
}

const KEYWORD = /pass|pwd|pw\b|secret|token|key|credential|pat\b/gi;
/** A password named as a word, which prose may give with only a blank after it. */
const PASSWORD_WORD = /^(?:pass(?:word|wd|phrase|code)|pwd)$/i;
const isNameChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
const MAX_NAME = 64;
// After the name: its closing quote, then a type annotation and `=` (`password: str = …`, `apiKey:
// string = …`), `=`, `:`, `:=`, `=>`, or (for `--flag`) blanks, or `is`.
const AFTER_NAME =
  /(?<close>["']?)(?<sep>[ \t]{0,8}:[ \t]{0,8}[A-Za-z_][\w.[\]|]{0,40}(?:[ \t]{1,4}\|[ \t]{1,4}[\w.[\]]{1,20})?[ \t]{0,8}=(?![=>])[ \t]{0,8}|[ \t]{0,8}(?::=|=>|[=:])[ \t]{0,8}|[ \t]{1,8}(?:is|was)[ \t]{1,8}(?::[ \t]{0,8})?|[ \t]{1,8})(?<value>"[^"\n]{1,1024}"|'[^'\n]{1,1024}'|[^\s"'`,;&|(){}[\]]{1,1024})/y;

const LINE_END = /[ \t]*(?:#[^\n]*)?(?:\r?\n|$)/y;
function endsLine(text: string, at: number): boolean {
  LINE_END.lastIndex = at;
  return LINE_END.test(text);
}

function scanAssignments(text: string, found: (start: number, end: number) => void): void {
  KEYWORD.lastIndex = 0;
  for (let m = KEYWORD.exec(text); m; m = KEYWORD.exec(text)) {
    let start = m.index;
    let end = m.index + m[0].length;
    while (start > 0 && m.index - start < MAX_NAME && isNameChar(text.charCodeAt(start - 1))) start--;
    while (end < text.length && end - m.index < MAX_NAME && isNameChar(text.charCodeAt(end))) end++;
    // The next keyword is looked for after this name, so no character is read twice for it.
    KEYWORD.lastIndex = end;
    const name = text.slice(start, end).replace(/[.-]+$/, "");
    end = start + name.length;
    const strength = secretName(name);
    if (!strength) continue;
    AFTER_NAME.lastIndex = end;
    const after = AFTER_NAME.exec(text);
    if (!after) continue;
    const { sep, value } = after.groups as { sep: string; value: string };
    const quoted = value[0] === '"' || value[0] === "'";
    const sentence = /\b(?:is|was)\b/.test(sep);
    // A sentence ends with its punctuation; in `NAME=value` every character is the value's.
    const bare = quoted ? value.slice(1, -1) : sentence ? value.replace(/[.,;:?]+$/, "") : value;
    if (isPlaceholder(bare)) continue;
    // `pwd=pwd`, `refresh_token=refresh_token`: code passing a variable on, not a secret.
    if (/^[A-Za-z_][A-Za-z_.]*$/.test(bare) && (bare.toLowerCase() === name.toLowerCase() || secretName(bare))) continue;
    const valueEnd = after.index + after[0].length;
    // A value read is not read again for names inside it.
    KEYWORD.lastIndex = valueEnd;
    // `getToken()`, `os.environ[...]`, `win32api.RegEnumKey`: code reading a secret, not one.
    if (!quoted && (text[valueEnd] === "(" || text[valueEnd] === "[" || /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/.test(bare))) continue;
    const isFlag = name.startsWith("-");
    const blank = /^[ \t]+$/.test(sep);
    // "…, password dqq481=Ab": a password's name, then a value that reads like one, is prose giving it.
    if (blank && !isFlag && !(PASSWORD_WORD.test(name) && looksRandom(bare))) continue;
    let ok: boolean;
    if (strength === "weak") ok = looksRandom(bare, 16) && /\d/.test(bare);
    else if (sentence) ok = looksRandom(bare) || /\b(?:my|our)\s+(?:[\w-]+\s+)?$/i.test(text.slice(Math.max(0, start - 24), start));
    // A quoted phrase (`'Password used to derive the key'`) is prose unless it reads like a secret.
    else if (quoted && /\s/.test(bare)) ok = looksRandom(bare);
    else if (quoted || sep === "=" || sep === ":=") ok = !/^[A-Za-z_]+(?:\.[A-Za-z_]+)+$/.test(bare);
    // `password: hunter2` alone on its line is YAML; `Password: enter it when asked` is prose.
    else if (sep.includes(":") && endsLine(text, valueEnd)) ok = true;
    else ok = looksRandom(bare);
    if (!ok) continue;
    const valueStart = valueEnd - value.length + (quoted ? 1 : 0);
    found(valueStart, valueStart + bare.length);
  }
}

// ---- tokens glued to other characters ----------------------------------------------------------

const isHexChar = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/**
 * Whether an escape that stands for a blank or a line break ends just before `at` (`\n`, `\t`, `%20`,
 * `\u000a`, `\x0a`): in what the text says, a word ends there.
 */
function afterEscape(text: string, at: number): boolean {
  const [c3, c2, c1] = [text[at - 3], text[at - 2], text[at - 1]];
  if (c2 === "\\" && (c1 === "n" || c1 === "t" || c1 === "r")) return true;
  if (c3 === "%" && isHexChar(c2) && isHexChar(c1)) return true;
  return /\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2})$/.test(text.slice(Math.max(0, at - 6), at));
}

/** Generated characters (letters and digits), not words joined by `_` or `-` (`and_lows_for_the_quarter_2024`). */
function looksGenerated(body: string): boolean {
  if (!/\d/.test(body) || !/[A-Za-z]/.test(body)) return false;
  let words = 0;
  for (const part of body.split(/[-_]+/)) if (/^[a-z]{2,}$/.test(part) && ++words >= 2) return false;
  return true;
}

let glued: { prefixes: RegExp; kinds: SecretKind[]; bodies: RegExp[] } | undefined;

/**
 * A known prefix with other word characters right before it (`authtokenghp_…`, `pay_sk_live_…`),
 * which the table's patterns skip so as not to read tokens inside words. It is a token when an
 * escape stands before it (`\nxoxb-…`), or when the prefix is distinctive (four characters or
 * more) and what follows looks generated. The body is read once and the search goes on after it.
 */
function scanGlued(text: string, found: (start: number, end: number, kind: SecretKind) => void): void {
  if (!glued) {
    const kinds = SECRET_KINDS.filter((k) => k.glued);
    glued = {
      kinds,
      prefixes: new RegExp(`(?<=[A-Za-z0-9_\\-])(?:${kinds.map((k, i) => `(?<g${i}>${k.glued!.prefix})`).join("|")})`, "g"),
      bodies: kinds.map((k) => new RegExp(`${k.glued!.chars}{${k.glued!.min},}`, "y")),
    };
  }
  const { prefixes, kinds, bodies } = glued;
  prefixes.lastIndex = 0;
  for (let m = prefixes.exec(text); m; m = prefixes.exec(text)) {
    const i = Number(
      Object.entries(m.groups!)
        .find(([, v]) => v !== undefined)![0]
        .slice(1),
    );
    const body = bodies[i]!;
    body.lastIndex = m.index + m[0].length;
    const read = body.exec(text);
    if (!read) continue;
    const end = body.lastIndex;
    prefixes.lastIndex = end;
    const kind = kinds[i]!;
    const secret = text.slice(m.index, end);
    const boundary = afterEscape(text, m.index) || (m[0].length >= 4 && looksGenerated(read[0]));
    if (boundary && varied(secret) && (!kind.accept || kind.accept(secret, text, m.index))) found(m.index, end, kind);
  }
}

// ---- the table -------------------------------------------------------------------------------

/** A token of `chars` after a literal prefix, not inside a longer word (the glued scanner finds it there). */
function prefixed(prefix: string, chars: string, min: number): Pick<SecretKind, "pattern" | "glued"> {
  return { pattern: new RegExp(String.raw`(?<![A-Za-z0-9_\-])(?:${prefix})${chars}{${min},}`, "gd"), glued: { prefix, chars, min } };
}

const hasDigit = (s: string) => /\d/.test(s);
const TOK = "[A-Za-z0-9_\\-]";
const VALUE = String.raw`(?<s>"[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'\x60;|&]{1,256})`;
const notPlaceholder = (s: string) => !isPlaceholder(s);
/** Options that make a command read a password from stdin. */
const STDIN_FLAG = String.raw`(?:--(?:password|passphrase|pass)-stdin|(?<=passwd[ \t]{1,8})--stdin)\b`;

export const SECRET_KINDS: SecretKind[] = [
  { kind: "private-key", what: "a private key", hints: ["PRIVATE KEY"], scan: scanPrivateKeys },
  { kind: "age-key", what: "an age secret key", hints: ["AGE-SECRET-KEY-1"], pattern: /AGE-SECRET-KEY-1[0-9A-Z]{50,}/dg },
  {
    kind: "slack-webhook",
    what: "a Slack webhook URL",
    hints: ["hooks.slack.com"],
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<s>[A-Za-z0-9_\-/]{16,300})/dg,
  },
  {
    kind: "discord-webhook",
    what: "a Discord webhook URL",
    hints: ["/api/webhooks/"],
    pattern: /discord(?:app)?\.com\/api\/webhooks\/(?<s>\d{5,30}\/[A-Za-z0-9_-]{20,200})/dg,
  },
  { kind: "slack-token", what: "a Slack token", hints: ["xox", "xapp-"], ...prefixed("xox[abeoprs]-|xapp-", "[A-Za-z0-9\\-]", 10), accept: hasDigit },
  {
    kind: "github-token",
    what: "a GitHub token",
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    ...prefixed("gh[pousr]_|github_pat_", "[A-Za-z0-9_]", 30),
  },
  {
    kind: "gitlab-token",
    what: "a GitLab token",
    hints: ["glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glft-", "glimt-", "glagent-", "glsoat-"],
    ...prefixed("gl(?:pat|dt|ptt|rt|cbt|oas|ft|imt|agent|soat)-", TOK, 20),
  },
  { kind: "npm-token", what: "an npm token", hints: ["npm_"], ...prefixed("npm_", "[A-Za-z0-9]", 36) },
  { kind: "pypi-token", what: "a PyPI token", hints: ["pypi-"], ...prefixed("pypi-", TOK, 50) },
  { kind: "anthropic-key", what: "an Anthropic API key", hints: ["sk-ant-"], ...prefixed("sk-ant-", TOK, 20) },
  { kind: "openai-key", what: "an OpenAI API key", hints: ["sk-"], ...prefixed("sk-(?:proj-|svcacct-|admin-)?", TOK, 20), accept: hasDigit },
  {
    kind: "stripe-key",
    what: "a Stripe secret key",
    hints: ["_live_", "_test_", "whsec_"],
    ...prefixed("(?:sk|rk)_(?:live|test)_|whsec_", "[A-Za-z0-9]", 16),
  },
  { kind: "google-api-key", what: "a Google API key", hints: ["AIza"], ...prefixed("AIza", TOK, 35) },
  { kind: "google-oauth", what: "a Google OAuth secret or token", hints: ["GOCSPX-", "ya29."], ...prefixed("GOCSPX-|ya29\\.", TOK, 20) },
  {
    kind: "aws-access-key-id",
    what: "an AWS access key id",
    hints: ["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"],
    pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}/dg,
    // Glued to more capitals (`ASIAPACIFICREGIONAL`), it is a key id only if it has a digit.
    accept: (s, text, at) => !/[0-9A-Z]/.test(text[at + s.length] ?? "") || hasDigit(s),
    glued: { prefix: "AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA", chars: "[0-9A-Z]", min: 16 },
  },
  { kind: "huggingface-token", what: "a Hugging Face token", hints: ["hf_"], ...prefixed("hf_", "[A-Za-z0-9]", 30) },
  { kind: "digitalocean-token", what: "a DigitalOcean token", hints: ["_v1_"], ...prefixed("do[opr]_v1_", "[A-Za-z0-9]", 40) },
  { kind: "vault-token", what: "a HashiCorp Vault token", hints: ["hvs.", "hvb.", "hvr."], ...prefixed("hv[sbr]\\.", TOK, 20) },
  { kind: "terraform-token", what: "a Terraform Cloud token", hints: [".atlasv1."], pattern: /\.atlasv1\.(?<s>[A-Za-z0-9_-]{40,})/dg },
  {
    kind: "shopify-token",
    what: "a Shopify token",
    hints: ["shpat_", "shpca_", "shppa_", "shpss_"],
    ...prefixed("shp(?:at|ca|pa|ss)_", "[A-Fa-f0-9]", 32),
  },
  { kind: "heroku-key", what: "a Heroku API key", hints: ["HRKU-"], ...prefixed("HRKU-", TOK, 20) },
  { kind: "twilio-key", what: "a Twilio API key", hints: ["SK"], pattern: /(?<![A-Za-z0-9])SK[0-9a-f]{32}/dg },
  { kind: "mailgun-key", what: "a Mailgun API key", hints: ["key-"], pattern: /(?<![A-Za-z0-9_-])key-[0-9a-zA-Z]{32}/dg, accept: hasDigit },
  { kind: "mailchimp-key", what: "a Mailchimp API key", hints: ["-us"], pattern: /(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}/dg },
  { kind: "sendgrid-key", what: "a SendGrid API key", hints: ["SG."], pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/dg },
  { kind: "square-token", what: "a Square token", hints: ["sq0"], ...prefixed("sq0(?:atp|csp)-", TOK, 22) },
  { kind: "docker-token", what: "a Docker Hub token", hints: ["dckr_"], ...prefixed("dckr_(?:pat|oat)_", TOK, 20) },
  { kind: "databricks-token", what: "a Databricks token", hints: ["dapi"], pattern: /(?<![A-Za-z0-9])dapi[0-9a-f]{32}(?:-\d)?/dg },
  { kind: "grafana-token", what: "a Grafana token", hints: ["glsa_", "glc_"], ...prefixed("glsa_|glc_", "[A-Za-z0-9_=+/]", 32) },
  { kind: "sentry-token", what: "a Sentry token", hints: ["sntry"], ...prefixed("sntry[us]_", "[A-Za-z0-9_=+/]", 40) },
  { kind: "linear-key", what: "a Linear API key", hints: ["lin_api_"], ...prefixed("lin_api_", "[A-Za-z0-9]", 32) },
  { kind: "postman-key", what: "a Postman API key", hints: ["PMAK-"], ...prefixed("PMAK-", "[A-Za-z0-9\\-]", 50) },
  { kind: "atlassian-token", what: "an Atlassian API token", hints: ["ATATT", "ATBB"], ...prefixed("ATATT|ATBB", "[A-Za-z0-9_\\-=]", 24) },
  { kind: "rubygems-key", what: "a RubyGems API key", hints: ["rubygems_"], ...prefixed("rubygems_", "[a-f0-9]", 48) },
  { kind: "nuget-key", what: "a NuGet API key", hints: ["oy2"], pattern: /(?<![A-Za-z0-9])oy2[a-z0-9]{43}/dg },
  { kind: "supabase-token", what: "a Supabase token", hints: ["sbp_"], ...prefixed("sbp_", "[a-f0-9]", 40) },
  { kind: "planetscale-token", what: "a PlanetScale token", hints: ["pscale_"], ...prefixed("pscale_(?:tkn|pw|oauth)_", TOK, 32) },
  { kind: "groq-key", what: "a Groq API key", hints: ["gsk_"], ...prefixed("gsk_", "[A-Za-z0-9]", 40) },
  { kind: "xai-key", what: "an xAI API key", hints: ["xai-"], ...prefixed("xai-", "[A-Za-z0-9]", 40) },
  { kind: "replicate-token", what: "a Replicate token", hints: ["r8_"], ...prefixed("r8_", "[A-Za-z0-9]", 30) },
  { kind: "perplexity-key", what: "a Perplexity API key", hints: ["pplx-"], ...prefixed("pplx-", "[A-Za-z0-9]", 40) },
  { kind: "brevo-key", what: "a Brevo API key", hints: ["xkeysib-"], ...prefixed("xkeysib-", "[A-Za-z0-9\\-]", 40) },
  { kind: "figma-token", what: "a Figma token", hints: ["figd_"], ...prefixed("figd_", TOK, 30) },
  { kind: "notion-token", what: "a Notion token", hints: ["ntn_", "secret_"], ...prefixed("ntn_|secret_", "[A-Za-z0-9]", 40), accept: hasDigit },
  { kind: "new-relic-key", what: "a New Relic key", hints: ["NRAK-", "NRJS-", "NRII-"], ...prefixed("NRAK-|NRJS-|NRII-", "[A-Za-z0-9]", 24) },
  { kind: "doppler-token", what: "a Doppler token", hints: ["dp."], ...prefixed("dp\\.(?:pt|st|sa|ct|scim|audit)\\.", "[A-Za-z0-9]", 40) },
  { kind: "alibaba-key", what: "an Alibaba Cloud key id", hints: ["LTAI"], pattern: /(?<![A-Za-z0-9])LTAI[A-Za-z0-9]{12,20}/dg },
  { kind: "facebook-token", what: "a Facebook access token", hints: ["EAA"], pattern: /(?<![A-Za-z0-9])EAA[A-Za-z0-9]{80,}/dg },
  { kind: "mapbox-token", what: "a Mapbox secret token", hints: ["sk.eyJ"], pattern: /(?<![A-Za-z0-9_-])sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{10,}/dg },
  { kind: "tailscale-key", what: "a Tailscale key", hints: ["tskey-"], ...prefixed("tskey-(?:auth|api|client|scim|webhook)-", TOK, 20) },
  { kind: "fly-token", what: "a Fly.io token", hints: ["fm1", "fm2_", "FlyV1 "], ...prefixed("FlyV1 fm2_|fm[12][ar]?_", "[A-Za-z0-9+/=_\\-]", 40) },
  { kind: "pulumi-token", what: "a Pulumi token", hints: ["pul-"], ...prefixed("pul-", "[a-f0-9]", 40) },
  { kind: "netlify-token", what: "a Netlify token", hints: ["nfp_"], ...prefixed("nfp_", "[A-Za-z0-9]", 36) },
  { kind: "render-key", what: "a Render API key", hints: ["rnd_"], ...prefixed("rnd_", "[A-Za-z0-9]", 28) },
  { kind: "buildkite-token", what: "a Buildkite token", hints: ["bkua_"], ...prefixed("bkua_", "[a-f0-9]", 40) },
  { kind: "circleci-token", what: "a CircleCI token", hints: ["CCIPAT_"], ...prefixed("CCIPAT_", TOK, 30) },
  { kind: "dynatrace-token", what: "a Dynatrace token", hints: ["dt0c01."], ...prefixed("dt0c01\\.", "[A-Za-z0-9.]", 60) },
  { kind: "prefect-key", what: "a Prefect API key", hints: ["pnu_"], ...prefixed("pnu_", "[A-Za-z0-9]", 36) },
  { kind: "readme-key", what: "a ReadMe API key", hints: ["rdme_"], ...prefixed("rdme_", "[a-z0-9]", 70) },
  { kind: "langsmith-key", what: "a LangSmith API key", hints: ["lsv2_"], ...prefixed("lsv2_(?:pt|sk)_", "[A-Za-z0-9_]", 32) },
  { kind: "pinecone-key", what: "a Pinecone API key", hints: ["pcsk_"], ...prefixed("pcsk_", "[A-Za-z0-9_]", 40) },
  { kind: "shippo-token", what: "a Shippo token", hints: ["shippo_"], ...prefixed("shippo_(?:live|test)_", "[a-f0-9]", 40) },
  { kind: "typeform-token", what: "a Typeform token", hints: ["tfp_"], ...prefixed("tfp_", "[A-Za-z0-9_\\-.]", 44) },
  { kind: "airtable-token", what: "an Airtable token", hints: ["pat"], pattern: /(?<![A-Za-z0-9])pat[A-Za-z0-9]{14}\.[a-f0-9]{64}/dg },
  { kind: "dropbox-token", what: "a Dropbox token", hints: ["sl."], ...prefixed("sl\\.(?:u\\.)?", TOK, 130) },
  { kind: "easypost-key", what: "an EasyPost key", hints: ["EZAK", "EZTK"], ...prefixed("EZ[AT]K", "[A-Za-z0-9]", 54) },
  {
    kind: "telegram-bot-token",
    what: "a Telegram bot token",
    hints: [":AA"],
    pattern: /(?<![0-9])[0-9]{6,12}:AA[0-9A-Za-z_-]{30,}/dg,
  },
  { kind: "discord-bot-token", what: "a chat bot token (Discord style: id.time.signature)", hints: [], scan: scanBotTokens },
  {
    kind: "jwt",
    what: "a JSON web token",
    hints: ["eyJ"],
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/dg,
  },
  {
    kind: "url-password",
    what: "a password in a URL",
    hints: ["://"],
    // scheme://user:password@host, and redis://:password@host. A password may hold `@` or `!`:
    // the last `@` before the host ends it.
    pattern: /:\/\/[^\s:/@"'<>]{0,256}:(?<s>[^\s/"'<>]{1,256})@(?=[A-Za-z0-9[._-])/dg,
    accept: (s) => notPlaceholder(s.replace(/@.*$/, "")) && !/^\d{1,5}$/.test(s),
  },
  {
    kind: "azure-key",
    what: "an Azure key or SAS signature",
    caseless: true,
    hints: ["accountkey=", "sharedaccesskey=", "sig=", "sharedaccesssignature="],
    pattern: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=(?<s>[A-Za-z0-9+/=%]{16,1024})/dgi,
    accept: (s) => hasDigit(s) || /[+/%]/.test(s),
  },
  {
    kind: "url-signature",
    what: "a signature in a signed URL",
    caseless: true,
    hints: ["signature="],
    pattern: /(?<![A-Za-z0-9])(?:X-Amz-Signature|X-Goog-Signature|oauth_signature|Signature)=(?<s>[A-Za-z0-9%+/=_-]{16,1024})/dgi,
    accept: hasDigit,
  },
  {
    kind: "authorization",
    what: "an Authorization header",
    caseless: true,
    hints: ["authorization"],
    pattern: /authorization["']?[ \t]{0,8}[:=][ \t]{0,8}["']?(?:(?:Bearer|Basic|Token|Digest|Bot|ApiKey|Key)[ \t]{1,8})?(?<s>[A-Za-z0-9._~+/=\-:]{8,2048})/dgi,
    accept: notPlaceholder,
  },
  {
    kind: "bearer-token",
    what: "a bearer token",
    caseless: true,
    hints: ["bearer"],
    pattern: /(?<![A-Za-z0-9])Bearer[ \t]{1,8}(?<s>[A-Za-z0-9._~+/=-]{12,2048})/dgi,
    accept: (s) => looksRandom(s, 12),
  },
  {
    kind: "basic-credentials",
    what: "a user:password pair given to curl, wget or an HTTP client",
    hints: ["curl", "wget", "http", "xh ", "lftp"],
    pattern:
      /(?<![A-Za-z0-9_-])(?:curl|wget|https?|xh|httpie|lftp)(?=[ \t])[^\n|;&]{0,256}?[ \t](?:-u|--user|--proxy-user|-U)(?:=|[ \t]{1,8})["']?[^\s:"']{1,128}:(?<s>[^\s"']{1,256})/dg,
    accept: notPlaceholder,
  },
  {
    kind: "mysql-password",
    what: "a MySQL password on the command line",
    hints: ["mysql", "mariadb"],
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_\-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)[^\n|;&]{0,256}?[ \t]-p${VALUE}`,
      "gd",
    ),
    accept: notPlaceholder,
  },
  {
    kind: "sshpass-password",
    what: "a password given to sshpass",
    hints: ["sshpass"],
    pattern: new RegExp(String.raw`sshpass[ \t]{1,8}-p[ \t]{0,8}${VALUE}`, "gd"),
    accept: notPlaceholder,
  },
  {
    kind: "registry-password",
    what: "a registry password given to docker login",
    hints: [" login"],
    pattern: new RegExp(
      String.raw`(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]{1,8}registry)[ \t]{1,8}login[^\n|;&]{0,256}?[ \t](?:-p|--password)(?:=|[ \t]{1,8})${VALUE}`,
      "gd",
    ),
    accept: notPlaceholder,
  },
  {
    kind: "netrc-password",
    what: "a password in a .netrc line",
    hints: ["machine"],
    pattern: /machine[ \t]{1,8}\S{1,256}[ \t]{1,8}login[ \t]{1,8}\S{1,256}[ \t]{1,8}password[ \t]{1,8}(?<s>\S{1,256})/dg,
    accept: notPlaceholder,
  },
  {
    kind: "sudo-password",
    what: "a password piped to sudo -S",
    hints: ["sudo"],
    pattern: new RegExp(
      String.raw`(?:echo|printf)[ 	]{1,8}(?:-[ne][ 	]{1,8})?${VALUE}[ 	]{0,8}\|[ 	]{0,8}sudo[ 	]{1,8}(?:-[A-Za-z]{1,8}[ 	]{1,8}){0,4}?-[A-Za-z]{0,8}S`,
      "gd",
    ),
    accept: notPlaceholder,
  },
  {
    kind: "stdin-password",
    what: "a password piped to a command that reads it from stdin",
    hints: ["-stdin"],
    // `echo x | docker login --password-stdin`, `printf '%s\n' x | … --password-stdin`, `echo x | passwd --stdin u`.
    pattern: new RegExp(
      String.raw`(?:echo|printf)[ \t]{1,8}(?:-[ne][ \t]{1,8})?(?:(?:'%s(?:\\n)?'|"%s(?:\\n)?"|%s)[ \t]{1,8})?${VALUE}[ \t]{0,8}\|[^\n|;&]{0,256}?[ \t]${STDIN_FLAG}`,
      "gd",
    ),
    accept: notPlaceholder,
  },
  {
    kind: "herestring-password",
    what: "a password given as a here-string to a command that reads it from stdin",
    hints: ["<<<"],
    pattern: new RegExp(String.raw`[ \t]${STDIN_FLAG}[^\n|;&<]{0,256}?<<<[ \t]{0,8}${VALUE}`, "gd"),
    accept: notPlaceholder,
  },
  {
    kind: "cli-password",
    what: "a password given on a command line",
    hints: ["redis-cli", "ldap", "-pass", "gh secret", "-passin", "-passout"],
    pattern: new RegExp(
      String.raw`(?:(?:redis-cli|keydb-cli)[^
|;&]{0,256}?[ 	]-a|ldap(?:search|add|modify|delete|whoami|passwd)[^
|;&]{0,256}?[ 	]-w|-pass(?:in|out)?[ 	]{1,8}pass:|gh[ 	]{1,8}secret[ 	]{1,8}set[^
|;&]{0,256}?[ 	](?:-b|--body))(?:=|[ 	]{0,8})${VALUE}`,
      "gd",
    ),
    accept: notPlaceholder,
  },
  {
    kind: "cookie",
    what: "a cookie header",
    caseless: true,
    hints: ["cookie:"],
    pattern: /(?<![A-Za-z0-9-])(?:set-)?cookie:[ \t]{0,8}(?<s>[^\r\n"']{16,4096})/dgi,
    // A session cookie is a long random value; `theme=dark; Path=/` is none.
    accept: (s) => /[A-Za-z0-9%_\-+/.]{20}/.test(s) && hasDigit(s),
  },
  {
    kind: "url-token",
    what: "a token as the user of a URL",
    hints: ["://"],
    pattern: /:\/\/(?<s>[A-Za-z0-9_-]{20,256})@(?=[A-Za-z0-9[._-])/dg,
    accept: (s) => looksRandom(s, 20) && hasDigit(s),
  },
  {
    kind: "npmrc-auth",
    what: "an npm registry credential",
    hints: ["_auth", "_password"],
    // `.npmrc` lines: `//registry/:_authToken=…`, or `_auth=…` at the start of a line.
    pattern: /(?:\/\/[^\s:]{1,256}\/:|^[ \t]{0,8})(?:_authToken|_auth|_password)[ \t]{0,4}=[ \t]{0,4}(?<s>[^\s"']{8,1024})/dgm,
    accept: notPlaceholder,
  },
  {
    kind: "secret-assignment",
    what: "a secret assigned to a name such as *_TOKEN or password",
    caseless: true,
    hints: ["pass", "pwd", "pw", "secret", "token", "key", "credential", "pat"],
    scan: scanAssignments,
  },
];
// After the table: the glued scanner reads the prefixes of the kinds above.
SECRET_KINDS.push({
  kind: "glued-token",
  what: "a token glued to other characters",
  hints: [...new Set(SECRET_KINDS.filter((k) => k.glued).flatMap((k) => k.hints))],
  scan: scanGlued,
});

// ---- finding and masking ---------------------------------------------------------------------

/** Every secret in the text, in order; overlapping finds are merged (the earlier rule names it). */
export function findSecrets(text: string): SecretMatch[] {
  // One pass per group finds the hints that are there; most texts hold none, and a kind whose
  // hints are all missing is not looked for.
  const { exact, caseless, unhinted } = (hints ??= hintTables());
  const wanted = new Set(unhinted);
  for (const h of exact.scanner.present(text)) for (const k of exact.kinds.get(h)!) wanted.add(k);
  for (const h of caseless.scanner.present(text)) for (const k of caseless.kinds.get(h)!) wanted.add(k);
  const raw: SecretMatch[] = [];
  for (const kind of SECRET_KINDS) {
    if (!wanted.has(kind)) continue;
    const found = (start: number, end: number, named = kind) => {
      if (end > start) raw.push({ kind: named, start, end });
    };
    // The assignment scanner checks its values itself (a short password is still one).
    if (kind.scan) {
      kind.scan(text, found);
      continue;
    }
    const re = kind.pattern!;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const [start, end] = (m.indices!.groups?.s ?? m.indices![0]) as [number, number];
      const secret = text.slice(start, end);
      if (!varied(secret) || (kind.accept && !kind.accept(secret, text, start))) continue;
      found(start, end);
    }
  }
  return mergeOverlaps(text.includes("[masked:") ? raw.filter(outside(masks(text))) : raw);
}

/** A mask rkb wrote (`[masked:github-token]`). */
export const MASK = /\[masked:[a-z0-9-]{1,40}\]/g;

/** Where masks rkb wrote are: a pattern that reads part of one (`user:pw` in `[masked:x]:`) finds nothing new. */
function masks(text: string): [number, number][] {
  return [...text.matchAll(MASK)].map((m) => [m.index, m.index + m[0].length]);
}

function outside(spans: [number, number][]): (m: SecretMatch) => boolean {
  const starts = spans.map((s) => s[0]);
  return (m) => {
    // Masks are sorted and disjoint: if the last one starting before the match's end ends before
    // the match starts, so do all the others.
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < m.end) lo = mid + 1;
      else hi = mid;
    }
    const span = spans[lo - 1];
    return !span || span[1] <= m.start;
  };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The hints of one group (exact or caseless) found in a text, in one pass of one regex. Every
 * position where a hint starts is tried; there the longest hint that matches is found (the
 * alternatives go longest first), and with it every hint that is a prefix of it, which match there
 * too: so the set holds every hint the text contains, as `includes` would find them one by one.
 */
function hintScanner(caseless: boolean) {
  const hints = [...new Set(SECRET_KINDS.filter((k) => !!k.caseless === caseless).flatMap((k) => k.hints))].sort((a, b) => b.length - a.length);
  const known = new Set(hints);
  // Worked out for a hint when it is first found: most never are, and every process loads this table.
  const prefixes = new Map<string, string[]>();
  const prefixesOf = (h: string) => {
    let list = prefixes.get(h);
    if (!list) prefixes.set(h, (list = known.has(h) ? hints.filter((p) => h.startsWith(p)) : []));
    return list;
  };
  const scan = new RegExp(hints.map(escapeRegex).join("|"), caseless ? "gi" : "g");
  return {
    present(text: string): Set<string> {
      const found = new Set<string>();
      scan.lastIndex = 0;
      for (let m = scan.exec(text); m; m = scan.exec(text)) {
        for (const p of prefixesOf(caseless ? m[0].toLowerCase() : m[0])) found.add(p);
        scan.lastIndex = m.index + 1;
      }
      return found;
    },
  };
}
/** For each hint, the kinds it hints at; kinds without hints are always looked for. */
const kindsOf = (caseless: boolean) => {
  const map = new Map<string, SecretKind[]>();
  for (const k of SECRET_KINDS) if (!!k.caseless === caseless) for (const h of k.hints) map.set(h, [...(map.get(h) ?? []), k]);
  return map;
};
/** The hint scanners and what each hint points to, built when a text is first masked: many rkb processes never mask one. */
function hintTables() {
  return {
    exact: { scanner: hintScanner(false), kinds: kindsOf(false) },
    caseless: { scanner: hintScanner(true), kinds: kindsOf(true) },
    unhinted: SECRET_KINDS.filter((k) => !k.hints.length),
  };
}
let hints: ReturnType<typeof hintTables> | undefined;

/** Placeholders made of one repeated character after a prefix (`ghp_xxxx…`, `AKIAXXXX…`) are no secret. */
function varied(secret: string): boolean {
  const tail = secret.slice(-16);
  return new Set(tail).size >= Math.min(4, Math.ceil(tail.length / 4));
}

/** Where a kind stands in the table: on overlap, the earlier (more specific) kind names the secret. */
const RANK = new Map(SECRET_KINDS.map((k, i) => [k, i]));

function mergeOverlaps(matches: SecretMatch[]): SecretMatch[] {
  if (matches.length < 2) return matches;
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretMatch[] = [];
  for (const m of matches) {
    const last = out.at(-1);
    if (last && m.start < last.end) {
      last.end = Math.max(last.end, m.end);
      if (RANK.get(m.kind)! < RANK.get(last.kind)!) last.kind = m.kind;
    } else out.push({ ...m });
  }
  return out;
}

/** The text with every secret replaced by `[masked:<kind>]`. Mask whole texts before cutting them up. */
export function maskSecrets(text: string): string {
  const found = findSecrets(text);
  if (!found.length) return text;
  let out = "";
  let at = 0;
  for (const m of found) {
    out += text.slice(at, m.start) + maskFor(m.kind.kind);
    at = m.end;
  }
  return out + text.slice(at);
}

/** Between texts masked as one: no secret kind reads across a line holding only a NUL. */
const BETWEEN = "\n\u0000\n";

/**
 * Many texts masked at once, the same as each alone: one pass over them all costs far less than
 * one per text (a session's hundreds of commands). Should a match reach across two texts (a key's
 * BEGIN in one, an END in the next), each is masked alone instead.
 */
export function maskAll(texts: string[]): string[] {
  if (texts.length < 2 || texts.some((t) => t.includes("\u0000"))) return texts.map(maskSecrets);
  const masked = maskSecrets(texts.join(BETWEEN)).split(BETWEEN);
  return masked.length === texts.length ? masked : texts.map(maskSecrets);
}
