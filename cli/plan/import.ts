import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { shown } from "../base/fsutil.ts";
import { decodeInput, MAX_INPUT_BYTES, tooLarge } from "../base/text-input.ts";
import { RkbError } from "../base/errors.ts";
import { listItems, type InboxEntry, type InboxMeta } from "../inbox/inbox.ts";
import { maskSecrets } from "../text/secrets.ts";
import { AddLookups, planAdd, type LessonWrite } from "./changes.ts";
import { asGiven } from "./as-given.ts";
import type { Finding } from "../lesson/finding.ts";
import { isFolderName } from "../base/folder-name.ts";
import { isFolderNoteText } from "../lesson/notes.ts";
import { frontmatterKeyLines, parseLesson, splitFrontmatter } from "../lesson/lesson.ts";
import { lintKb } from "../lint/lint.ts";
import type { Kb } from "../kb/store.ts";
import type { Plan } from "../write/write.ts";
import { counted } from "../output/words.ts";

// `rkb import <folder>`: Markdown from elsewhere, sorted into lessons and plain notes. A file in
// lesson form (frontmatter with a `type`, as `rkb add` takes it, or a Rust rkb lesson with its id,
// schema and status) goes through planAdd and lint like any add, into the topic named by its folder;
// every lesson of one import is one commit. Any other Markdown becomes a masked inbox item, for
// /rkb-distill. Whatever is left out is reported with the reason. It decides; the command prints.

export interface ImportFile {
  /** Path relative to the import folder, `/`-separated. */
  source: string;
  text: string;
}

export interface Skipped {
  source: string;
  reason: string;
  fix?: string;
  /** Lint findings (path = the source file, lines of the source file where they map to one). */
  findings?: Finding[];
}

export interface Added {
  id: string;
  path: string;
  source: string;
  notes: string[];
}

export interface Noted {
  source: string;
  title: string;
}

export interface ImportReport {
  /** The import folder's name, as commit subjects and questions show it. */
  folder: string;
  added: Added[];
  noted: Noted[];
  skipped: Skipped[];
  plan: Plan<LessonWrite>;
}

export interface Scanned {
  folder: string;
  /** The folder's whole path, for a command the user can run from anywhere. */
  path: string;
  files: ImportFile[];
  skipped: Skipped[];
}

/**
 * Reads every Markdown file below folder, following no symbolic link, skipping (with the reason)
 * hidden entries, other files, folder notes, big, binary and non-UTF-8 files. A folder inside the
 * knowledge base is refused; the knowledge base inside the folder is left out.
 */
export function readImportFolder(folder: string, kbRoot: string): Scanned {
  let real: string;
  // A single Markdown file is imported as the one file of its folder.
  let only: string | undefined;
  try {
    real = realpathSync(folder);
  } catch {
    throw new RkbError(
      "not_found",
      `there is no folder or file ${shown(folder, 200)} to import`,
      "name a folder of Markdown files or one .md file, e.g. `rkb import ~/notes --dry-run`",
    );
  }
  if (!statSync(real).isDirectory()) {
    if (!real.endsWith(".md") || !statSync(real).isFile())
      throw new RkbError("not_found", `${shown(folder, 200)} is not a Markdown file (.md) or a folder`, "name a folder of Markdown files or one .md file");
    only = basename(real);
    real = dirname(real);
  }
  const kbReal = realpathSync(kbRoot);
  if (real === kbReal || real.startsWith(kbReal + sep)) {
    throw new RkbError(
      "refused",
      `${shown(folder, 200)} is inside the knowledge base; its lessons are already there`,
      "import from a folder outside the knowledge base; `rkb lint` checks the lessons already in it",
    );
  }
  const kbStat = statSync(kbReal);
  const files: ImportFile[] = [];
  const skipped: Skipped[] = [];
  const skip = (source: string, reason: string, fix?: string) => skipped.push({ source, reason, ...(fix ? { fix } : {}) });
  let markdown = 0;
  const visit = (abs: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      skip(rel ? `${rel}/` : "./", `cannot read the folder (${(e as NodeJS.ErrnoException).code ?? "error"})`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of only === undefined || rel ? entries : entries.filter((e) => e.name === only)) {
      const source = rel ? `${rel}/${entry.name}` : entry.name;
      const path = join(abs, entry.name);
      const hidden = entry.name.startsWith(".");
      if (entry.isSymbolicLink()) skip(source, "a symbolic link; import does not follow links", "copy the file it points to into the folder");
      else if (entry.isDirectory()) {
        if (hidden) skip(`${source}/`, "a hidden folder");
        else if (sameFile(path, kbStat)) skip(`${source}/`, "the knowledge base itself");
        else visit(path, source);
      } else if (!entry.isFile()) skip(source, "not a regular file");
      else if (hidden) skip(source, "a hidden file");
      else if (!entry.name.endsWith(".md")) skip(source, "not a Markdown file (.md)");
      else {
        markdown++;
        const read = readMarkdown(path);
        // A README.md of a knowledge base's folder says how its folder is named and labelled: no lesson, no note.
        if (typeof read === "string" && entry.name === "README.md" && isFolderNoteText(read))
          skip(
            source,
            "the folder note of a knowledge base (README.md with aliases or labels), not a lesson or a note",
            "its aliases, labels, remotes, hostname and facts are not imported: copy them into this knowledge base's folder note by hand if you need them",
          );
        else if (typeof read === "string") files.push({ source, text: read });
        else skip(source, read.reason, read.fix);
      }
    }
  };
  visit(real, "");
  if (!markdown) {
    throw new RkbError(
      "not_found",
      `${shown(folder, 200)} holds no Markdown file (.md) to import${skipped.length ? ` (${skipped.length} other entr${skipped.length === 1 ? "y" : "ies"})` : ""}`,
      "name the folder that holds the Markdown notes or lessons (.md files); nothing was written",
    );
  }
  // "/" has no name; the commit subject `import(<folder>)` needs one for `rkb changes` to read it.
  return { folder: basename(real) || "root", path: real, files, skipped };
}

function sameFile(path: string, other: { dev: number; ino: number }): boolean {
  try {
    const st = statSync(path);
    return st.dev === other.dev && st.ino === other.ino;
  } catch {
    return false;
  }
}

/** The file's text, or why it is left out. Opened without following a link that replaced it meanwhile. */
function readMarkdown(path: string): string | { reason: string; fix?: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    return { reason: `cannot read it (${(e as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_INPUT_BYTES) return tooLarge(size);
    const bytes = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, bytes, got, size - got, null);
      if (n <= 0) break;
      got += n;
    }
    return decodeInput(bytes.subarray(0, got));
  } finally {
    closeSync(fd);
  }
}

/** A lesson in `rkb add` form or the Rust rkb's: frontmatter that says its `type`. */
export function isLessonForm(text: string): boolean {
  if (!/^---\r?\n/.test(text)) return false;
  try {
    return "type" in frontmatterKeyLines(splitFrontmatter(text, "").yaml);
  } catch {
    return false;
  }
}

export interface ImportOptions {
  /** Topic of lessons at the top of the folder (others take their folder's name). */
  topic?: string;
  env: NodeJS.ProcessEnv;
  /** Provenance of lessons that do not name their own (`meta.source`). */
  source: Record<string, string>;
  /** Header of the inbox items for plain notes (kind, time, harness, session). */
  inboxMeta: InboxMeta;
  /** Ask the user before the commit (an agent's import). */
  ask: boolean;
}

/** A path as one shell word: as it is when it is plain, else in single quotes. */
function shellWord(path: string): string {
  return /^[\w./~+-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** Lessons an import's commit message lists by name. */
const MAX_LISTED = 100;

interface PlannedLesson {
  file: ImportFile;
  rel: string;
  text: string;
  write: LessonWrite;
}

/** Sorts the files into lessons to add, notes for the inbox and files left out, and plans the one commit. */
export function planImport(kb: Kb, scanned: Scanned, opts: ImportOptions): ImportReport {
  const skipped = [...scanned.skipped];
  const lessons: ImportFile[] = [];
  const notes: ImportFile[] = [];
  for (const file of scanned.files) (isLessonForm(file.text) ? lessons : notes).push(file);
  const planned = lintedLessons(kb, planLessons(kb, lessons, opts, skipped), opts.env, skipped);
  const inbox = inboxNotes(notes, opts, skipped);
  const n = planned.length;
  // The folder's name as a commit subject and `rkb changes` read it: no parenthesis, no line break.
  const folder = scanned.folder.replace(/[^\w.-]+/g, "-");
  const lessonCount = counted(n, "lesson");
  // The commit message is one process argument (at most 128 KiB on Linux): a long import lists its first lessons.
  const listed = planned.slice(0, MAX_LISTED).map((p) => `${shown(p.file.source, 200)} -> ${p.rel} [${p.write.id}]`);
  if (n > MAX_LISTED) listed.push(`... and ${n - MAX_LISTED} more (\`git show --stat\` lists every file)`);
  // The sources are file names from elsewhere: masked like anything else rkb keeps.
  const message = maskSecrets(`import(${folder}): ${lessonCount}${listed.length ? `\n\n${listed.join("\n")}` : ""}`);
  const noteCount = counted(inbox.entries.length, "note");
  const plan: Plan<LessonWrite> = {
    changes: planned.map((p) => ({ rel: p.rel, text: p.text })),
    message,
    result: {
      action: "import",
      id: planned.map((p) => p.write.id).join(","),
      path: folder,
      title: lessonCount,
      notes: [
        ...(inbox.entries.length ? [`${noteCount} put in the inbox, to distill with /rkb-distill`] : []),
        ...(skipped.length ? [`${counted(skipped.length, "file")} left out; \`rkb import <folder> --dry-run\` says why`] : []),
      ],
    },
    inbox: inbox.entries,
    ...(opts.ask && n
      ? {
          ask: {
            question: `import ${lessonCount} from ${shown(scanned.path, 200)} into the knowledge base${inbox.entries.length ? ` and put ${noteCount} in the inbox` : ""}? (\`rkb import ${shellWord(scanned.path)} --dry-run\` lists them)`,
            option: "import all",
          },
        }
      : {}),
  };
  return {
    folder,
    added: planned.map((p) => ({ id: p.write.id, path: p.rel, source: p.file.source, notes: p.write.notes })),
    noted: inbox.noted,
    skipped,
    plan,
  };
}

/** Each lesson through planAdd, against the knowledge base as the lessons before it leave it. */
function planLessons(kb: Kb, files: ImportFile[], opts: ImportOptions, skipped: Skipped[]): PlannedLesson[] {
  if (!files.length) return [];
  const batch = new AddLookups(kb, opts.env);
  const planned: PlannedLesson[] = [];
  for (const file of files) {
    const parts = file.source.split("/");
    const folder = parts.length > 1 ? parts[parts.length - 2]! : undefined;
    const topic = folder ?? opts.topic;
    if (!topic) {
      skipped.push({
        source: file.source,
        reason: "a lesson at the top of the folder has no topic folder",
        fix: "pass --topic <topic>, or move it into a folder named after its topic",
      });
      continue;
    }
    if (folder && !isFolderName(folder)) {
      skipped.push({
        source: file.source,
        reason: `its folder ${shown(folder)} is not a topic name`,
        fix: "rename the folder to lowercase letters, digits and single dashes (e.g. build-tools)",
      });
      continue;
    }
    try {
      // A file keeps its name when it is one rkb would make, so links between imported lessons still resolve.
      const name = basename(file.source, ".md");
      const { changes, result } = planAdd(kb, {
        lesson: { text: file.text },
        topic,
        source: opts.source,
        env: opts.env,
        name: file.source,
        imported: true,
        batch,
        slug: isFolderName(name) ? name : undefined,
      });
      const { rel, text } = changes[0]!;
      batch.planned(parseLesson(text!, rel));
      planned.push({ file, rel, text: text!, write: result });
    } catch (e) {
      if (!(e instanceof RkbError)) throw e;
      const findings = e.extra.findings as Finding[] | undefined;
      skipped.push({ source: file.source, reason: e.message, fix: e.fix, ...(findings ? { findings } : {}) });
    }
  }
  return planned;
}

/**
 * Lints the planned lessons as one write would; a lesson with an error is left out with its findings,
 * the others keep their warnings as notes. Repeats until what is left is clean (a rule comparing files
 * may have blamed a lesson that is now out).
 */
function lintedLessons(kb: Kb, planned: PlannedLesson[], env: NodeJS.ProcessEnv, skipped: Skipped[]): PlannedLesson[] {
  let kept = planned;
  while (kept.length) {
    const overrides = new Map<string, string | null>(kept.map((p) => [p.rel, p.text]));
    const findings = lintKb(kb.root, { overrides, only: [...overrides.keys()], env, nearDuplicates: false }).filter((f) => overrides.has(f.path));
    const byPath = new Map<string, Finding[]>();
    for (const f of findings) {
      const list = byPath.get(f.path);
      if (list) list.push(f);
      else byPath.set(f.path, [f]);
    }
    const failing = new Set(findings.filter((f) => f.severity === "error").map((f) => f.path));
    if (!failing.size) {
      for (const p of kept)
        for (const f of (byPath.get(p.rel) ?? []).map((f) => inSource(p, f)))
          p.write.notes.push(`${f.severity} ${f.rule}${f.line ? ` (line ${f.line})` : ""}: ${f.message}`);
      return kept;
    }
    kept = kept.filter((p) => {
      if (!failing.has(p.rel)) return true;
      const errors = byPath.get(p.rel)!.filter((f) => f.severity === "error");
      const shownFindings = errors.map((f) => inSource(p, f));
      const first = shownFindings[0]!;
      skipped.push({
        source: p.file.source,
        reason: `${first.path}${first.line ? `:${first.line}` : ""}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`,
        fix: "fix the file and import again; `rkb import <folder> --dry-run` checks it without writing",
        findings: shownFindings,
      });
      return false;
    });
  }
  return kept;
}

/** A finding on the written lesson as it reads on the source file. */
const inSource = (p: PlannedLesson, f: Finding): Finding => asGiven({ name: p.file.source, text: p.file.text }, { rel: p.rel, text: p.text }, f);

/** Plain notes as inbox items: `From <path>: <title>` and the text, masked; a note already in the inbox is left out. */
function inboxNotes(files: ImportFile[], opts: ImportOptions, skipped: Skipped[]): { entries: InboxEntry[]; noted: Noted[] } {
  const entries: InboxEntry[] = [];
  const noted: Noted[] = [];
  if (!files.length) return { entries, noted };
  const seen = new Map(listItems(opts.env).map((item) => [item.body.trimEnd(), `already in the inbox as ${item.id}`]));
  for (const file of files) {
    if (!file.text.trim()) {
      skipped.push({ source: file.source, reason: "empty" });
      continue;
    }
    const { title, body } = noteText(file);
    const already = seen.get(body);
    if (already) {
      skipped.push({ source: file.source, reason: already, fix: "`rkb inbox` lists the items" });
      continue;
    }
    seen.set(body, `the same note as ${file.source}`);
    entries.push({ meta: { ...opts.inboxMeta }, body });
    noted.push({ source: file.source, title });
  }
  return { entries, noted };
}

/** A plain note as an inbox item's text, `From <path>: <title>` and the rest, masked; and its title (masked). */
export function noteText(file: ImportFile): { title: string; body: string } {
  const { title, rest } = splitTitle(file);
  return { title: maskSecrets(title), body: maskSecrets(`From ${shown(file.source, 200)}: ${title}\n\n${rest}`).trimEnd() };
}

/** The note's first `# ` heading (after any frontmatter) as its title, and the text without it; else the file name. */
function splitTitle(file: ImportFile): { title: string; rest: string } {
  const text = file.text.replace(/\r\n/g, "\n");
  let from = 0;
  if (text.startsWith("---\n")) {
    const close = text.indexOf("\n---\n", 3);
    if (close !== -1) from = close + 5;
  }
  const heading = /^# +(\S[^\n]*)$/m;
  const m = heading.exec(text.slice(from));
  if (!m) return { title: basename(file.source, ".md"), rest: text.trim() };
  const start = from + m.index;
  const title = m[1]!.trim().slice(0, 200);
  return { title, rest: (text.slice(0, start) + text.slice(start + m[0].length)).trim() };
}
