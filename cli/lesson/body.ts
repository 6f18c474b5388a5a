// Reads the Markdown body of a lesson: title, H2 sections, fenced blocks, links and indented code.
// Headings and links inside fenced code do not count.

export interface Heading {
  level: number;
  text: string;
  /** 1-based line within the body. */
  line: number;
}

export interface Fence {
  lang: string;
  line: number;
  content: string;
  /** The H2 section the block sits in ("" before the first H2). */
  section: string;
}

export interface Link {
  target: string;
  image: boolean;
  line: number;
  /** 0-based offset of the target in its line (inside `<…>` when the link uses them), for rewriting it in place. */
  column: number;
}

export interface Section {
  heading: string;
  line: number;
  /** The section's text without its heading line, trimmed. */
  text: string;
}

export interface BodyScan {
  headings: Heading[];
  sections: Section[];
  fences: Fence[];
  links: Link[];
  /** Lines that Markdown would read as indented code blocks. */
  indentedCode: number[];
  /** Fences that never close (line of the opening fence). */
  unclosedFence?: number;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)?.*$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
// Link text holds no `[`, a bare target no `(`, an angle target no `<`: each part then stops at the
// next place a link could start, so a line of a million `[` or `](` is read in linear time.
const LINK = /(!?)\[([^[\]]*)\]\(\s*(<[^<>]*>|[^()\s]+)(?:\s+"[^"]*")?\s*\)/dg;

export function scanBody(body: string): BodyScan {
  const lines = body.split(/\r?\n/);
  const scan: BodyScan = { headings: [], sections: [], fences: [], links: [], indentedCode: [] };
  let fence: { marker: string; lang: string; line: number; content: string[] } | undefined;
  let current: { heading: string; line: number; lines: string[] } | undefined;
  let prevBlankOrCode = true;
  let inList = false;
  let currentSection = "";

  const closeSection = () => {
    if (current) scan.sections.push({ heading: current.heading, line: current.line, text: current.lines.join("\n").trim() });
  };

  lines.forEach((line, idx) => {
    const n = idx + 1;
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === fence.marker[0] && close[1]!.length >= fence.marker.length) {
        scan.fences.push({ lang: fence.lang, line: fence.line, content: fence.content.join("\n"), section: currentSection });
        fence = undefined;
      } else fence.content.push(line);
      current?.lines.push(line);
      prevBlankOrCode = false;
      return;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      fence = { marker: open[1]!, lang: open[2] ?? "", line: n, content: [] };
      current?.lines.push(line);
      prevBlankOrCode = false;
      return;
    }
    if (line.trim() === "") {
      prevBlankOrCode = true;
      current?.lines.push(line);
      return;
    }
    if (/^( {4,}|\t)/.test(line) && prevBlankOrCode && !inList) {
      scan.indentedCode.push(n);
      current?.lines.push(line);
      return;
    }
    inList = /^\s*([-*+]|\d+[.)])\s/.test(line) || (inList && /^\s+/.test(line));
    prevBlankOrCode = false;
    const h = HEADING.exec(line);
    if (h) {
      const heading = { level: h[1]!.length, text: h[2]!.trim(), line: n };
      scan.headings.push(heading);
      if (heading.level === 2) {
        closeSection();
        current = { heading: heading.text, line: n, lines: [] };
        currentSection = heading.text;
        return;
      }
    }
    current?.lines.push(line);
    for (const m of stripCodeSpans(line).matchAll(LINK)) {
      let target = m[3]!;
      let column = m.indices![3]![0];
      if (target.startsWith("<") && target.endsWith(">")) {
        target = target.slice(1, -1);
        column++;
      }
      scan.links.push({ target, image: m[1] === "!", line: n, column });
    }
  });
  if (fence) scan.unclosedFence = fence.line;
  closeSection();
  return scan;
}

/** Replaces inline code spans with spaces so links inside them are not seen. */
function stripCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, (m) => " ".repeat(m.length));
}

const FENCE_LINE = /^(`{3,}|~{3,})/;
const LIST_ITEM = /^(?:[-*+]|\d+[.)])\s+/;

/**
 * The paragraphs of Markdown text, each joined into one line: a paragraph wrapped over several
 * lines is one piece of text. Blank lines, headings and list items start a new one; fenced code
 * is left out.
 */
export function paragraphs(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let inFence = false;
  const flush = () => {
    if (current.length) out.push(current.join(" "));
    current = [];
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (FENCE_LINE.test(line)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (line === "" || line.startsWith("#")) {
      flush();
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      current.push(line.replace(LIST_ITEM, ""));
    } else current.push(line);
  }
  flush();
  return out;
}

/** Words ending in a full stop that do not end a sentence. */
const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|cf|vs|etc|approx|incl|resp|esp|viz|al|fig|mr|mrs|ms|dr)\.$/i;

/**
 * The sentences of one paragraph. A sentence ends at `.`, `?` or `!` (closing quotes or brackets
 * may follow) before white space, unless the next word starts in lower case or the word is an
 * abbreviation (`e.g.`). A dot inside a word (`sys.path`, `v1.2`) or inside inline code never ends one.
 */
export function sentences(paragraph: string): string[] {
  const text = paragraph.replace(/\s+/g, " ").trim();
  const plain = stripCodeSpans(text);
  const out: string[] = [];
  let start = 0;
  for (const m of plain.matchAll(/[.?!]+["'\u2019)\]]*(?= |$)/g)) {
    const end = m.index + m[0].length;
    const next = plain[end + 1];
    if (next !== undefined && /\p{Ll}/u.test(next)) continue;
    if (m[0] === "." && ABBREVIATIONS.test(plain.slice(Math.max(start, m.index - 8), end))) continue;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  if (start < text.length && text.slice(start).trim()) out.push(text.slice(start).trim());
  return out;
}

/** The first sentence of a section's first paragraph (bullets removed, fences skipped). */
export function firstSentence(sectionText: string): string {
  const first = paragraphs(sectionText)[0];
  return first === undefined ? "" : (sentences(first)[0] ?? "");
}
