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

let table: Map<string, string[]> | undefined;

/** The other words of a word's synonym groups, as index terms (stemmed). */
export function synonymsOf(term: string): string[] {
  if (!table) {
    table = new Map();
    for (const group of GROUPS) {
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
      for (const t of terms) table.set(t, [...new Set([...(table.get(t) ?? []), ...terms.filter((o) => o !== t)])]);
    }
  }
  return table.get(term) ?? [];
}
