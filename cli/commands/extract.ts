import { fstatSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { defineCommand, reportFile } from "./_shared.ts";
import { usageError } from "../base/errors.ts";
import { extract, markdownReport, type ExtractSummary } from "../sessions/extract.ts";
import { counted } from "../output/words.ts";

// `rkb extract`: capture over folders of archived sessions (CI). Progress goes to stderr while it
// runs — a bar on a terminal, a plain line per tenth in CI logs — and the summary to stdout. The
// progress is the one thing a command writes itself: it has to appear while the run goes on.
export default defineCommand({
  name: "extract",
  description: "Read session files (pi, omp, Claude Code, Codex CLI, Gemini CLI; opencode's store) and put what they teach in the inbox",
  examples: [
    "rkb extract ~/.pi/agent/sessions",
    "rkb extract 'archive/**/*.jsonl' --since 2026-01-01 --report summary.md",
    "rkb extract sessions/ --dry-run --format json",
  ],
  input: (Type) =>
    Type.Object(
      {
        paths: Type.Optional(
          Type.Array(Type.String(), {
            description: "Session files, folders (every session file below) or globs; opencode's opencode.db is each session in it",
          }),
        ),
        dry_run: Type.Optional(Type.Boolean({ description: "Report what would be captured; write nothing" })),
        since: Type.Optional(Type.String({ description: "Only sessions with entries on or after this date" })),
        report: Type.Optional(Type.String({ description: "Also write a Markdown report (for a CI job summary)" })),
      },
      { additionalProperties: false },
    ),
  cli: { variadic: "paths", flags: { since: { valueHint: "YYYY-MM-DD" }, report: { valueHint: "file.md" } } },
  run: async (input, { env, cwd }) => {
    const paths = input.paths ?? [];
    if (!paths.length) throw usageError("`rkb extract` needs at least one file, folder or glob", "write `rkb extract <file|dir|glob>…`");
    let since: Date | undefined;
    if (input.since !== undefined) {
      since = new Date(input.since);
      if (Number.isNaN(since.getTime())) throw usageError(`--since ${input.since} is not a date`, "write a date like 2026-01-31 or 2026-01-31T12:00:00Z");
    }
    const dryRun = Boolean(input.dry_run);
    const report = input.report ? reportFile(resolve(cwd, input.report)) : undefined;
    const summary = await extract({ paths, cwd, env, dryRun, since, onProgress: await progressPrinter() });
    if (report) report.write(markdownReport(summary, { dryRun, home: env.HOME }));
    const nothingRead = summary.sessions === 0;
    // A dry run writes nothing: it says how many items it would write, not that it wrote them.
    const { items_written, ...rest } = summary;
    const data = dryRun ? { ...rest, items_to_write: items_written, dry_run: true } : { ...summary, dry_run: false };
    return { data, human: humanSummary(summary, dryRun, input.report), exit: nothingRead ? 1 : 0 };
  },
});

async function progressPrinter(): Promise<(p: { done: number; total: number; bytes: number; totalBytes: number }) => void> {
  // fd 2 directly: process.stderr would build a Node stream for a few short lines. node:tty is
  // loaded only for a character device (a pipe or a file is no terminal): loading it costs more
  // than reading a small folder of sessions.
  const tty = fstatSync(2).isCharacterDevice() && (await import("node:tty")).isatty(2);
  const say = (text: string) => writeSync(2, text);
  let lastTenth = -1;
  return ({ done, total, bytes }) => {
    if (tty) {
      const width = 30;
      const filled = Math.round((done / total) * width);
      say(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} files, ${mb(bytes)}${done === total ? "\n" : ""}`);
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth > lastTenth && (total >= 10 || done === total)) {
      lastTenth = tenth;
      say(`rkb extract: ${done}/${total} files read (${mb(bytes)})\n`);
    }
  };
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function humanSummary(s: ExtractSummary, dryRun: boolean, report?: string): string {
  const out: string[] = [];
  if (s.sessions === 0) out.push(`nothing could be read: ${counted(s.files.length, "file")} found, no session among them`);
  else out.push(`read ${counted(s.sessions, "session")} (${mb(s.bytes)})${s.older ? `, ${s.older} older than --since left out` : ""}`);
  for (const f of s.files) if (f.looks_like) out.push(`  ${f.path}: not a session file: ${f.looks_like}`);
  const copies = s.files.filter((f) => f.status === "duplicate").length;
  if (copies) out.push(`  ${counted(copies, "file")} read again (a copy of a session already captured): nothing new`);
  out.push(`  failed ${s.failed}, fixed ${s.fixed}, corrections ${s.correction}, remember ${s.remember}, repeats ${s.repeat}`);
  if (s.drafts_left_out) out.push(`  ${counted(s.drafts.length, "draft pitfall")} kept, ${s.drafts_left_out} more ranked lower left out`);
  out.push(dryRun ? `  would write ${counted(s.items_written, "inbox item")} (dry run)` : `  wrote ${counted(s.items_written, "inbox item")}`);
  out.push(`  ${counted(s.skipped_lines, "line")} skipped`);
  // A few lines per file: an event log passed by mistake would otherwise flood the terminal.
  const perFile = new Map<string, ExtractSummary["skipped"]>();
  for (const k of s.skipped) perFile.set(k.file, [...(perFile.get(k.file) ?? []), k]);
  for (const [file, lines] of perFile) {
    for (const k of lines.slice(0, 3)) out.push(`    ${file}:${k.line}: ${k.reason}`);
    if (lines.length > 3) out.push(`    ${file}: … and ${lines.length - 3} more lines (--format json lists them all)`);
  }
  for (const p of s.problems) out.push(`  ${p.path}: ${p.message}`);
  if (report) out.push(`report written to ${report}`);
  return out.join("\n");
}
