import { plainTerm } from "./tokenize.ts";

// Words people use for the same thing when they describe a computing problem. A lesson says
// "hangs", the user types "stuck"; a lesson says "deleted", the user "removed" it. Each group is a
// set of interchangeable words; a query word also looks for the others, at a lower weight than the
// word itself. Only everyday technical English belongs here: names of tools and of specific
// errors match by themselves.

const GROUPS = [
  "hang hangs hung stuck freeze freezes frozen stall stalls unresponsive",
  "crash crashes crashed segfault dies died abort aborts",
  "delete deleted remove removed erase erased drop dropped",
  "mistake accident accidentally mistakenly wrongly",
  "restore recover undo revert retrieve",
  "lost missing vanished disappeared gone",
  "machine machines node nodes host hosts server servers",
  "several multiple many various",
  "folder directory dir",
  "slow slowly sluggish laggy",
  "fast quick quickly speed",
  "start startup launch boot",
  "stop kill terminate",
  "config configuration settings setup",
  "repo repository",
  "env environment virtualenv venv",
  "lib library libraries",
  "app application program binary executable",
  "install installed installing setup",
  "permission permissions access denied forbidden",
  "big large huge",
  "tiny small little",
  "show list display print",
  "rename move mv",
  "copy cp duplicate",
  "download fetch pull",
  "upload push send",
  "wait waiting pause pauses delay",
  "container docker podman",
  "block prevent forbid disallow protect",
  "default main trunk master",
  "save write store",
  "compile build",
  "ignore ignores skip skips",
  "broken break breaks",
  "warning warn",
  "search find locate lookup",
  "variable var",
  "function func method",
  "argument arg parameter param",
  "document doc docs documentation",
  "memory ram",
  "disk storage drive",
  "quota limit",
];

/** The other words of a word's synonym groups, as index terms (stemmed), in the order of the groups. */
export function synonymsOf(term: string): string[] {
  // A stem is the start of its word, but for a final y or -ies turned into i: only a group whose
  // text holds that start can hold the term, so a search stems a few groups, not the whole table.
  const start = term.endsWith("i") ? term.slice(0, -1) : term;
  const out: string[] = [];
  for (const group of GROUPS) {
    if (!group.includes(start)) continue;
    // Every word here is plain lowercase, so its term is its stem: the whole tokenizer would cost
    // more than the search it serves in a fresh process.
    const terms = [
      ...new Set(
        group
          .split(" ")
          .map(plainTerm)
          .filter((t): t is string => t !== undefined),
      ),
    ];
    if (!terms.includes(term)) continue;
    for (const other of terms) if (other !== term && !out.includes(other)) out.push(other);
  }
  return out;
}
