// Block-style YAML for frontmatter. Reading uses Bun.YAML; writing is ours, because rkb must write
// one canonical block layout (one key or item per line) with stable quoting.

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
const RISKY = /[*[\]{}#&!|>'"\t\n\r]|: |:$| #/;
const AMBIGUOUS_WORDS = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

/** Whether a string can be written without quotes and read back as the same string. */
export function isPlainSafe(s: string): boolean {
  if (s === "" || s !== s.trim()) return false;
  if (INDICATOR_START.test(s) || RISKY.test(s) || AMBIGUOUS_WORDS.test(s)) return false;
  // Version-like values must stay strings ("1.14" is not 1.14; "1.12:1.14" is a range).
  if (/^[+-]?[0-9.]/.test(s) && /[.:]/.test(s) && !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  try {
    const back = (Bun.YAML.parse(`k: ${s}`) as { k: unknown }).k;
    return back === s;
  } catch {
    return false;
  }
}

function scalar(v: string | number | boolean | null): string {
  if (v === null) return "null";
  if (typeof v !== "string") return String(v);
  return isPlainSafe(v) ? v : JSON.stringify(v);
}

function isEmpty(v: YamlValue): boolean {
  return (Array.isArray(v) && v.length === 0) || (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);
}

/** Emits `key: value` lines for one map entry at the given indent; empty lists and maps are omitted. */
export function emitEntry(key: string, value: YamlValue, indent = ""): string[] {
  if (isEmpty(value)) return [];
  const k = isPlainSafe(key) ? key : JSON.stringify(key);
  if (Array.isArray(value)) {
    const lines = [`${indent}${k}:`];
    for (const item of value) {
      if (item !== null && typeof item === "object") {
        const inner = Array.isArray(item) ? [] : Object.entries(item).flatMap(([ik, iv]) => emitEntry(ik, iv, indent + "    "));
        if (inner.length) lines.push(`${indent}  - ${inner[0]!.trimStart()}`, ...inner.slice(1));
      } else lines.push(`${indent}  - ${scalar(item)}`);
    }
    return lines;
  }
  if (value !== null && typeof value === "object") {
    return [`${indent}${k}:`, ...Object.entries(value).flatMap(([ik, iv]) => emitEntry(ik, iv, indent + "  "))];
  }
  return [`${indent}${k}: ${scalar(value)}`];
}

/** Finds non-empty flow-style collections (`[a, b]`, `{k: v}`) in frontmatter text: 1-based line numbers. */
export function flowStyleLines(yamlText: string): number[] {
  const lines: number[] = [];
  yamlText.split("\n").forEach((line, i) => {
    // The value after `- ` or `key:`; the key part holds no space-only run to retry over.
    const value = /^[ \t]*(?:-[ \t]+|[^:#\s][^:#]*:[ \t]*)(.*)$/.exec(line)?.[1] ?? "";
    // An empty `[]` or `{}` has no items to put on lines of their own (the Rust rkb accepts `tags: []` too).
    const trimmed = value.trim();
    if (/^[[{]/.test(trimmed) && !/^(\[\s*\]|\{\s*\})(\s+#.*)?$/.test(trimmed)) lines.push(i + 1);
  });
  return lines;
}
