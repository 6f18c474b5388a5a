// Commands that change nothing: programs that only look, and the subcommands of others that only
// look. program.ts asks stageReadOnly for each simple command it reads.

/** Programs that only look (at files, the system, the environment). */
const READERS = new Set([
  "ls",
  "ll",
  "la",
  "dir",
  "cat",
  "bat",
  "less",
  "more",
  "head",
  "tail",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "fd",
  "tree",
  "pwd",
  "echo",
  "printf",
  "which",
  "whereis",
  "type",
  "file",
  "stat",
  "wc",
  "du",
  "df",
  "printenv",
  "whoami",
  "id",
  "uname",
  "hostname",
  "date",
  "ps",
  "history",
  "man",
  "info",
  "diff",
  "cmp",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "realpath",
  "readlink",
  "basename",
  "dirname",
  "jq",
  "sort",
  "uniq",
  "cut",
  "tr",
  "awk",
  "column",
  "nl",
  "od",
  "xxd",
  "hexdump",
  "strings",
  "nm",
  "objdump",
  "readelf",
  "ldd",
  "lsof",
  "free",
  "uptime",
  "nproc",
  "lscpu",
  "lsb_release",
  "locale",
  "getent",
  "apt-cache",
  "true",
  ":",
  "test",
  "[",
  "[[",
  "sleep",
  "clear",
  "env",
  "command",
]);
/** Subcommands that only look, for programs that can also change things. */
const READING_SUBCOMMANDS = new Map<string, Set<string>>(
  Object.entries({
    git: new Set([
      "status",
      "diff",
      "log",
      "show",
      "blame",
      "rev-parse",
      "ls-files",
      "ls-tree",
      "ls-remote",
      "grep",
      "describe",
      "shortlog",
      "reflog",
      "cat-file",
      "whatchanged",
      "remote",
      "branch",
      "tag",
      "config",
    ]),
    pip: new Set(["list", "show", "freeze", "check", "search", "--version"]),
    npm: new Set(["ls", "list", "view", "info", "outdated", "why", "explain", "help", "--version"]),
    docker: new Set(["ps", "images", "logs", "inspect", "version", "info"]),
    kubectl: new Set(["get", "describe", "logs", "version", "explain"]),
    systemctl: new Set(["status", "is-active", "is-enabled", "list-units", "show"]),
    brew: new Set(["list", "info", "search", "--prefix", "config", "doctor"]),
    cargo: new Set(["tree", "metadata", "--version"]),
  }),
);
/** git subcommands above that change things when given more than a listing flag. */
const GIT_LISTING = new Set(["remote", "branch", "tag", "config"]);
const GIT_LISTING_FLAGS = new Set([
  "-v",
  "-vv",
  "--verbose",
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-l",
  "--list",
  "--get",
  "--get-all",
  "--show-origin",
  "--show-current",
]);
const ASK_VERSION = new Set(["--version", "-V", "--help", "-h", "version", "-version"]);

export function stageReadOnly(name: string, args: string[]): boolean {
  if (args.length === 1 && ASK_VERSION.has(args[0]!)) return true;
  if (name === "find") return !args.some((a) => /^-(?:delete|exec|execdir|ok|okdir|fprint.*)$/.test(a));
  if (name === "sed") return !args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a));
  if (READERS.has(name)) return true;
  const reading = READING_SUBCOMMANDS.get(name);
  if (!reading) return false;
  if (name === "git") {
    const sub = gitSubcommand(args);
    if (!sub || !reading.has(sub.word)) return false;
    // `git branch` lists, `git branch -D x` deletes: listing subcommands read only with listing flags.
    return !GIT_LISTING.has(sub.word) || args.slice(sub.index + 1).every((a) => GIT_LISTING_FLAGS.has(a));
  }
  const sub = args.find((a) => !a.startsWith("-")) ?? args[0];
  return sub !== undefined && reading.has(sub);
}

/** git's subcommand, past `-C dir` and `-c key=value`. */
function gitSubcommand(args: string[]): { word: string; index: number } | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-C" || a === "-c") i++;
    else if (!a.startsWith("-")) return { word: a, index: i };
  }
  return undefined;
}
