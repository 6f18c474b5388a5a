// Secret shapes read by a hand-written scanner rather than a pattern: a private key (also one whose
// END line was cut off) and a chat bot token of three dot-separated parts. Each reads every character
// a bounded number of times, so any input is scanned in linear time. The table that names them is
// secrets.ts.

// ---- private keys: the body between BEGIN and END, or all the key material left when END was cut off ----

const KEY_BEGIN = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_END = /-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g;
// A `Name: value` header line (Proc-Type, DEK-Info, Comment) right after BEGIN.
const KEY_HEADER = /(?:\r?\n|\\n)[A-Za-z-]{1,40}: [^\n\\]{0,200}(?=\r?\n|\\n)/y;
/** A PEM line is 64 characters, an OpenSSH one 70: a run this long joined by a blank is a line of a key flattened to one. */
const KEY_LINE_CHARS = 40;

const isBase64 = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61;
const isBlank = (c: number) => c === 32 || c === 9;
const isSpace = (c: number) => isBlank(c) || c === 10 || c === 13;

/**
 * Where the key material after a BEGIN line without its END ends. The material is runs of base64;
 * between two runs may stand a line break, real or escaped (`\n`, `\r\n`, `\\n` in JSON inside
 * JSON), with what quotes a key line around it (indentation, `# ` or `> ` in front, a string's
 * quotes, `+` or `,` of code that joins strings), or a single blank after a whole key line (a key
 * flattened to one line). A line shorter than the longest before it is the block's last; a run
 * that stops at another character ends the key (cut in the middle of a line) unless it is a word.
 */
function keyMaterialEnd(text: string, start: number): number {
  let at = start;
  for (KEY_HEADER.lastIndex = at; KEY_HEADER.test(text); KEY_HEADER.lastIndex = at) at = KEY_HEADER.lastIndex;
  let end = start;
  let longest = 0;
  for (;;) {
    // The separator before the next run.
    let breaks = false;
    let quoting = false;
    let blanks = 0;
    const sepStart = at;
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c === 10 || c === 13) breaks = true;
      else if (c === 92) {
        let slashes = at;
        while (text.charCodeAt(slashes) === 92) slashes++;
        const next = text[slashes];
        if (next !== "n" && next !== "r") break;
        breaks = true;
        at = slashes;
      } else if (isBlank(c)) blanks++;
      // `+` joins strings in code only with a blank or a line break after it; before base64 it is key material.
      else if (c === 34 || c === 39 || c === 96 || c === 35 || c === 62 || c === 44 || (c === 43 && isSpace(text.charCodeAt(at + 1)))) quoting = true;
      else break;
      at++;
    }
    const runStart = at;
    while (at < text.length && isBase64(text.charCodeAt(at))) at++;
    const run = at - runStart;
    if (!run) return end;
    const joined = breaks || (!quoting && blanks <= 1 && (end === start || longest >= KEY_LINE_CHARS)) || sepStart === runStart;
    if (!joined || (quoting && !breaks)) return end;
    const next = at < text.length ? text.charCodeAt(at) : -1;
    const atSeparator = next === -1 || next === 10 || next === 13 || next === 92 || isBlank(next) || next === 34 || next === 39 || next === 96;
    // A short word after the key (`Done.`) is text; a cut line of key material is long or not a word.
    if (end > start && run < 16 && /^[A-Za-z]+$/.test(text.slice(runStart, at))) return end;
    end = at;
    if (!atSeparator || run < longest) return end;
    longest = Math.max(longest, run);
  }
}

export function scanPrivateKeys(text: string, found: (start: number, end: number) => void): void {
  KEY_BEGIN.lastIndex = 0;
  // The next END at or after the scan position; searched again only once passed, so the text is read once.
  let end: RegExpExecArray | null | undefined;
  for (let m = KEY_BEGIN.exec(text); m; m = KEY_BEGIN.exec(text)) {
    const start = m.index + m[0].length;
    if (end !== null && (end === undefined || end.index < start)) {
      KEY_END.lastIndex = start;
      end = KEY_END.exec(text);
    }
    const stop = end ? end.index : keyMaterialEnd(text, start);
    // Key material is long base64; `b"-----BEGIN … KEY-----"` in code that looks for keys is none.
    if (/[A-Za-z0-9+/=]{16}/.test(text.slice(start, stop))) found(start, stop);
    KEY_BEGIN.lastIndex = Math.max(KEY_BEGIN.lastIndex, stop);
  }
}

// ---- bot tokens: three dot-separated parts -------------------------------------------------------

const isTokenChar = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45;
const mixed = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s) && /\d/.test(s);

/**
 * A chat platform's bot token: `<id>.<time>.<signature>` in base64url (Discord's shape). It is one
 * when its first part is a numeric id in base64, or when its first and last parts are generated
 * (upper and lower case and digits), as dotted names (`Class.method.name`) and hosts are not.
 * Each `.` is looked at once, with a bounded look around it.
 */
export function scanBotTokens(text: string, found: (start: number, end: number) => void): void {
  const run = (from: number, max: number) => {
    let at = from;
    while (at < text.length && at - from <= max && isTokenChar(text.charCodeAt(at))) at++;
    return at;
  };
  for (let dot = text.indexOf("."); dot !== -1; dot = text.indexOf(".", dot + 1)) {
    let start = dot;
    while (start > 0 && dot - start <= 40 && isTokenChar(text.charCodeAt(start - 1))) start--;
    const idLength = dot - start;
    if (idLength < 18 || idLength > 40 || text[start - 1] === ".") continue;
    const second = run(dot + 1, 10);
    if (second - dot - 1 < 4 || second - dot - 1 > 10 || text[second] !== ".") continue;
    const end = run(second + 1, 200);
    const sigLength = end - second - 1;
    if (sigLength < 20 || sigLength > 200 || text[end] === "." || (end < text.length && isTokenChar(text.charCodeAt(end)))) continue;
    const [id, time, signature] = [text.slice(start, dot), text.slice(dot + 1, second), text.slice(second + 1, end)];
    const numericId = /^\d{15,21}$/.test(Buffer.from(id, "base64url").toString("latin1"));
    const discord =
      /^[MNO]/.test(id) &&
      idLength >= 24 &&
      idLength <= 28 &&
      time.length >= 6 &&
      time.length <= 7 &&
      sigLength >= 27 &&
      sigLength <= 40 &&
      /\d/.test(id + time + signature);
    if (numericId || discord || (idLength >= 20 && sigLength >= 25 && mixed(id) && mixed(signature))) {
      found(start, end);
      dot = end;
    }
  }
}
