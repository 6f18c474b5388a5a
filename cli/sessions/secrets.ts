// Masks secrets in session text before rkb writes any of it down (inbox items, drafts, reports).
// Errs towards masking: a lost token in an excerpt costs little, a leaked one costs a rotation.

export const MASK = "[masked]";

const SECRET_NAME = String.raw`[A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|passwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?(?:token|key)|authorization|credentials?|session[_-]?key|signing[_-]?key)[A-Za-z0-9_.-]*`;

interface Rule {
  pattern: RegExp;
  replace: string | ((...m: string[]) => string);
}

const RULES: Rule[] = [
  // PEM private keys, also when the END line was cut off.
  { pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/g, replace: `[private key ${MASK}]` },
  // user:password@ in URLs.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi, replace: (_m, head) => `${head}:${MASK}@` },
  // Authorization headers and bearer tokens.
  { pattern: /\b(Authorization:\s*(?:Bearer|Basic|Token|token)?)\s*[A-Za-z0-9._~+/=-]{8,}/gi, replace: (_m, head) => `${head} ${MASK}` },
  { pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]{12,}/g, replace: `Bearer ${MASK}` },
  // Tokens with a recognisable shape.
  { pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b/g, replace: MASK },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g, replace: MASK },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g, replace: MASK },
  { pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g, replace: MASK },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, replace: MASK },
  { pattern: /\bsk-(?:proj-|ant-(?:api\d+-)?|live-)?[A-Za-z0-9_-]{20,}\b/g, replace: MASK },
  { pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g, replace: MASK },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: MASK },
  { pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replace: MASK },
  { pattern: /\bhf_[A-Za-z0-9]{30,}\b/g, replace: MASK },
  { pattern: /\bpypi-[A-Za-z0-9_-]{50,}\b/g, replace: MASK },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: MASK },
  // Command-line flags: --password=x, --token x, --api-key "x".
  {
    pattern: new RegExp(String.raw`(--?${SECRET_NAME})(=|\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`, "gi"),
    replace: (_m, flag, sep) => `${flag}${sep}${MASK}`,
  },
  // Assignments: FOO_TOKEN=x, password: x, "api_key": "x", export SECRET='x'.
  {
    pattern: new RegExp(String.raw`(["']?)\b(${SECRET_NAME})\1(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;}{)]+)`, "gi"),
    replace: (m, quote, name, sep, value) => (keepsValue(value) ? m : `${quote}${name}${quote}${sep}${quoteLike(value)}`),
  },
];

/** Values that cannot be a secret: already masked, empty, small numbers, booleans, placeholders. */
function keepsValue(value: string): boolean {
  const bare = value.replace(/^["']|["']$/g, "");
  return bare === "" || bare.startsWith(MASK) || /^\d{1,7}$/.test(bare) || /^(?:true|false|null|none|yes|no)$/i.test(bare) || /^\$\{?\w+\}?$/.test(bare);
}

function quoteLike(value: string): string {
  const q = value[0];
  return q === '"' || q === "'" ? `${q}${MASK}${q}` : MASK;
}

/** The text with every secret rkb recognises replaced by `[masked]`. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.pattern, rule.replace as any);
  return out;
}
