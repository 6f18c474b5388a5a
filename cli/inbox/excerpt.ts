import { counted } from "../output/words.ts";
import type { SessionEvent } from "../sessions/reader.ts";

// The part of a session an inbox item quotes: what the user said, what the agent said, every
// command in order (the ones that failed with their output, the others with their output left
// out, so the sequence that worked can be read), and the files the agent edited or wrote (by
// name). Successful output, other tool calls and file contents stay out. Everything is bounded: long messages and outputs
// are cut in the middle, and the excerpt keeps its last MAX_LINES lines.

export const MAX_LINES = 400;
const USER_LINES = 40;
const AGENT_LINES = 12;
const OUTPUT_LINES = 20;
const LINE_CHARS = 300;

/** workedLines: session line numbers of the successes that fixed an earlier failure (`[command worked]`). */
export function renderExcerpt(events: SessionEvent[], workedLines: Set<number>): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.kind === "user") out.push(...block("[user] ", e.text, USER_LINES));
    else if (e.kind === "agent") out.push(...block("[agent] ", e.text, AGENT_LINES));
    else if (e.kind === "command" && !e.ok) {
      out.push(...block(`[command failed${e.exitCode !== undefined ? `, exit ${e.exitCode}` : ""}] `, e.command, 6));
      if (e.output.trim()) out.push("[tool output]", ...collapseRepeats(cutMiddle(e.output.split("\n"), OUTPUT_LINES).map((l) => "  " + cutLine(l))));
    } else if (e.kind === "command") out.push(...block(workedLines.has(e.line) ? "[command worked] " : "[command ok] ", e.command, 6));
    else if (e.kind === "tool" && e.change && e.ok) out.push(`[${e.change.verb} ${cutLine(e.change.path)}]`);
    else if (e.kind === "compaction") out.push("[context compacted]");
  }
  if (out.length <= MAX_LINES) return out;
  const cut = out.length - (MAX_LINES - 1);
  return [`[${cut} earlier lines cut]`, ...out.slice(cut)];
}

function block(label: string, text: string, maxLines: number): string[] {
  const lines = cutMiddle(text.trim().split("\n"), maxLines).map(cutLine);
  return [label + lines[0], ...lines.slice(1).map((l) => "  " + l)];
}

function cutMiddle(lines: string[], max: number): string[] {
  if (lines.length <= max) return lines;
  const head = Math.ceil((max - 1) / 3);
  const tail = max - 1 - head;
  return [...lines.slice(0, head), `[… ${counted(lines.length - head - tail, "line")} cut]`, ...lines.slice(lines.length - tail)];
}

function cutLine(line: string): string {
  const l = line.trimEnd();
  if (l.length <= LINE_CHARS) return l;
  const half = Math.floor((LINE_CHARS - 20) / 2);
  return `${l.slice(0, half)} [… ${l.length - 2 * half} chars cut] ${l.slice(l.length - half)}`;
}

/** Consecutive identical lines (a retry loop, a progress spinner) shrink to one with a count. */
function collapseRepeats(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    out.push(j - i > 1 ? `${lines[i]} (×${j - i})` : lines[i]!);
    i = j;
  }
  return out;
}

/** The failed commands an excerpt quotes, with their output (as shown, cut where it was cut). */
export function failedInExcerpt(excerpt: string): { command: string; output: string }[] {
  const out: { command: string; output: string[] }[] = [];
  let inOutput = false;
  for (const line of excerpt.split("\n")) {
    const failed = /^\[command failed[^\]]*\] (.*)$/.exec(line);
    if (failed) {
      out.push({ command: failed[1]!, output: [] });
      inOutput = false;
    } else if (line === "[tool output]" && out.length) inOutput = true;
    else if (line.startsWith("  ") && inOutput) out.at(-1)!.output.push(line.slice(2));
    else if (!line.startsWith("  ")) inOutput = false;
  }
  return out.map((f) => ({ command: f.command, output: f.output.join("\n") }));
}
