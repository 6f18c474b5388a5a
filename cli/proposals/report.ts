import { counted } from "../output/words.ts";
import { cell, oneLine } from "../output/markdown.ts";
import { maskSecrets } from "../text/secrets.ts";
import { CAUSE_TO_WRITE } from "./lesson.ts";
import type { ProposeResult, ProposedEntry } from "./propose.ts";

// The pull-request body a run leaves (`--report`): each proposal's title, why it was proposed, the
// failure and the fix in short, and what a reviewer should check; then what was left out and how to
// decline. Everything in it comes from masked values; the file names and messages are masked here.

const REASONS: Record<string, string> = {
  declined: "declined before (removed in review)",
  on_record: "proposed before",
  answered: "answered today by a lesson",
  near_duplicate: "near-duplicate of a lesson or of a proposal above",
  invalid: "could not be written as a clean lesson",
};

export function proposalReport(r: ProposeResult): string {
  const out = ["# rkb proposals", ""];
  const read = `${counted(r.sessions, "session")} read${r.files > r.sessions ? ` (${counted(r.files, "file")})` : ""}`;
  if (!r.proposals.length) {
    out.push(`Nothing new to propose: ${read}; every failure worth a lesson is answered, on record or left out below.`, "");
  } else {
    out.push(`${counted(r.proposals.length, "new lesson")} proposed on \`${r.branch}\` from ${read}, one commit each: keep, edit, or drop each one.`, "");
    for (const p of r.proposals) out.push(...entry(p));
  }
  out.push(...leftOut(r));
  out.push(
    "## How to decline a proposal",
    "",
    "Delete its lesson file on the branch (or drop or revert its commit) and merge the rest. The run's record",
    "in `.rkb/proposed/` stays, so the failure is never proposed again, even after the branch is deleted.",
    "",
  );
  return maskSecrets(out.join("\n"));
}

function entry(p: ProposedEntry): string[] {
  const dates = p.first_seen && p.last_seen ? `, ${day(p.first_seen)}${day(p.first_seen) === day(p.last_seen) ? "" : ` to ${day(p.last_seen)}`}` : "";
  const today = p.today.silent
    ? "rkb stays silent on this failure today"
    : `today rkb injects ${p.today.lesson.id} "${cell(p.today.lesson.title)}", which does not say what fixed it`;
  return [
    `## ${cell(p.title)}`,
    "",
    `\`${p.path}\` · id \`${p.id}\``,
    "",
    `- **Why:** seen ${counted(p.occurrences, "time")} in ${counted(p.sessions, "session")} (${p.harnesses.join(", ")}${dates}); ${today}.`,
    `- **Failure:** \`${cell(oneLine(p.failed, 120))}\`${p.key_line ? ` → ${cell(p.key_line)}` : ""}`,
    `- **Fix:** ${fixLine(p)}`,
    "- **Check:**",
    `  - the Cause: the sessions do not say why it failed (it reads "${CAUSE_TO_WRITE.slice(0, 40)}…" until you write it);`,
    `  - that the Fix holds the step that mattered${p.fix_steps > 1 ? ` (${p.fix_steps} steps ran in between)` : ""} and nothing private;`,
    `  - the title and the topic folder \`${p.path.slice(0, p.path.lastIndexOf("/"))}\`.`,
    "",
  ];
}

function fixLine(p: ProposedEntry): string {
  const earlier = p.fix_steps - p.last_steps.length;
  const steps = p.last_steps.map((s) => `\`${cell(oneLine(s, 120))}\``).join(", ");
  const worked = `\`${cell(oneLine(p.worked, 120))}\` worked`;
  if (!p.fix_steps) return `nothing ran in between; ${worked}`;
  return `${earlier ? `${counted(earlier, "earlier step")}, then ` : ""}${steps}; then ${worked}`;
}

function leftOut(r: ProposeResult): string[] {
  const counts = new Map<string, number>();
  for (const l of r.left_out) counts.set(l.reason, (counts.get(l.reason) ?? 0) + 1);
  const rows = [...counts].map(([reason, n]) => `| ${REASONS[reason] ?? reason} | ${n} |`);
  if (r.too_few) rows.push(`| fixed, but seen in fewer than ${counted(r.min_sessions, "session")} | ${r.too_few} |`);
  if (r.unfixed) rows.push(`| never fixed in a session | ${r.unfixed} |`);
  if (r.waiting) rows.push(`| not looked at: the run stopped at its maximum (next run, or --max) | ${r.waiting} |`);
  const out: string[] = [];
  if (rows.length) out.push("## Left out", "", "| failures | count |", "|---|---:|", ...rows, "");
  const listed = r.left_out.filter((l) => l.reason === "answered" || l.reason === "near_duplicate" || l.reason === "invalid");
  for (const l of listed) out.push(`- ${cell(l.title)}: ${cell(l.detail)}`);
  if (listed.length) out.push("");
  if (r.problems.length || r.skipped_lines) {
    out.push("## Problems", "");
    for (const p of r.problems) out.push(`- ${p.path}: ${p.message}`);
    if (r.skipped_lines) out.push(`- ${counted(r.skipped_lines, "line")} of the session files could not be read and were skipped`);
    out.push("");
  }
  return out;
}

function day(time: string): string {
  return time.slice(0, 10);
}
