// Paths and addresses in what rkb keeps from a session: the session's working directory is written
// `.`, any home folder `~` and a person's e-mail address `[masked:email]`, so a lesson made from a
// draft names no person or machine (lint's `leak/path`, `leak/email`) and reads the same from
// every checkout. Applied with the secret mask, before anything reads the session's text.

import { maskEmails } from "./emails.ts";
import { maskSecrets } from "./secrets.ts";

/** `/Users/<name>`, `/home/<name>`, `C:\Users\<name>`: a home folder, up to the end of the name. */
const HOME = /(?<![\w.~$-])(?:\/Users\/|\/home\/|[A-Za-z]:\\Users\\)(?!\$)[^\s/\\"'`<>()[\]{},;|:*?]+/g;
/** A home in the dashed names harnesses give folders (`-Users-ana-src-app`, `--home-ana-work--`). */
const DASHED_HOME = /-(?:Users|home)-[^\s/\\"'`<>()[\]{},;|:*?-]+(?=-|\/|$)/g;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A function that rewrites a session's text: its working directory (a path that starts there) as
 * `.`, every other home folder as `~`, addresses masked. Without a working directory only homes
 * and addresses are rewritten.
 * `home`: this machine's home, written `~` too where it has no home's usual name (`/root`, a CI
 * runner's `/github/home`).
 */
export function personalMasker(cwd?: string, home?: string): (text: string) => string {
  const dir = cwd?.replace(/[/\\]+$/, "");
  const h = home?.replace(/[/\\]+$/, "");
  // The folder itself, ending where a path part ends; not the root, not a home itself (that is `~`).
  const own = dir && dir.length > 1 && !isBareHome(dir) && dir !== h ? folder(dir) : undefined;
  const mine = h && h.length > 1 && !isBareHome(h) ? folder(h) : undefined;
  return (text) => {
    if (!text) return text;
    let out = own && text.includes(dir!) ? text.replace(own, ".") : text;
    if (mine && out.includes(h!)) out = out.replace(mine, "~");
    if (out.includes("Users") || out.includes("home")) out = out.replace(HOME, "~").replace(DASHED_HOME, "-~");
    return maskEmails(out);
  };
}

/** Each folder's regex, made once: an archive's sessions share a few folders and one home, and a regex is compiled where first used. */
const folders = new Map<string, RegExp>();

/** A folder's path where it stands as a path of its own (or the start of one). */
function folder(dir: string): RegExp {
  let re = folders.get(dir);
  if (!re) {
    if (folders.size >= 256) folders.clear();
    folders.set(dir, (re = new RegExp(`(?<![\\w.~-])${escapeRegex(dir)}(?![^\\s/\\\\"'\`<>()[\\]{},;|:*?])`, "g")));
  }
  return re;
}

function isBareHome(dir: string): boolean {
  HOME.lastIndex = 0;
  const m = HOME.exec(dir);
  return m !== null && m.index === 0 && m[0].length === dir.length;
}

/** The machine's own home as `~` in a path rkb records (a session file's name in the state and reports). */
export function tildePath(path: string, home: string | undefined): string {
  const h = home?.replace(/\/+$/, "");
  if (h && h.length > 1 && (path === h || path.startsWith(h + "/"))) return "~" + path.slice(h.length);
  return personalMasker()(path);
}

/** A session's working directory as rkb keeps it (in an item, a cursor): secrets masked, the home `~`. */
export function maskedCwd(cwd: string, home: string | undefined): string {
  return personalMasker(undefined, home)(maskSecrets(cwd));
}
