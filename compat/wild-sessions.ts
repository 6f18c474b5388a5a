import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { inflateSync } from "node:zlib";

// Scores capture on a folder of labelled transcripts (../shared/fixtures/wild-sessions by default,
// test/fixtures/holdout-sessions for the held-out set), by the rules
// of that folder's README, through the compiled binary only (any build, old or new, can be scored):
// `rkb extract --format json` in a throwaway HOME, then every byte rkb wrote is searched for the
// fakes and for home paths, and every `rkb add --from` command `rkb inbox` prints is run.
// Measurement only: nothing of those files is kept, printed numbers aside.

export const WILD = join(import.meta.dir, "../../shared/fixtures/wild-sessions");

interface Label {
  format: string;
  drafts: { fail_line: number; call_line: number; fix: string[]; group?: string }[];
  noise_lines: number[];
  corrections: { line: number; text: string }[];
  remember: { line: number; text: string }[];
  secrets: string[];
}

/** Found out of labelled (recall) and right out of reported (precision). */
export interface Ratio {
  right: number;
  reported: number;
  found: number;
  labelled: number;
}

export interface FileScore {
  file: string;
  format: string;
  status: string;
  harness?: string;
  /** The status fits the label: a session read with its harness, anything else named as no session. */
  handled: boolean;
  drafts: Ratio;
  /** Drafts on a failure the labels call noise. */
  noiseDrafts: number;
  corrections: Ratio;
  remember: Ratio;
}

export interface WildScore {
  files: FileScore[];
  drafts: Ratio;
  corrections: Ratio;
  remember: Ratio;
  /** Fakes found in what rkb wrote, and where. */
  secrets: { value: number; where: string[] };
  /** Home paths (`/Users/<name>`, `/home/<name>`) in what rkb wrote: how many, in how many files. */
  homePaths: { count: number; files: string[] };
  /** `rkb add --from` commands as `rkb inbox` prints them, and how many were accepted. */
  adds: { printed: number; accepted: number; refusals: string[] };
  /** Drafts in the summary against the drafts counted (fixed). */
  draftsListed: number;
  fixed: number;
}

const near = (a: number, b: number) => Math.abs(a - b) <= 2;

async function run(bin: string, args: string[], env: Record<string, string>, cwd: string) {
  const proc = Bun.spawn([bin, ...args], { env, cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, exit };
}

/** Copies the files below a folder with ordinary modes (../shared is read-only, and a copy of a read-only folder cannot be removed). */
function copyFiles(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) copyFiles(path, join(to, name));
    else writeFileSync(join(to, name), readFileSync(path));
  }
}

/** Every file below a folder, with git's loose objects inflated and SQLite databases dumped as text. */
function writtenTexts(root: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) {
        const bytes = readFileSync(path);
        let text = bytes.toString("utf8");
        if (/\.git\/objects\/[0-9a-f]{2}\//.test(path)) text = inflateSync(bytes).toString("utf8");
        if (name.endsWith(".sqlite")) text += "\n" + sqliteText(path);
        out.push({ path: relative(root, path), text });
      }
    }
  };
  walk(root);
  return out;
}

function sqliteText(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map((t) => JSON.stringify(db.query(`SELECT * FROM "${t.name}"`).all())).join("\n");
  } finally {
    db.close();
  }
}

/** A path into someone's home; not inside a longer path (the sandbox's own `…/home/` is counted by its full name). */
const HOME_PATH = /(?<![\w.-])\/(?:Users|home)\/[A-Za-z0-9._-]+/g;

/** The words of a printed command line, quotes taken off (the commands rkb prints quote with "…" only). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

export async function scoreWildSessions(bin: string, dir = WILD): Promise<WildScore> {
  const labels: Record<string, Label> = JSON.parse(readFileSync(join(dir, "labels.json"), "utf8"));
  const box = mkdtempSync(join(tmpdir(), "rkb-wild-"));
  try {
    const home = join(box, "home");
    mkdirSync(home);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      RKB_HOME: join(home, "kb"),
      XDG_STATE_HOME: join(home, ".local/state"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_CONFIG_HOME: join(home, ".config"),
      GIT_AUTHOR_NAME: "Scorer",
      GIT_AUTHOR_EMAIL: "scorer@example.invalid",
      GIT_COMMITTER_NAME: "Scorer",
      GIT_COMMITTER_EMAIL: "scorer@example.invalid",
      GIT_CONFIG_NOSYSTEM: "1",
      LANG: "C.UTF-8",
    };
    const init = await run(bin, ["init"], env, home);
    if (init.exit !== 0) throw new Error(`rkb init: ${init.stderr}`);
    // The sessions sit in the sandbox's home, as they do on a user's machine (~/.pi, ~/.claude), so
    // a session file's own path counts as a home path wherever rkb keeps it.
    const sessions = join(home, "sessions");
    copyFiles(dir, sessions);
    const extract = await run(bin, ["extract", sessions, "--format", "json", "--report", join(home, "report.md")], env, home);
    if (extract.exit !== 0) throw new Error(`rkb extract exited ${extract.exit}: ${extract.stderr}`);
    const summary = JSON.parse(extract.stdout);

    const inbox = JSON.parse((await run(bin, ["inbox", "--format", "json"], env, home)).stdout);
    const printed: string[] = inbox.items.flatMap((i: any) => i.add ?? []);
    const refusals: string[] = [];
    let accepted = 0;
    for (const command of printed) {
      const argv = words(command).map((w) => (w === "<why it failed>" ? "the scorer's stand-in cause" : w));
      if (argv[0] !== "rkb") {
        refusals.push(`not an rkb command: ${command}`);
        continue;
      }
      const r = await run(bin, [...argv.slice(1), "--format", "json"], env, home);
      if (r.exit === 0) accepted++;
      else {
        const error = JSON.parse(r.stdout || "{}").error;
        refusals.push(`${error?.code ?? r.exit}: ${[...new Set((error?.findings ?? []).map((f: any) => f.rule))].join(", ") || error?.message}`);
      }
    }

    const written = writtenTexts(home).filter((w) => !w.path.startsWith("sessions/"));
    const fakes = Object.values(labels).flatMap((l) => l.secrets);
    const secretWhere = new Set<string>();
    let secretValues = 0;
    for (const fake of fakes) {
      const where = written.filter((w) => w.text.includes(fake)).map((w) => w.path);
      if (where.length) secretValues++;
      for (const w of where) secretWhere.add(w);
    }
    let homeCount = 0;
    const homeFiles: string[] = [];
    for (const w of written) {
      // The knowledge base's own place (the search cache records it) is the user's setting, not session text.
      const text = w.text.replaceAll(env.RKB_HOME!, "$RKB_HOME");
      const n = [...text.matchAll(HOME_PATH)].length + text.split(home).length - 1;
      homeCount += n;
      if (n) homeFiles.push(w.path);
    }

    const files: FileScore[] = Object.entries(labels).map(([name, label]) => {
      const path = join(sessions, name);
      const status = summary.files.find((f: any) => f.path === path);
      const drafts = summary.drafts.filter((d: any) => d.file === path);
      const signals = summary.signals.filter((s: any) => s.file === path);
      return {
        file: name,
        format: label.format,
        status: status?.status ?? "missing",
        harness: status?.harness,
        handled: handledRight(label.format, status),
        drafts: scoreDrafts(label, drafts),
        noiseDrafts: drafts.filter((d: any) => label.noise_lines.some((n) => near(n, d.failed.line))).length,
        corrections: scoreSaid(label.corrections, signals, "correction"),
        remember: scoreSaid(label.remember, signals, "remember"),
      };
    });
    const sum = (pick: (f: FileScore) => Ratio): Ratio =>
      files
        .map(pick)
        .reduce((a, b) => ({ right: a.right + b.right, reported: a.reported + b.reported, found: a.found + b.found, labelled: a.labelled + b.labelled }));
    return {
      files,
      drafts: sum((f) => f.drafts),
      corrections: sum((f) => f.corrections),
      remember: sum((f) => f.remember),
      secrets: { value: secretValues, where: [...secretWhere].sort() },
      homePaths: { count: homeCount, files: homeFiles.sort() },
      adds: { printed: printed.length, accepted, refusals },
      draftsListed: summary.drafts.length,
      fixed: summary.fixed,
    };
  } finally {
    rmSync(box, { recursive: true, force: true });
  }
}

const HARNESS_OF: Record<string, string[]> = { pi: ["pi", "omp"], claude: ["claude-code"], codex: ["codex"] };

function handledRight(format: string, status: { status: string; harness?: string } | undefined): boolean {
  if (!status) return false;
  const harnesses = HARNESS_OF[format];
  if (harnesses) return status.status === "session" && harnesses.includes(status.harness ?? "");
  return status.status === "not-session";
}

/** A draft is right when its failed line is within two lines of a labelled failure or its call; found also needs every fix text. */
function scoreDrafts(label: Label, drafts: any[]): Ratio {
  const hits = (l: Label["drafts"][number], d: any) => near(l.fail_line, d.failed.line) || near(l.call_line, d.failed.line);
  const right = drafts.filter((d) => label.drafts.some((l) => hits(l, d))).length;
  // Drafts of one repeated lesson share a group: the group is one lesson to find.
  const lessons = new Map<string, Label["drafts"]>();
  label.drafts.forEach((l, i) => lessons.set(l.group ?? `#${i}`, [...(lessons.get(l.group ?? `#${i}`) ?? []), l]));
  let found = 0;
  for (const members of lessons.values()) {
    const ok = members.some((l) => drafts.some((d) => hits(l, d) && l.fix.every((f) => JSON.stringify(d).includes(f))));
    if (ok) found++;
  }
  return { right, reported: drafts.length, found, labelled: lessons.size };
}

/** A correction or request to remember is right on the labelled line. */
function scoreSaid(labelled: { line: number }[], signals: any[], kind: string): Ratio {
  const mine = signals.filter((s) => s.kind === kind);
  const lines = new Set(labelled.map((l) => l.line));
  const seen = new Set(mine.map((s) => s.line));
  return {
    right: mine.filter((s) => lines.has(s.line)).length,
    reported: mine.length,
    found: labelled.filter((l) => seen.has(l.line)).length,
    labelled: lines.size,
  };
}

export const precision = (r: Ratio) => (r.reported ? r.right / r.reported : 1);
export const recall = (r: Ratio) => (r.labelled ? r.found / r.labelled : 1);

/**
 * The issue's capture bars, each one missed as a line (none: all met). One list for the real dev
 * set (compat) and the held-out sets (test/cli/holdout.test.ts).
 */
export function missedBars(score: WildScore): string[] {
  const missed = score.files.filter((f) => !f.handled).map((f) => `${f.file} read as ${f.status}`);
  const atLeast = (name: string, value: number, bar: number) => {
    if (value < bar) missed.push(`${name} ${value.toFixed(2)} < ${bar.toFixed(2)}`);
  };
  atLeast("draft precision", precision(score.drafts), 0.7);
  atLeast("draft recall", recall(score.drafts), 2 / 3);
  atLeast("correction precision", precision(score.corrections), 0.6);
  atLeast("correction recall", recall(score.corrections), 0.4);
  if (score.secrets.value) missed.push(`${score.secrets.value} fake secrets on disk: ${score.secrets.where.join(", ")}`);
  if (score.homePaths.count) missed.push(`${score.homePaths.count} home paths on disk: ${score.homePaths.files.join(", ")}`);
  for (const refusal of score.adds.refusals) missed.push(`rkb add --from refused: ${refusal}`);
  if (score.adds.accepted !== score.adds.printed) missed.push(`rkb add --from accepted ${score.adds.accepted} of ${score.adds.printed}`);
  return missed;
}

const pct = (x: number) => x.toFixed(2);
const ratio = (r: Ratio) => `P ${pct(precision(r))} (${r.right}/${r.reported}), R ${pct(recall(r))} (${r.found}/${r.labelled})`;

/** The numbers as Markdown table rows, one column per scored build. */
export function scoreTable(scores: { name: string; score: WildScore }[]): string {
  const rows: [string, (s: WildScore) => string][] = [
    ["files read as labelled", (s) => `${s.files.filter((f) => f.handled).length}/${s.files.length}`],
    ["draft pitfalls", (s) => ratio(s.drafts)],
    ["drafts on labelled noise", (s) => String(s.files.reduce((n, f) => n + f.noiseDrafts, 0))],
    ["corrections", (s) => ratio(s.corrections)],
    ["remember requests", (s) => ratio(s.remember)],
    ["fake secrets on disk", (s) => `${s.secrets.value} (${s.secrets.where.length} files)`],
    ["home paths on disk", (s) => `${s.homePaths.count} (${s.homePaths.files.length} files)`],
    ["`rkb add --from` accepted", (s) => `${s.adds.accepted}/${s.adds.printed}`],
    ["drafts listed / fixed", (s) => `${s.draftsListed}/${s.fixed}`],
  ];
  const out = [`| | ${scores.map((s) => s.name).join(" | ")} |`, `|---|${scores.map(() => "---").join("|")}|`];
  for (const [name, cell] of rows) out.push(`| ${name} | ${scores.map((s) => cell(s.score)).join(" | ")} |`);
  return out.join("\n");
}

/** Per file: status, and drafts / corrections / remember as right/reported and found/labelled. */
export function fileTable(score: WildScore): string {
  const out = ["| file | format | status | drafts | noise drafts | corrections | remember |", "|---|---|---|---|---:|---|---|"];
  const short = (r: Ratio) => `${r.right}/${r.reported}, ${r.found}/${r.labelled}`;
  for (const f of score.files)
    out.push(
      `| ${f.file} | ${f.format} | ${f.status}${f.harness ? ` (${f.harness})` : ""}${f.handled ? "" : " ✗"} | ${short(f.drafts)} | ${f.noiseDrafts} | ${short(f.corrections)} | ${short(f.remember)} |`,
    );
  return out.join("\n");
}

export const haveWildSessions = () => existsSync(join(WILD, "labels.json"));
