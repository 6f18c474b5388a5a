import type { Finding } from "../lesson/finding.ts";

/** One lint finding for people: `<path[:line]>  <severity>  <rule>  <message>`. */
export function findingLine(f: Pick<Finding, "path" | "line" | "severity" | "rule" | "message">): string {
  return `${f.path}${f.line ? `:${f.line}` : ""}  ${f.severity}  ${f.rule}  ${f.message}`;
}

const MESSAGE_CHARS = 200;

/** A finding whose message is cut at 200 characters, saying how to see all of it (as the Rust rkb does). */
export function cutMessage<F extends Pick<Finding, "message">>(f: F): F {
  if (f.message.length <= MESSAGE_CHARS) return f;
  return { ...f, message: `${f.message.slice(0, MESSAGE_CHARS)}... [${f.message.length} chars; run \`rkb lint --full\` for all]` };
}
