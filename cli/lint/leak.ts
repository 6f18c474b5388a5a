import { RkbError } from "../base/errors.ts";
import { EMAIL, namesPerson } from "../text/emails.ts";
import { findSecrets, maskFor, type SecretKind } from "../text/secrets.ts";
import type { KbConfig } from "../lesson/config.ts";

// What must not land in a knowledge base others may read: secrets (the one rule set of
// text/secrets.ts), user names, e-mail addresses, paths into someone's home or scratch space,
// and batch job ids. Scanned over whole files (frontmatter and code blocks included), because code
// is where paths and tokens leak most.

export type LeakRule = "leak/secret" | "leak/username" | "leak/email" | "leak/path" | "leak/job-id";

export interface Leak {
  rule: LeakRule;
  /** 1-based line in the scanned text. */
  line: number;
  /** What was found; for a secret, its mask (the finding never repeats a secret). */
  text: string;
  /** The kind of secret, for `leak/secret`. */
  secret?: SecretKind;
}

export interface LeakOptions {
  usernames: string[];
  /** Path prefixes that belong to a person or a site. */
  pathRoots: string[];
  /** Exact strings that are never a leak. */
  allow: string[];
}

/** Site file systems whose next path part is usually a user name or a project's private area. */
const SITE_PATH_ROOTS = ["/home/", "/Users/", "/g/g", "/p/lustre", "/p/vast", "/usr/workspace/", "/scratch/", "/lustre/"];

/** `root` is an administrator account, not a person, and "root" is an everyday word in lessons. */
const SHARED_ACCOUNTS = new Set(["root"]);

export function leakOptions(leak: KbConfig["leak"], env: NodeJS.ProcessEnv): LeakOptions {
  const usernames = [...leak.usernames];
  if (env.USER && !SHARED_ACCOUNTS.has(env.USER)) usernames.push(env.USER);
  const pathRoots = [...SITE_PATH_ROOTS, ...leak.paths];
  if (env.HOME && env.HOME !== "/") pathRoots.push(env.HOME.replace(/\/*$/, "/"));
  return { usernames: usernames.filter((u) => u.length >= 2), pathRoots, allow: leak.allow };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const PATH_CHARS = "[^\\s\"'`<>()\\[\\]{},;|]*";
const JOB_IDS = [
  /\bSLURM_JOB_ID=\d+/g,
  // A generic `job_id = 0` in example code is no real job; scheduler ids have several digits.
  /\bjob[ _]?id\s*[=:]\s*\d{3,}/gi,
  /\bSubmitted batch job \d+/g,
  // Flux job ids: `ƒ` + base58, or an `f` + base58 word that mixes digits and capitals.
  /ƒ[1-9A-HJ-NP-Za-km-z]{3,}/g,
  /\bf(?=[1-9A-HJ-NP-Za-km-z]*[0-9])(?=[1-9A-HJ-NP-Za-km-z]*[A-Z])[1-9A-HJ-NP-Za-km-z]{5,}\b/g,
];

/** Where a secret stands in a text: its span, its 1-based line and its kind. */
interface SecretSpan {
  start: number;
  end: number;
  line: number;
  kind: SecretKind;
}

function secretSpans(text: string, allow: string[]): SecretSpan[] {
  const spans: SecretSpan[] = [];
  let line = 1;
  let at = 0;
  let lineStart = 0;
  for (const m of findSecrets(text)) {
    for (let nl = text.indexOf("\n", at); nl !== -1 && nl < m.start; nl = text.indexOf("\n", nl + 1)) {
      line++;
      lineStart = nl + 1;
      at = nl + 1;
    }
    const lineEnd = text.indexOf("\n", m.start);
    const secret = text.slice(m.start, m.end);
    if (allowed(text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd), m.start - lineStart, secret, allow)) continue;
    spans.push({ start: m.start, end: m.end, line, kind: m.kind });
  }
  return spans;
}

const asLeak = (s: SecretSpan): Leak => ({ rule: "leak/secret", line: s.line, text: maskFor(s.kind.kind), secret: s.kind });

/** The secrets in a text as `leak/secret` leaks, with their lines. */
export function secretLeaks(text: string, allow: string[] = []): Leak[] {
  return secretSpans(text, allow).map(asLeak);
}

/** What another finding quotes, with any secret inside it masked (`<token>@github.com` is an e-mail address and a token). */
function quoted(match: string, at: number, spans: SecretSpan[]): string {
  let out = match;
  for (const s of [...spans].reverse()) {
    if (s.end <= at || s.start >= at + match.length) continue;
    out = out.slice(0, Math.max(s.start - at, 0)) + maskFor(s.kind.kind) + out.slice(Math.min(s.end - at, match.length));
  }
  return out;
}

/**
 * Refuses text about to be written outside a lesson (a commit message, a use record's reason, an
 * inbox note) when it holds a secret: the error names the kind and the line, never the secret.
 */
export function refuseSecrets(text: string, what: string): void {
  const leaks = secretLeaks(text);
  if (!leaks.length) return;
  const first = leaks[0]!;
  const more = leaks.length > 1 ? ` (and ${leaks.length - 1} more)` : "";
  throw new RkbError("refused", `${what}, line ${first.line}: ${secretMessage(first)}${more}`, "nothing was written; take the secret out and try again", {
    findings: leaks.map((l) => ({ path: what, line: l.line, severity: "error", rule: l.rule, message: secretMessage(l) })),
  });
}

/** The finding's words for a secret: its kind, never its text. */
export function secretMessage(leak: Leak): string {
  return `this looks like ${leak.secret!.what} (${leak.secret!.kind}); write a placeholder such as \`$TOKEN\` or \`<password>\` instead, and rotate the secret if it was real`;
}

export function findLeaks(text: string, opts: LeakOptions): Leak[] {
  const spans = secretSpans(text, opts.allow);
  const secrets = spans.map(asLeak);
  /** The secrets of each line, for masking what other findings quote. */
  const secretsOn = new Map<number, SecretSpan[]>();
  for (const s of spans) secretsOn.set(s.line, [...(secretsOn.get(s.line) ?? []), s]);
  const usernames = opts.usernames.map((u) => new RegExp(`(?<![A-Za-z0-9_])${escapeRegex(u)}(?![A-Za-z0-9_])`, "g"));
  const paths = opts.pathRoots.map((root) => ({ root, re: new RegExp(`(?<![\\w.~/$-])${escapeRegex(root)}${PATH_CHARS}`, "g") }));
  const leaks: Leak[] = [];
  let lineStart = 0;
  text.split("\n").forEach((line, i) => {
    const inLine: { at: number; leak: Leak }[] = [];
    const onLine = secretsOn.get(i + 1) ?? [];
    const start = lineStart;
    lineStart += line.length + 1;
    const found = (rule: LeakRule, m: RegExpMatchArray) => {
      // Sentence punctuation after a path is not part of it.
      const match = rule === "leak/path" ? m[0].replace(/[.:!?]+$/, "") : m[0];
      if (allowed(line, m.index!, match, opts.allow)) return;
      inLine.push({ at: m.index!, leak: { rule, line: i + 1, text: onLine.length ? quoted(match, start + m.index!, onLine) : match } });
    };
    for (const re of usernames) for (const m of line.matchAll(re)) found("leak/username", m);
    for (const m of line.matchAll(EMAIL)) if (namesPerson(m[0])) found("leak/email", m);
    for (const { root, re } of paths) for (const m of line.matchAll(re)) if (namesSomeone(root, m[0].slice(root.length))) found("leak/path", m);
    for (const re of JOB_IDS) for (const m of line.matchAll(re)) found("leak/job-id", m);
    leaks.push(...inLine.sort((a, b) => a.at - b.at).map((x) => x.leak));
  });
  return secrets.length ? [...secrets, ...leaks].sort((a, b) => a.line - b.line) : leaks;
}

/**
 * Whether the rest of a path after its root names a real place: a bare root names no one, and
 * `/home/$USER/…` is a placeholder. A root without a trailing `/` (`/g/g`) ends inside a path part
 * (`/g/g0/alice`), so the part to look at is the one after that.
 */
function namesSomeone(root: string, rest: string): boolean {
  let next = rest;
  if (!root.endsWith("/")) {
    const slash = rest.indexOf("/");
    if (slash === -1) return false;
    next = rest.slice(slash + 1);
  }
  return next !== "" && !next.startsWith("$");
}

function allowed(line: string, at: number, match: string, allow: string[]): boolean {
  for (const a of allow) {
    if (a === "") continue;
    for (let from = line.indexOf(a); from !== -1; from = line.indexOf(a, from + 1)) {
      if (from <= at && at + match.length <= from + a.length) return true;
    }
  }
  return false;
}
