import { existsSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { defineCommand } from "./_shared.ts";
import { requireReadableKb } from "../lesson/layout.ts";
import type { Finding } from "../lesson/finding.ts";
import { fixFlowStyle } from "../lint/fix.ts";
import { lintKb, lintStaged } from "../lint/lint.ts";
import { isUnder } from "../kb/overview.ts";
import { underWriteLock } from "../write/entry.ts";
import { EXIT, RkbError, usageError } from "../base/errors.ts";
import { kbRoot } from "../machine/settings.ts";
import { cutMessage, findingLine } from "../output/findings.ts";
import { counted } from "../output/words.ts";

export default defineCommand({
  name: "lint",
  description: "Check lessons, folder notes, links, assets and kb.toml against the knowledge-base rules",
  examples: [
    "rkb lint",
    "rkb lint --fix            # rewrite flow-style frontmatter to block style first",
    "rkb lint --staged         # what the pre-commit hook runs",
    "rkb lint general/git      # only the findings in one folder (or file)",
  ],
  input: (Type) =>
    Type.Object(
      {
        paths: Type.Optional(
          Type.Array(Type.String(), {
            description:
              "Only report findings in these files or folders (relative to the knowledge base, or absolute); rules that span files still see the whole knowledge base",
          }),
        ),
        staged: Type.Optional(Type.Boolean({ description: "Lint the files staged in git (the pre-commit hook) instead of the working tree" })),
        fix: Type.Optional(Type.Boolean({ description: "Rewrite flow-style frontmatter (`[a, b]`, `{k: v}`) to block style, then lint" })),
        full: Type.Optional(Type.Boolean({ description: "Show long messages whole (they are cut at 200 characters)" })),
      },
      { additionalProperties: false },
    ),
  cli: { variadic: "paths" },
  async run(input, { env, cwd }) {
    if (input.staged && input.fix) {
      throw usageError("`--fix` cannot be used with `--staged`", "run `rkb lint --fix`, `git add` the fixed files, then commit again");
    }
    const root = kbRoot(env);
    requireReadableKb(root);
    const fixed = input.fix ? await fixUnderLock(root, env) : undefined;
    const all = input.staged ? await lintStaged(root, env) : lintKb(root, { env });
    const only = input.paths?.map((p) => kbPath(root, cwd, p));
    const found = only ? all.filter((f) => only.some((p) => isUnder(f.path, p))) : all;
    const findings = input.full ? found : found.map(cutMessage);
    const errors = findings.filter((f) => f.severity === "error").length;
    const warnings = findings.length - errors;
    const help: string[] = [];
    if (!input.fix && findings.some((f) => f.rule === "format/flow-style")) help.push("Run `rkb lint --fix` to rewrite flow-style frontmatter to block style.");
    if (errors) help.push("Fix each error as its message says, then run `rkb lint` again.");
    return {
      data: { errors, warnings, findings, ...(help.length ? { help } : {}), ...(fixed ? { fixed } : {}) },
      human: humanReport(findings, errors, warnings, fixed),
      exit: errors ? EXIT.error : EXIT.ok,
    };
  },
});

/** A path given on the command line as the findings name it: relative to the knowledge base. */
function kbPath(root: string, cwd: string, given: string): string {
  // As typed from where the person stands, else as a path in the knowledge base (`general/git`).
  const fromCwd = resolve(cwd, given);
  const abs = existsSync(fromCwd) && (fromCwd === root || fromCwd.startsWith(`${root}/`)) ? fromCwd : resolve(root, given);
  const rel = relative(root, abs);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw usageError(`${given} is not in the knowledge base ${root}`, "give a file or folder inside it, e.g. `rkb lint general/git`");
  if (!existsSync(abs)) throw new RkbError("not_found", `no file or folder ${rel} in the knowledge base`, "run `rkb list` to see the folders");
  return rel.split(sep).join("/");
}

/** Fixing rewrites lessons, so it enters the lock as every write does; a plain folder (no git) has no writers to wait for. */
async function fixUnderLock(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  if (!existsSync(join(root, ".git"))) return fixFlowStyle(root);
  return underWriteLock(root, env, () => fixFlowStyle(root));
}

function humanReport(findings: Finding[], errors: number, warnings: number, fixed: string[] | undefined): string {
  const lines = (fixed ?? []).map((path) => `${path}  fixed  format/flow-style  rewrote the frontmatter in block style`);
  for (const f of findings) lines.push(findingLine(f));
  lines.push(`${counted(errors, "error")}, ${counted(warnings, "warning")}`);
  return lines.join("\n");
}
