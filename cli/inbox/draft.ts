import type { DraftPitfall, FixStep } from "../sessions/signals.ts";
import { counted } from "../output/words.ts";

// How a draft pitfall reads in an inbox item, and how `rkb add --from` reads it back: both
// directions live here, so the format has one definition. A draft is a `###` heading under
// `## Draft pitfalls`, then labelled blocks indented by four spaces:
//
//   ### `cmake` failed, then worked after `sudo apt-get install -y zlib1g-dev`
//   Failed (exit 1, line 12, entry 0000000a):      the command
//   Key error lines:                                one per line
//   Fix (1 step between the failure and the success):
//       $ sudo apt-get install -y zlib1g-dev        a command (`(exit N) $ …` when it failed;
//       edited src/app.py                           continuation lines indented by two)
//         -old                                      a file edit with its short diff
//         +new
//   Worked (line 20, entry 0000000f):               the command that then worked

export const DRAFTS_HEADING = "## Draft pitfalls";

/** A draft as read back from an item: what a lesson needs from it. */
export interface ItemDraft {
  program: string;
  failedCommand: string;
  keyLines: string[];
  /** The fix steps as written in the item (masked), one step per entry, lines joined by `\n`. */
  fix: ParsedStep[];
  workedCommand: string;
  /** Entry ids of the failure and the success, when the session had ids. */
  entries?: string;
}

export type ParsedStep = { kind: "command"; command: string; exitCode?: number } | { kind: "change"; verb: string; path: string; diff: string[] };

/** A draft as an item reads it back, straight from the value capture made (`rkb propose`). */
export function itemDraftOf(d: DraftPitfall): ItemDraft {
  const fix = d.fix.map((s): ParsedStep => {
    if (s.kind === "change") return { kind: "change", verb: s.verb, path: s.path, diff: s.diff };
    return !s.ok && s.exitCode !== undefined ? { kind: "command", command: s.command, exitCode: s.exitCode } : { kind: "command", command: s.command };
  });
  const entries = d.failed.entryId && d.worked.entryId ? { entries: `${d.failed.entryId}..${d.worked.entryId}` } : {};
  return { program: d.program, failedCommand: d.failed.command, keyLines: d.failed.keyLines, fix, workedCommand: d.worked.command, ...entries };
}

/** The draft's Markdown lines (already masked: the steps were masked when recorded, the rest by the caller). */
export function renderDraft(d: DraftPitfall): string[] {
  const exit = d.failed.exitCode !== undefined ? `exit ${d.failed.exitCode}, ` : "";
  const tries = d.attempts > 1 ? `, after ${d.attempts} failed attempts` : "";
  const out = [`### \`${d.program}\` failed, then worked${fixName(d.fix)}`, ""];
  out.push(`Failed (${exit}line ${d.failed.line}${d.failed.entryId ? `, entry ${d.failed.entryId}` : ""}${tries}):`, "", ...indent(d.failed.command), "");
  if (d.failed.keyLines.length) out.push("Key error lines:", "", ...d.failed.keyLines.flatMap(indent), "");
  if (d.fix.length) {
    const dropped = d.fixDropped ? `; ${counted(d.fixDropped, "earlier step")} left out` : "";
    out.push(`Fix (${counted(d.fix.length, "step")} between the failure and the success${dropped}):`, "", ...d.fix.flatMap(stepLines).flatMap(indent), "");
  } else out.push("Fix: nothing ran in between; the command that worked differs from the one that failed.", "");
  out.push(`Worked (line ${d.worked.line}${d.worked.entryId ? `, entry ${d.worked.entryId}` : ""}):`, "", ...indent(d.worked.command), "");
  return out;
}

/** ` after <the last step>` for the heading: the step right before the success most likely fixed it. */
function fixName(fix: FixStep[]): string {
  const last = [...fix].reverse().find((s) => s.kind === "change" || s.ok) ?? fix.at(-1);
  if (!last) return "";
  if (last.kind === "change") return ` after ${last.verb === "wrote" ? "writing" : "editing"} ${last.path}`;
  const first = last.command.split("\n")[0]!.replace(/`/g, "'");
  return ` after \`${first.length > 100 ? first.slice(0, 99) + "…" : first}\``;
}

function stepLines(s: FixStep): string[] {
  if (s.kind === "change") return [`${s.verb} ${s.path}`, ...s.diff.map((l) => "  " + l)];
  const [first, ...rest] = s.command.split("\n");
  const failed = !s.ok ? `(exit ${s.exitCode ?? "?"}) ` : "";
  return [`${failed}$ ${first}`, ...rest.map((l) => "  " + l)];
}

function indent(text: string): string[] {
  return text.split("\n").map((l) => "    " + l);
}

/** The drafts of an item body, in order (the first is draft 1). */
export function parseDrafts(body: string): ItemDraft[] {
  const lines = body.split("\n");
  const start = lines.indexOf(DRAFTS_HEADING);
  if (start < 0) return [];
  const drafts: ItemDraft[] = [];
  let current: { program: string; blocks: Map<string, string[]>; labels: Map<string, string> } | undefined;
  let label: string | undefined;
  const finish = () => {
    if (current) {
      const draft = toDraft(current.program, current.blocks, current.labels);
      if (draft) drafts.push(draft);
    }
  };
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("## ")) break;
    const heading = /^### `([^`]*)` failed, then worked/.exec(line);
    if (heading) {
      finish();
      current = { program: heading[1]!, blocks: new Map(), labels: new Map() };
      label = undefined;
      continue;
    }
    if (!current) continue;
    const labelled = /^(Failed|Key error lines|Fix|Worked)\b(.*)$/.exec(line);
    if (labelled) {
      label = labelled[1]!;
      current.labels.set(label, labelled[2]!);
      current.blocks.set(label, []);
    } else if (label && (line.startsWith("    ") || line.trim() === "")) current.blocks.get(label)!.push(line.slice(4));
  }
  finish();
  return drafts;
}

function toDraft(program: string, blocks: Map<string, string[]>, labels: Map<string, string>): ItemDraft | undefined {
  const text = (label: string) => trimBlank(blocks.get(label) ?? []);
  const failed = text("Failed").join("\n");
  const worked = text("Worked").join("\n");
  if (!failed || !worked) return undefined;
  const entry = (label: string) => /entry ([^,)\s]+)/.exec(labels.get(label) ?? "")?.[1];
  const from = entry("Failed");
  const to = entry("Worked");
  return {
    program,
    failedCommand: failed,
    keyLines: text("Key error lines"),
    fix: parseSteps(text("Fix")),
    workedCommand: worked,
    ...(from && to ? { entries: `${from}..${to}` } : {}),
  };
}

function parseSteps(lines: string[]): ParsedStep[] {
  const steps: ParsedStep[] = [];
  for (const line of lines) {
    const command = /^(?:\(exit (-?\d+|\?)\) )?\$ (.*)$/.exec(line);
    const change = /^(edited|wrote) (.+)$/.exec(line);
    const last = steps.at(-1);
    if (line.startsWith("  ") && last) {
      if (last.kind === "command") last.command += "\n" + line.slice(2);
      else last.diff.push(line.slice(2));
    } else if (command) {
      const exit = command[1] !== undefined && command[1] !== "?" ? Number(command[1]) : undefined;
      steps.push(exit === undefined ? { kind: "command", command: command[2]! } : { kind: "command", command: command[2]!, exitCode: exit });
    } else if (change) steps.push({ kind: "change", verb: change[1]!, path: change[2]!, diff: [] });
  }
  return steps;
}

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === "") a++;
  while (b > a && lines[b - 1]!.trim() === "") b--;
  return lines.slice(a, b);
}
