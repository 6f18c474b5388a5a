import { git, gitReason } from "../base/git.ts";
import { RkbError } from "../base/errors.ts";
import { maskSecrets } from "../text/secrets.ts";
import { secretLeaks } from "./leak.ts";

// What a push would publish is every commit it sends, not the tree at its end: a token committed by
// hand and removed in the next commit is in the remote's history for good. Each commit's message and
// the lines it adds (whole added runs, so a key over several lines is seen) go through the secret scan.

export interface CommitSecret {
  /** Short hash. */
  commit: string;
  /** Its subject, masked. */
  subject: string;
  /** The file the commit adds the secret to, or `the commit message`. */
  path: string;
  /** Its line in the file as that commit left it (or in the message). */
  line: number;
  kind: string;
  what: string;
}

/** A commit's message and added lines, as `git log -p` prints them between NUL-marked headers. */
interface Added {
  commit: string;
  subject: string;
  message: string;
  files: Map<string, { lines: string[]; numbers: number[] }>;
}

// Each commit starts with this in the log (a NUL cannot be in a message or a text diff).
const HEADER = "\0rkb-commit\0";
const FORMAT = "--format=%x00rkb-commit%x00%h%x00%B%x00";

function* commitsOf(log: string): Generator<Added> {
  for (const chunk of log.split(HEADER).slice(1)) {
    const [commit = "", message = "", diff = ""] = chunk.split("\0");
    const files = new Map<string, { lines: string[]; numbers: number[] }>();
    let file: { lines: string[]; numbers: number[] } | undefined;
    let next = 0;
    for (const line of diff.split("\n")) {
      if (line.startsWith("+++ ")) {
        const path = line
          .slice(4)
          .replace(/^"(.*)"$/, "$1")
          .replace(/^b\//, "");
        file = path === "/dev/null" ? undefined : (files.get(path) ?? { lines: [], numbers: [] });
        if (file) files.set(path, file);
      } else if (line.startsWith("@@ ")) next = Number(/\+(\d+)/.exec(line)?.[1] ?? 0);
      else if (line.startsWith("+") && file) {
        file.lines.push(line.slice(1));
        file.numbers.push(next++);
      } else if (line.startsWith("diff --git ")) file = undefined;
    }
    yield { commit, subject: message.split("\n")[0] ?? "", message, files };
  }
}

/** The secrets in the commits of `range` (a `git log` range, e.g. `FETCH_HEAD..HEAD`), oldest commit first. */
export function secretsInCommits(root: string, range: string, env: NodeJS.ProcessEnv, allow: string[] = []): CommitSecret[] {
  const log = git(root, ["log", "--reverse", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames", FORMAT, range], { env });
  if (!log.ok) throw new RkbError("git", `reading the commits to push failed: ${gitReason(log)}`, `check the repository with \`git -C ${root} log ${range}\``);
  const found: CommitSecret[] = [];
  for (const c of commitsOf(log.stdout)) {
    const subject = maskSecrets(c.subject);
    for (const leak of secretLeaks(c.message, allow))
      found.push({ commit: c.commit, subject, path: "the commit message", line: leak.line, kind: leak.secret!.kind, what: leak.secret!.what });
    for (const [path, added] of c.files) {
      for (const leak of secretLeaks(added.lines.join("\n"), allow))
        found.push({ commit: c.commit, subject, path, line: added.numbers[leak.line - 1] ?? leak.line, kind: leak.secret!.kind, what: leak.secret!.what });
    }
  }
  return found;
}

/** Refuses a push whose commits hold a secret: which commit, where, and how to rewrite them; nothing is pushed. */
export function refuseSecretsInCommits(root: string, range: string, base: string | undefined, env: NodeJS.ProcessEnv, allow: string[] = []): void {
  const secrets = secretsInCommits(root, range, env, allow);
  if (!secrets.length) return;
  const first = secrets[0]!;
  const more = secrets.length > 1 ? ` (and ${secrets.length - 1} more)` : "";
  throw new RkbError(
    "refused",
    `commit ${first.commit} ("${first.subject}") adds ${first.what} (${first.kind}) in ${first.path}, line ${first.line}${more}; the remote would keep it in its history even though a later commit removes it, so nothing was pushed`,
    `rewrite the commits not pushed yet so that none holds it: \`git -C ${root} rebase -i ${base ?? "--root"}\`, mark ${first.commit} \`edit\` (take the secret out, \`git commit --amend\`, \`git rebase --continue\`) or squash it into the commit that removed it; rotate the secret if it was real; then \`rkb sync\` again`,
    { secrets },
  );
}
