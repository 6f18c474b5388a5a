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
const LINK = /(!?)\[([^\]]*)\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g;

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
      if (target.startsWith("<") && target.endsWith(">")) target = target.slice(1, -1);
      scan.links.push({ target, image: m[1] === "!", line: n });
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

/** First sentence of the first text line of a section (bullets removed, fences skipped). */
export function firstSentence(sectionText: string): string {
  let inFence = false;
  for (const raw of sectionText.split("\n")) {
    const line = raw.trim();
    if (/^(`{3,}|~{3,})/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || line === "") continue;
    const text = line.replace(/^[-*]\s+/, "");
    // A sentence never ends inside inline code (`cmake -S . -B build`).
    const end = /[.?!](\s|$)/.exec(stripCodeSpans(text));
    return end ? text.slice(0, end.index + 1) : text;
  }
  return "";
}
