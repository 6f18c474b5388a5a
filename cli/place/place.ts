import { basename } from "node:path";
import { usageError } from "../base/errors.ts";
import { folderNameLike, isFolderName, MAX_FOLDER_NAME } from "../base/folder-name.ts";
import { wildcardMatches } from "../base/glob.ts";
import { checkouts, hostFromEnv, projectFromEnv, systemFromEnv } from "../machine/settings.ts";
import { git } from "../base/git.ts";
import { currentBranch, findRepo, remotes as repoRemotes, type Repo } from "./repo.ts";
import type { Kb } from "../kb/store.ts";

// Where rkb runs: which project (by flag, env, git remote, root commit, recorded checkout or folder
// name) and which system (by flag, env, match_env or hostname glob), and the facts `when` is checked against.

export interface Matched {
  name: string;
  rule: string;
}

export interface Place {
  project?: Matched;
  system?: Matched;
  facts: Record<string, string>;
  /** Whether a commit is an ancestor of HEAD in the current checkout (undefined: cannot tell). */
  isAncestor: (commit: string) => boolean | undefined;
  /** The git work tree around cwd, if any. */
  repo?: string;
}

/** What the caller says about the place: --project, --system and --with facts (RKB_PROJECT and RKB_SYSTEM are read here, when no flag names one). */
export interface PlaceOptions {
  project?: string;
  system?: string;
  with: Record<string, string>;
}

export interface PlaceInput {
  root: string;
  kb: Kb;
  cwd: string;
  env: NodeJS.ProcessEnv;
  options: PlaceOptions;
}

/** `git@github.com:Org/Repo.git`, `https://user@host:443/org/repo/` → `github.com/Org/Repo`. */
function normalizeRemote(url: string): string {
  let u = url.trim();
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.*)$/.exec(u);
  if (scp && !/^[a-z]+:\/\//i.test(u)) u = `${scp[1]}/${scp[2]}`;
  else u = u.replace(/^[a-z+]+:\/\//i, "").replace(/^[^@/]+@/, "");
  const slash = u.indexOf("/");
  let host = slash < 0 ? u : u.slice(0, slash);
  const path = slash < 0 ? "" : u.slice(slash + 1);
  host = host.replace(/:\d+$/, "").toLowerCase();
  return `${host}/${path}`
    .replace(/\.git$/, "")
    .replace(/\/+$/, "")
    .replace(/\/{2,}/g, "/");
}

/**
 * The project or system the caller names (the flag, else the environment variable), on every path
 * alike: the command line, a tool call, the MCP server, a hook. It names a folder under projects/ or
 * systems/, so it must be a folder name by the layout's rule.
 */
function namedPlace(kind: "project" | "system", flag: string | undefined, env: NodeJS.ProcessEnv): Matched | undefined {
  const variable = kind === "project" ? "RKB_PROJECT" : "RKB_SYSTEM";
  const name = flag || (kind === "project" ? projectFromEnv(env) : systemFromEnv(env));
  if (!name) return undefined;
  const rule = flag ? "flag" : "env";
  if (!isFolderName(name)) {
    const like = folderNameLike(name) || `my-${kind}`;
    const where = rule === "flag" ? `--${kind}` : variable;
    throw usageError(
      `${where} \`${name}\` is not a ${kind}'s folder name (${kind === "project" ? "projects" : "systems"}/<name>)`,
      `a ${kind} is named by its folder: lowercase letters, digits and single dashes, at most ${MAX_FOLDER_NAME} characters, e.g. ${rule === "flag" ? `--${kind} ${like}` : `${variable}=${like}`}`,
    );
  }
  return { name, rule };
}

function matchProject(input: PlaceInput, repo: Repo | undefined): Matched | undefined {
  const { kb, env, options } = input;
  const named = namedPlace("project", options.project, env);
  if (named) return named;
  const projectNotes = kb.notes.filter((n) => n.role === "project");
  if (!repo) return undefined;
  const remotes = repoRemotes(repo).sort((a, b) => (a.name === "origin" ? -1 : b.name === "origin" ? 1 : 0));
  for (const { url } of remotes) {
    const normalized = normalizeRemote(url);
    const owners = projectNotes.filter((n) => n.remotes.some((r) => normalizeRemote(r) === normalized));
    if (owners.length === 1) return { name: owners[0]!.folder.split("/")[1]!, rule: `remote ${normalized}` };
  }
  // Only ask git for the root commit when some project note could match it.
  if (projectNotes.some((n) => n.rootCommit)) {
    const roots = git(repo.top, ["rev-list", "--max-parents=0", "HEAD"], { env }).stdout.split("\n").filter(Boolean);
    const owners = roots.length === 1 ? projectNotes.filter((n) => n.rootCommit && roots[0]!.startsWith(n.rootCommit)) : [];
    if (owners.length === 1) return { name: owners[0]!.folder.split("/")[1]!, rule: "root commit" };
  }
  const checkout = matchCheckout(repo.top, env);
  if (checkout) return checkout;
  const folder = basename(repo.top);
  if (kb.files.some((f) => f.startsWith(`projects/${folder}/`))) return { name: folder, rule: `folder ${folder}` };
  return undefined;
}

/** The one project whose recorded checkouts (settings.ts `checkouts`) hold the repository. */
function matchCheckout(repo: string, env: NodeJS.ProcessEnv): Matched | undefined {
  const owners = [...checkouts(env)].filter(([, paths]) => paths.some((p) => repo === p || repo.startsWith(p + "/")));
  return owners.length === 1 ? { name: owners[0]![0], rule: `checkout ${repo}` } : undefined;
}

function matchSystem(input: PlaceInput): Matched | undefined {
  const { kb, env, options } = input;
  const named = namedPlace("system", options.system, env);
  if (named) return named;
  const systems = kb.notes.filter((n) => n.role === "system").sort((a, b) => a.folder.localeCompare(b.folder));
  for (const note of systems) {
    const entries = Object.entries(note.matchEnv);
    if (entries.length && entries.every(([k, v]) => env[k] === v))
      return { name: note.folder.split("/")[1]!, rule: `env ${entries.map(([k]) => k).join(",")}` };
  }
  if (!systems.some((n) => n.hostname.length)) return undefined;
  const host = hostFromEnv(env);
  const short = host.split(".")[0]!;
  for (const note of systems) {
    const glob = note.hostname.find((g) => wildcardMatches(g, host) || wildcardMatches(g, short));
    if (glob) return { name: note.folder.split("/")[1]!, rule: `hostname ${glob}` };
  }
  return undefined;
}

export function resolvePlace(input: PlaceInput): Place {
  const repo = findRepo(input.cwd);
  const project = matchProject(input, repo);
  const system = matchSystem(input);
  const facts: Record<string, string> = {};
  if (system) Object.assign(facts, input.kb.notes.find((n) => n.folder === `systems/${system.name}`)?.facts ?? {});
  if (system) facts.system = system.name;
  if (project) facts.project = project.name;
  facts.os = process.platform === "darwin" ? "macos" : process.platform === "win32" ? "windows" : process.platform;
  const branch = repo && currentBranch(repo);
  if (branch) facts.branch = branch;
  Object.assign(facts, input.options.with);
  const isAncestor = (commit: string): boolean | undefined => {
    if (!repo) return undefined;
    if (!git(repo.top, ["cat-file", "-e", `${commit}^{commit}`], { env: input.env }).ok) return undefined;
    return git(repo.top, ["merge-base", "--is-ancestor", commit, "HEAD"], { env: input.env }).ok;
  };
  return { project, system, facts, isAncestor, repo: repo?.top };
}
