import { wildcardMatches, wildcardProblem } from "../base/glob.ts";
import type { YamlValue } from "../lesson/yaml.ts";

// Whether a lesson's `when` conditions hold at the current place. Each key is checked against the
// place's facts and gives yes, no or unknown (a fact rkb does not have); the lesson applies when no
// key says no and none is unknown. Versions compare the Spack way: `1.12:1.14` is a range whose
// bounds also match the versions they are a prefix of, `gcc@12:` names the package too.

export type Verdict = "yes" | "no" | "unknown";

export interface KeyVerdict {
  key: string;
  want: string;
  have: string | null;
  result: Verdict;
  reason: string;
}

export interface WhenVerdict {
  result: Verdict;
  keys: KeyVerdict[];
}

export interface WhenGit {
  /** Whether a commit is an ancestor of HEAD here (undefined: no checkout, or the commit is unknown). */
  isAncestor: (commit: string) => boolean | undefined;
}

type Part = number | string;

/** Versions that are ahead of every release when they lead a version. */
const BRANCH_NAMES = new Set(["develop", "main", "master", "head"]);

/** `v1.14.2-rc1` → [1, 14, 2, "rc", 1]; undefined when it is not a version at all. */
export function parseVersion(text: string): Part[] | undefined {
  const s = text.trim().replace(/^[vV](?=\d)/, "");
  if (!s || !/^[A-Za-z0-9._-]+$/.test(s)) return undefined;
  const parts: Part[] = [];
  for (const m of s.matchAll(/\d+|[A-Za-z]+/g)) parts.push(/^\d/.test(m[0]) ? Number(m[0]) : m[0].toLowerCase());
  return parts.length ? parts : undefined;
}

function comparePart(a: Part, b: Part, first: boolean): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (first) {
    const aBranch = typeof a === "string" && BRANCH_NAMES.has(a);
    const bBranch = typeof b === "string" && BRANCH_NAMES.has(b);
    if (aBranch !== bBranch) return aBranch ? 1 : -1;
  }
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return typeof a === "string" ? -1 : 1;
}

export function compareVersions(a: Part[], b: Part[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = comparePart(a[i]!, b[i]!, i === 0);
    if (c !== 0) return c;
  }
  if (a.length === b.length) return 0;
  // 1.0.1 > 1.0 but 1.0-rc1 < 1.0: a longer version is greater only when it continues with a number.
  const longer = a.length > b.length ? a : b;
  const sign = typeof longer[n] === "number" ? 1 : -1;
  return a.length > b.length ? sign : -sign;
}

function isPrefix(prefix: Part[], of: Part[]): boolean {
  return prefix.length <= of.length && prefix.every((p, i) => p === of[i]);
}

export interface VersionRange {
  lo?: Part[];
  hi?: Part[];
}

/** `1.12:1.14`, `1.10:`, `:2`, or a bare `1.14` (the prefix range `1.14:1.14`); undefined if malformed. */
function parseVersionRange(text: string): VersionRange | undefined {
  const colon = text.indexOf(":");
  if (colon < 0) {
    const v = parseVersion(text);
    return v ? { lo: v, hi: v } : undefined;
  }
  if (text.indexOf(":", colon + 1) >= 0) return undefined;
  const [loText, hiText] = [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
  const range: VersionRange = {};
  if (loText) {
    range.lo = parseVersion(loText);
    if (!range.lo) return undefined;
  }
  if (hiText) {
    range.hi = parseVersion(hiText);
    if (!range.hi) return undefined;
  }
  return range;
}

function inRange(version: Part[], range: VersionRange): boolean {
  const aboveLo = !range.lo || compareVersions(version, range.lo) >= 0 || isPrefix(range.lo, version);
  const belowHi = !range.hi || compareVersions(version, range.hi) <= 0 || isPrefix(range.hi, version);
  return aboveLo && belowHi;
}

/** Why a `when` value is invalid, or undefined when it is fine (used by lint's `when/invalid`). */
export function isValidWhenValue(key: string, value: unknown): string | undefined {
  if (Array.isArray(value)) {
    if (!value.length) return `\`when.${key}\` is an empty list; remove it or list at least one value`;
    for (const item of value) {
      const problem = isValidWhenValue(key, item);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value === "number") return `\`when.${key}\` is the number ${value}; versions must be quoted strings, e.g. "${value}"`;
  if (typeof value !== "string") return `\`when.${key}\` must be a string or a list of strings`;
  if (!value.trim()) return `\`when.${key}\` is empty`;
  if (key === "since" || key === "until") return /^[0-9a-f]{7,40}$/i.test(value) ? undefined : `\`when.${key}\` must be a commit id (7–40 hex characters)`;
  if (key === "path") {
    const problem = wildcardProblem(value);
    return problem ? `\`when.path\` is not a valid glob: ${problem}` : undefined;
  }
  const at = value.indexOf("@");
  const range = at > 0 ? value.slice(at + 1) : value;
  if (at > 0 || value.includes(":")) {
    if (!parseVersionRange(range)) return `\`when.${key}\` has an unreadable version range \`${range}\`; write lo:hi, lo: or :hi, e.g. "1.12:1.14"`;
  }
  return undefined;
}

function checkOne(key: string, want: string, have: string | undefined, git?: WhenGit): Omit<KeyVerdict, "key" | "want" | "have"> {
  if (key === "since" || key === "until") {
    const ancestor = git?.isAncestor(want);
    if (ancestor === undefined) return { result: "unknown", reason: `cannot tell whether ${want} is in this checkout` };
    const yes = key === "since" ? ancestor : !ancestor;
    return { result: yes ? "yes" : "no", reason: ancestor ? `${want} is an ancestor of HEAD` : `${want} is not an ancestor of HEAD` };
  }
  if (have === undefined) return { result: "unknown", reason: `no fact \`${key}\` here; ${factFlag(key)} sets it` };
  if (key === "path") {
    const ok = wildcardMatches(want, have);
    return { result: ok ? "yes" : "no", reason: ok ? `${have} matches ${want}` : `${have} does not match ${want}` };
  }
  const at = want.indexOf("@");
  if (at > 0) {
    const [name, rangeText] = [want.slice(0, at), want.slice(at + 1)];
    const haveAt = have.indexOf("@");
    if (haveAt < 0) return { result: "unknown", reason: `\`${key}\` is \`${have}\`, not name@version` };
    if (have.slice(0, haveAt) !== name) return { result: "no", reason: `${have} is not ${name}` };
    return rangeVerdict(rangeText, have.slice(haveAt + 1));
  }
  if (want.includes(":")) return rangeVerdict(want, have);
  return want === have ? { result: "yes", reason: `${key} is ${have}` } : { result: "no", reason: `${key} is ${have}, not ${want}` };
}

/** The flag that sets the fact a `when` key is checked against. */
export function factFlag(key: string): string {
  return key === "project" ? "--project <name>" : key === "system" ? "--system <name>" : `--with ${key}=<value>`;
}

function rangeVerdict(rangeText: string, haveText: string): Omit<KeyVerdict, "key" | "want" | "have"> {
  const range = parseVersionRange(rangeText);
  const version = parseVersion(haveText);
  if (!range || !version) return { result: "unknown", reason: `cannot compare ${haveText} with ${rangeText}` };
  const ok = inRange(version, range);
  return { result: ok ? "yes" : "no", reason: ok ? `${haveText} is in ${rangeText}` : `${haveText} is outside ${rangeText}` };
}

function combine(verdicts: Verdict[], anyOf: boolean): Verdict {
  if (anyOf) return verdicts.includes("yes") ? "yes" : verdicts.includes("unknown") ? "unknown" : "no";
  return verdicts.includes("no") ? "no" : verdicts.includes("unknown") ? "unknown" : "yes";
}

/** Checks every `when` key against the facts; a list means any of its values. */
export function evaluateWhen(when: Record<string, YamlValue>, facts: Record<string, string>, git?: WhenGit): WhenVerdict {
  const keys: KeyVerdict[] = [];
  for (const [key, raw] of Object.entries(when)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map((v) => String(v));
    // Own facts only: `when.constructor` or `when.__proto__` must not find Object.prototype's.
    const have = Object.hasOwn(facts, key) ? facts[key] : undefined;
    const each = values.map((v) => checkOne(key, v, have, git));
    const result = combine(
      each.map((e) => e.result),
      true,
    );
    const chosen = each.find((e) => e.result === result) ?? each[0]!;
    keys.push({ key, want: values.join(" | "), have: have ?? null, result, reason: chosen.reason });
  }
  if (!keys.length) return { result: "yes", keys };
  return {
    result: combine(
      keys.map((k) => k.result),
      false,
    ),
    keys,
  };
}
