// Splits a bash command line into the simple commands it runs, the way a reader would, so rkb can
// tell which program a command is about (`cd sub && make` runs make) and whether it changes
// anything. Not a shell: quoting, `$(…)`, pipes, lists, redirections, comments and here-documents
// are understood well enough to find command words; expansions are not performed. One pass, linear
// in the length of the command.

export interface SimpleCommand {
  /** The words, quotes removed, redirections taken out. */
  words: string[];
  /** Output goes to a file (`> out.txt`, `>> log`), not to /dev/null or another descriptor. */
  writesFile: boolean;
}

/** The stages of one pipeline (`a | b`), in order. */
export type Pipeline = SimpleCommand[];

const BLANK = new Set([" ", "\t", "\r"]);
const WORD_END = new Set([" ", "\t", "\r", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const REDIRECT = /^(?:\d+|&)?(?:<<-|<<<|<<|<>|<&|>&|>>|>\||<|>)/;

/**
 * The command lines read lately, with their pipelines: several rules read each line (its program,
 * whether it only reads, whether it probes or waits), and sessions run the same lines again and
 * again. Callers treat the result as read-only. At most RECENT lines and RECENT_CHARS characters
 * of them: more than an archive's distinct lines in rotation (a cache smaller than the rotation is
 * emptied before any line comes back), a few megabytes at most.
 */
const recent = new Map<string, Pipeline[]>();
const RECENT = 4096;
const RECENT_CHARS = 4 * 1024 * 1024;
let recentChars = 0;

/** The pipelines of a command line, in the order they appear (lists, subshells and lines flattened). */
export function parseShell(command: string): Pipeline[] {
  let read = recent.get(command);
  if (read) return read;
  read = parse(command);
  if (recent.size >= RECENT || recentChars + command.length > RECENT_CHARS) {
    recent.clear();
    recentChars = 0;
  }
  recent.set(command, read);
  recentChars += command.length;
  return read;
}

function parse(command: string): Pipeline[] {
  const pipelines: Pipeline[] = [];
  let stages: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], writesFile: false };
  let redirect: string | undefined;
  let heredocs: { delimiter: string; stripTabs: boolean }[] = [];
  const s = command;
  let i = 0;

  const endStage = () => {
    if (current.words.length || current.writesFile) stages.push(current);
    current = { words: [], writesFile: false };
    redirect = undefined;
  };
  const endPipeline = () => {
    endStage();
    if (stages.length) pipelines.push(stages);
    stages = [];
  };
  const addWord = (word: string) => {
    if (redirect === undefined) {
      current.words.push(word);
      return;
    }
    const op = redirect;
    redirect = undefined;
    if (/(?:^|[^<])<<-?$/.test(op)) heredocs.push({ delimiter: word, stripTabs: op.endsWith("-") });
    else if (op.includes(">") && !op.endsWith("&") && word !== "/dev/null") current.writesFile = true;
  };

  while (i < s.length) {
    const c = s[i]!;
    if (BLANK.has(c)) {
      i++;
      continue;
    }
    if (c === "\\" && s[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (c === "\n") {
      endPipeline();
      i = heredocs.length ? skipHeredocs(s, i + 1, heredocs) : i + 1;
      heredocs = [];
      continue;
    }
    if (c === "#") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    const two = c === "&" || c === "|" || c === ";" ? s.slice(i, i + 2) : "";
    if (two === "&&" || two === "||" || two === ";;") {
      endPipeline();
      i += 2;
      continue;
    }
    if (c === ";" || c === "(" || c === ")" || (c === "&" && s[i + 1] !== ">")) {
      endPipeline();
      i++;
      continue;
    }
    if (c === "|") {
      endStage();
      i += s[i + 1] === "&" ? 2 : 1;
      continue;
    }
    const op = c === "<" || c === ">" || c === "&" || (c >= "0" && c <= "9") ? REDIRECT.exec(s.slice(i, i + 8)) : null;
    if (op && (c === "<" || c === ">" || c === "&" || /^\d+[<>]/.test(op[0]))) {
      i += op[0].length;
      // `2>&1` and `>&2` name a descriptor; the target word follows (`> file`, `>file`).
      redirect = op[0];
      continue;
    }
    const [word, next] = readWord(s, i);
    addWord(word);
    i = next;
  }
  endPipeline();
  return pipelines;
}

/** Reads one word from i: quotes removed, `$(…)`, `${…}` and backquotes kept whole. */
function readWord(s: string, start: number): [string, number] {
  let out = "";
  let i = start;
  while (i < s.length && !WORD_END.has(s[i]!)) {
    const c = s[i]!;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      const stop = end < 0 ? s.length : end;
      out += s.slice(i + 1, stop);
      i = stop + 1;
    } else if (c === '"') {
      IN_DOUBLE_QUOTES.lastIndex = i + 1;
      const inside = IN_DOUBLE_QUOTES.exec(s)![0];
      out += inside.includes("\\") ? inside.replace(/\\([\s\S])/g, "$1") : inside;
      i += inside.length + 2;
    } else if (c === "\\") {
      if (i + 1 < s.length) out += s[i + 1];
      i += 2;
    } else if (c === "$" && (s[i + 1] === "(" || s[i + 1] === "{")) {
      const end = closing(s, i + 1);
      out += s.slice(i, end);
      i = end;
    } else if (c === "`") {
      const end = s.indexOf("`", i + 1);
      const stop = end < 0 ? s.length : end + 1;
      out += s.slice(i, stop);
      i = stop;
    } else {
      // A run of plain characters is taken in one slice.
      PLAIN.lastIndex = i + 1;
      const j = PLAIN.test(s) ? PLAIN.lastIndex : i + 1;
      out += s.slice(i, j);
      i = j;
    }
  }
  return [out, Math.max(i, start + 1)];
}

// Runs read by one regex each, not a character at a time: a command line can be kilobytes (a
// here-document, a script passed to `-c`). PLAIN stops at what ends a word and at the characters
// inside a word that readWord treats apart (quotes, backslash, `$`, backquote).
const PLAIN = /[^ \t\r\n;&|()<>'"\\$`]+/y;
/** What a double-quoted string holds up to its closing quote (or the end), a backslash with the character it escapes. */
const IN_DOUBLE_QUOTES = /(?:[^"\\]+|\\[\s\S]?)*/y;

/** The index after the bracket matching the one at `open`, skipping quoted text. */
function closing(s: string, open: number): number {
  const pair = s[open] === "(" ? ["(", ")"] : ["{", "}"];
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) return s.length;
      i = end;
    } else if (c === "\\") i++;
    else if (c === pair[0]) depth++;
    else if (c === pair[1] && --depth === 0) return i + 1;
  }
  return s.length;
}

/** The index after the here-document bodies that start at i (each ends at its delimiter line). */
function skipHeredocs(s: string, start: number, docs: { delimiter: string; stripTabs: boolean }[]): number {
  let i = start;
  for (const doc of docs) {
    while (i < s.length) {
      const end = s.indexOf("\n", i);
      const stop = end < 0 ? s.length : end;
      const line = s.slice(i, stop);
      i = stop + 1;
      if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) break;
    }
  }
  return Math.min(i, s.length);
}
