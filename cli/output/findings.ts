import type { Finding } from "../kb/finding.ts";

/** One lint finding for people: `<path[:line]>  <severity>  <rule>  <message>`. */
export function findingLine(f: Pick<Finding, "path" | "line" | "severity" | "rule" | "message">): string {
  return `${f.path}${f.line ? `:${f.line}` : ""}  ${f.severity}  ${f.rule}  ${f.message}`;
}
