import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { loadKbConfig } from "../lesson/config.ts";
import { git, gitIdentity, stoppedOperation } from "../base/git.ts";
import { PRE_COMMIT_HOOK } from "../write/init.ts";
import { lintKb } from "../lint/lint.ts";
import { RkbError } from "../base/errors.ts";
import { resolvePlace, type Place } from "../place/place.ts";
import { loadKb } from "../kb/store.ts";
import { unwritableFolder } from "../lesson/layout.ts";
import { lockPath } from "../write/entry.ts";
import { gitLock } from "../write/git-index.ts";
import { describeHolder, staleReason } from "../base/lock.ts";
import type { PlaceOptions } from "../place/place.ts";
import { claudePluginDir } from "../install/claude.ts";
import { installedPaths } from "../install/index.ts";
import { PROGRAMS, programInstalled } from "../install/programs.ts";
import { age } from "../inbox/inbox.ts";
import { distilledSince, hookCalls, hookErrorsSince } from "../machine/state.ts";
import { counted } from "../output/words.ts";

// Health checks of the machine and the knowledge base, each with the fix to apply.

export interface Check {
  check: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix: string;
}

const ok = (check: string, detail: string): Check => ({ check, status: "ok", detail, fix: "" });

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

export function kbChecks(root: string, env: NodeJS.ProcessEnv, cwd: string, place: PlaceOptions): Check[] {
  const checks: Check[] = [];
  const gitVersion = git(cwd, ["--version"], { env });
  checks.push(
    gitVersion.ok
      ? ok("git", gitVersion.stdout.trim())
      : { check: "git", status: "fail", detail: "git is not installed", fix: "install git (e.g. `apt-get install git`)" },
  );
  const rkb = onPath("rkb", env);
  checks.push(
    rkb
      ? ok("rkb on PATH", rkb)
      : {
          check: "rkb on PATH",
          status: "warn",
          detail: "rkb is not on PATH; the pre-commit hook needs it",
          fix: "put the rkb binary in a folder on PATH, e.g. ~/.local/bin",
        },
  );
  // Before the knowledge base: `rkb init` and every write need it, so a new machine hears of it first.
  checks.push(identityCheck(existsSync(root) && statSync(root).isDirectory() ? root : cwd, env));
  if (!existsSync(join(root, "kb.toml")) || !existsSync(join(root, ".git"))) {
    const isFile = existsSync(root) && !statSync(root).isDirectory();
    checks.push({
      check: "knowledge base",
      status: "fail",
      detail: isFile ? `${root} is a file, not a folder` : `no knowledge base at ${root}`,
      fix: isFile
        ? "set RKB_HOME to the folder of your knowledge base, or to a new folder for `rkb init`"
        : "run `rkb init`, `rkb init --clone <url>`, or set RKB_HOME",
    });
    return checks;
  }
  checks.push(ok("knowledge base", root));
  const blocked = unwritableFolder(root);
  checks.push(
    blocked
      ? {
          check: "writable",
          status: "fail",
          detail: `rkb cannot write to ${blocked.folder} (${blocked.why}), so every write fails`,
          fix: `give your user access (\`chmod -R u+rwX ${root}\`, or \`chown -R\` it if another user made it), or set RKB_HOME to a knowledge base you own`,
        }
      : ok("writable", "this user can write the knowledge base and its git folders"),
  );
  try {
    loadKbConfig(root);
    checks.push(ok("kb.toml", "valid"));
  } catch (e) {
    checks.push({ check: "kb.toml", status: "fail", detail: (e as Error).message, fix: "fix kb.toml; `rkb init` shows the default layout" });
  }
  const hook = join(root, ".git", "hooks", "pre-commit");
  const hookOk = existsSync(hook) && readFileSync(hook, "utf8").includes("rkb lint --staged");
  checks.push(
    hookOk
      ? ok("pre-commit hook", "runs rkb lint --staged")
      : {
          check: "pre-commit hook",
          status: "warn",
          detail: "lessons committed by hand are not linted",
          fix: `printf '%s' '${PRE_COMMIT_HOOK.replace(/'/g, "'\\''")}' > ${hook} && chmod +x ${hook}`,
        },
  );
  const deny = git(root, ["config", "receive.denyCurrentBranch"], { env }).stdout.trim();
  checks.push(
    deny === "updateInstead"
      ? ok("push to this clone", "updateInstead")
      : {
          check: "push to this clone",
          status: "warn",
          detail: "other clones cannot push to this one",
          fix: `git -C ${root} config receive.denyCurrentBranch updateInstead`,
        },
  );
  const findings = lintKb(root, { env });
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.length - errors;
  checks.push(
    errors
      ? { check: "lint", status: "fail", detail: `${counted(errors, "error")}, ${counted(warnings, "warning")}`, fix: "run `rkb lint` and fix the errors" }
      : ok("lint", `0 errors, ${counted(warnings, "warning")}`),
  );
  const dirty = git(root, ["status", "--porcelain"], { env }).stdout.split("\n").filter(Boolean).length;
  const stopped = stoppedOperation(root);
  checks.push(
    stopped
      ? {
          check: "git operation",
          status: "fail",
          detail: `${stopped.what} stopped half-way in the knowledge base${dirty ? ` (${counted(dirty, "file")} not committed)` : ""}; rkb refuses to write until it is finished`,
          fix: stopped.finish,
        }
      : dirty
        ? {
            check: "uncommitted changes",
            status: "warn",
            detail: counted(dirty, "file"),
            fix: `review them with \`git -C ${root} status\` and commit or discard`,
          }
        : ok("uncommitted changes", "none"),
  );
  checks.push(writeLockCheck(root), gitLockCheck(root));
  checks.push(placeCheck(root, env, cwd, place));
  return checks;
}

/** Where rkb runs, or why the place it is told cannot be (a --project or RKB_PROJECT that is no folder name). */
function placeCheck(root: string, env: NodeJS.ProcessEnv, cwd: string, place: PlaceOptions): Check {
  let where: Place;
  try {
    where = resolvePlace({ root, kb: loadKb(root), cwd, env, options: place });
  } catch (e) {
    if (!(e instanceof RkbError)) throw e;
    return { check: "place", status: "fail", detail: e.message, fix: e.fix };
  }
  const named = (m: { name: string; rule: string } | undefined) => (m ? `${m.name} (${m.rule})` : "none");
  return ok("place", `project ${named(where.project)}, system ${named(where.system)}`);
}

/** Whether git can commit here: a name and an e-mail, from its config or the environment. */
function identityCheck(cwd: string, env: NodeJS.ProcessEnv): Check {
  const name = gitIdentity(cwd, env);
  return name
    ? ok("git identity", name)
    : {
        check: "git identity",
        status: "fail",
        detail: "git has no user name or email, so rkb cannot commit",
        fix: 'git config --global user.name "Your Name" && git config --global user.email you@example.com',
      };
}

const HOOK_ERROR_DAYS = 7;
const DISTILLED_DAYS = 30;

/**
 * What the per-machine state says about the wiring: the last hook call of each harness (an
 * installed extension that never called one does not load), recent hook errors (hooks fail
 * silently in front of the agent, so this is where they show), and what distilling led to.
 */
export function stateChecks(env: NodeJS.ProcessEnv, now = Math.floor(Date.now() / 1000)): Check[] {
  const calls = hookCalls(env);
  const lastCall = calls.map((c) => `${c.harness} ${age(now - c.time)} ago (${c.event})`).join(", ");
  // The install name of each harness, and the name its hooks report (Claude Code's is claude-code).
  const installed = [
    ...(["pi", "omp"] as const).filter((h) => existsSync(installedPaths(h, env).extension)),
    ...(existsSync(claudePluginDir(env.HOME || homedir())) ? ["claude-code"] : []),
    ...PROGRAMS.filter((p) => programInstalled(p, env, env.HOME || homedir())),
  ];
  const silent = installed.filter((h) => !calls.some((c) => c.harness === h));
  const checks: Check[] = [
    silent.length
      ? {
          check: "last hook call",
          status: "warn",
          detail: `${[lastCall, ...silent.map((h) => `${h} none yet`)].filter(Boolean).join(", ")}`,
          fix: `start ${silent.join(" or ")} once; if this stays, its log says why the rkb extension does not load`,
        }
      : ok("last hook call", lastCall || "none yet"),
  ];
  const errors = hookErrorsSince(env, now - HOOK_ERROR_DAYS * 86400);
  checks.push(
    errors.length
      ? {
          check: "hook errors",
          status: "warn",
          detail: `${errors.length} in the last ${HOOK_ERROR_DAYS} days; ${errors
            .slice(0, 3)
            .map((e) => `${age(now - e.time)} ago ${e.event}${e.harness ? ` (${e.harness})` : ""}: ${e.error}`)
            .join("; ")}`,
          fix: "the agent saw nothing, but the hook did not do its work; if the message points at rkb itself, report it",
        }
      : ok("hook errors", `none in the last ${HOOK_ERROR_DAYS} days`),
  );
  const distilled = distilledSince(env, now - DISTILLED_DAYS * 86400);
  const items = new Set(distilled.map((d) => d.item)).size;
  const ops = new Map<string, number>();
  for (const d of distilled) ops.set(d.op, (ops.get(d.op) ?? 0) + 1);
  const led = [...ops].map(([op, n]) => `${n} ${op}`).join(", ");
  checks.push(
    ok("distilled", items ? `${counted(items, "inbox item")} in the last ${DISTILLED_DAYS} days: ${led}` : `none in the last ${DISTILLED_DAYS} days`),
  );
  return checks;
}

function writeLockCheck(root: string): Check {
  const lock = lockPath(root);
  if (!existsSync(lock)) return ok("write lock", "free");
  const stale = staleReason(lock, loadKbConfig(root).lock.staleMs);
  if (stale)
    return { check: "write lock", status: "warn", detail: `stale: ${stale}`, fix: `nothing to do: the next write removes it (or remove it now: rm ${lock})` };
  return { check: "write lock", status: "ok", detail: `held by ${describeHolder(lock)}`, fix: "" };
}

function gitLockCheck(root: string): Check {
  const lock = gitLock(root);
  if (!lock) return ok("git locks", "free");
  const held = `${Math.round(lock.ageMs / 1000)} s`;
  if (lock.stale)
    return {
      check: "git locks",
      status: "fail",
      detail: `${lock.path} is left over from a git process that is gone (${held} old); every write fails until it is removed`,
      fix: `rm ${lock.path}`,
    };
  return {
    check: "git locks",
    status: "warn",
    detail: `a git command is working in the knowledge base (${held})`,
    fix: "wait for it to finish; run `rkb doctor` again if it stays",
  };
}
