// Inputs that made rkb slow: long lines, broken frontmatter, a huge SVG, runs of one character
// that make a backtracking pattern retry from every position. Shared by the linear-time test and
// scripts/bench-linear.ts, which measures the same inputs at full size.
import { SessionWriter } from "../sessions/session-writer.ts";

export const MiB = 1 << 20;

const HEAD = "schema: 1\nid: 3f9a0c1b2d\ntype: fact\nstatus: active\nverified: 2026-11-01\nverified_how: ran\n";

/** A lesson whose frontmatter has `lines` lines, a list whose last item opens a quote it never closes. */
export function brokenFrontmatter(lines: number): { text: string; badLine: number } {
  const items = Array.from({ length: lines - 8 }, (_, i) => `  - item-${i}`).join("\n");
  const text = `---\n${HEAD}tags:\n${items}\n  - "unclosed\n---\n# A title\n\n## Statement\nText.\n\n## Evidence\nRan it.\n`;
  return { text, badLine: text.split("\n").indexOf('  - "unclosed') + 1 };
}

/** A minified SVG of about `bytes` bytes on one line: path data is long runs of digits, dots and dashes. */
export function svg(bytes: number): string {
  const head = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'><path d='M0-0";
  const tail = "z'/></svg>";
  const step = "l1.25-3.5.75-2.125";
  return head + step.repeat(Math.ceil((bytes - head.length - tail.length) / step.length)) + tail;
}

/** A lesson that shows an SVG of `bytes` bytes inline as a data URI (one very long line). */
export function lessonWithDataUri(bytes: number): string {
  return `---\n${HEAD}---\n# Ingest pipeline layout: reader, queue and writer stages\n\n## Statement\nThe layout:\n\n![layout](data:image/svg+xml;utf8,${encodeURIComponent(svg(bytes)).replace(/%2F/g, "/").replace(/%3D/g, "=")})\n\n## Evidence\nDrawn from the running system.\n`;
}

/** A lesson linking an asset file beside it. */
export function lessonLinking(asset: string): string {
  return `---\n${HEAD.replace("3f9a0c1b2d", "3f9a0c1b2e")}---\n# Storage tier layout: hot NVMe pool above a cold tape archive\n\n## Statement\nWhere each dataset lives:\n\n![layout](${asset})\n\n## Evidence\nCopied from lsblk output and the tape library inventory.\n`;
}

/** A pi session whose lines are each about `bytes` long: a user message, a failed command's output, an agent reply. */
export function sessionWithLongLines(bytes: number): string {
  const w = new SessionWriter("pi");
  const words = "make: error: cannot find target ".repeat(Math.ceil(bytes / 64));
  const oneWord = "x".repeat(bytes);
  w.user("build the project please " + words.slice(0, bytes / 2));
  w.bash("make all", `${oneWord}\nerror: ${words.slice(0, bytes / 2)}`, 2);
  w.agent("[".repeat(bytes / 2) + "`".repeat(bytes / 2));
  // A step in between: the same command working again with nothing done is no fix.
  w.bash("./configure", "ok", 0);
  w.bash("make all", "done", 0);
  return w.text();
}

/** Runs of one pattern that a backtracking regex would retry from every position. */
export const RUNS = [
  "a",
  " ",
  "\n",
  "\t",
  "[",
  "`",
  "/",
  "@",
  "#",
  "-",
  ".",
  "=",
  ":",
  "0",
  "A",
  "<",
  "(",
  "*",
  "_",
  "a.",
  "a-",
  "a@",
  "a/",
  "aB",
  "[a](",
  "![",
  "# ",
  "\n\n\n",
  "\r\n",
  "<system-reminder>",
  "<rkb-lesson ",
  "--password ",
  "password=",
  "-l",
  "0x",
  "`a`",
  "~~~\n",
  "- ",
  "a: ",
  "***",
  "Wall time: ",
  "Command exited with code 1 ",
];

export const run = (pattern: string, chars: number) => pattern.repeat(Math.ceil(chars / pattern.length));
