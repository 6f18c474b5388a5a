import { existsSync } from "node:fs";
import { defineCommand } from "./_shared.ts";
import { agentDir, HARNESSES, install, thisBinary, uninstall, type Harness, type InstallReport } from "../install/index.ts";
import { RkbError, usageError } from "../base/errors.ts";
import { tildify } from "../machine/settings.ts";

export default defineCommand({
  name: "install",
  description:
    "Install (or remove) rkb for an agent: the extension and skill for pi or omp, the plugin for Claude Code, the MCP server, hooks and skill for Codex CLI, Gemini CLI or opencode",
  examples: ["rkb install pi", "rkb install claude", "rkb install codex", "rkb install gemini", "rkb install opencode --uninstall"],
  input: (Type) =>
    Type.Object(
      {
        harness: Type.Optional(Type.String({ description: "pi, omp, claude, codex, gemini or opencode (default: each one found in your home folder)" })),
        uninstall: Type.Optional(Type.Boolean({ description: "Remove what rkb installed (its files, its entries in the agent's settings), and nothing else" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["harness"] },
  run: (input, ctx) => {
    const named = input.harness as string | undefined;
    if (named !== undefined && !(HARNESSES as readonly string[]).includes(named)) {
      throw usageError(`\`${named}\` is not a harness rkb installs into`, `use one of ${HARNESSES.join(", ")}`);
    }
    const harnesses: Harness[] = named ? [named as Harness] : HARNESSES.filter((h) => existsSync(agentDir(h, ctx.env)));
    if (!harnesses.length) {
      const looked = HARNESSES.map((h) => tildify(agentDir(h, ctx.env))).join(", ");
      throw usageError(`found none of ${looked}`, `name the harness: \`rkb install ${HARNESSES.join("` or `rkb install ")}\``);
    }
    let reports: InstallReport[];
    if (input.uninstall) reports = harnesses.map((h) => uninstall(h, ctx.env));
    else {
      const bin = thisBinary();
      if (!bin)
        throw new RkbError(
          "refused",
          "rkb runs from source, so there is no binary for the extension to call",
          "build it (`bun run build`) and run `dist/rkb install` instead",
        );
      reports = harnesses.map((h) => install(h, bin, ctx.env));
    }
    const changed = reports.some((r) => r.files.some((f) => f.action === "written" || f.action === "removed"));
    // A harness that is not set up here (its report has a note saying so) is not running: it loads
    // rkb when it first starts, so there is nothing to restart or reload.
    const absent = reports.filter((r) => r.note).map((r) => r.harness);
    const running = harnesses.filter((h) => !absent.includes(h));
    const help = input.uninstall
      ? ["Files and settings rkb did not write were left alone"]
      : changed
        ? [
            ...(running.length ? [`Restart ${running.map(harnessName).join(" and ")}${reloadHint(running)} to load rkb`] : []),
            ...(absent.length ? [loadsWhenStarted(absent)] : []),
            ...harnesses.flatMap((h) => NOTES[h] ?? []),
          ]
        : ["Already installed and current"];
    const shown = (f: InstallReport["files"][number]) => `${tildify(f.path)}${f.entry ? ` (${f.entry})` : ""}`;
    const human = [
      ...reports.flatMap((r) => [`${r.harness}:`, ...r.files.map((f) => `  ${f.action.padEnd(9)} ${shown(f)}`), ...(r.note ? [`  note: ${r.note}`] : [])]),
      ...help,
    ].join("\n");
    return { data: { installs: reports.map((r) => ({ ...r, files: r.files.map((f) => ({ ...f, path: tildify(f.path) })) })), help }, human };
  },
});

const NAMES: Record<string, string> = { claude: "Claude Code", codex: "Codex", gemini: "Gemini CLI" };
const harnessName = (h: string) => NAMES[h] ?? h;

const loadsWhenStarted = (harnesses: string[]) =>
  `${harnesses.map(harnessName).join(" and ")} ${harnesses.length === 1 ? "loads rkb when it first starts" : "load rkb when they first start"}`;

/** What a user must do besides restarting. */
const NOTES: Record<string, string[]> = {
  codex: ["Codex runs rkb's hooks once you trust them: it asks at its next start (or see /hooks); `codex exec` skips untrusted hooks"],
};

/**
 * How a harness reloads rkb without a restart: /reload in pi, /reload-plugins in Claude Code; omp
 * (18.2) has no command that reloads extensions.
 */
const RELOAD: Record<string, string | undefined> = { pi: "/reload", claude: "/reload-plugins" };

function reloadHint(harnesses: string[]): string {
  const reloadable = harnesses.filter((h) => RELOAD[h]);
  if (!reloadable.length) return "";
  if (harnesses.length === 1) return ` (or run ${RELOAD[harnesses[0]!]})`;
  return ` (or run ${reloadable.map((h) => `${RELOAD[h]} in ${harnessName(h)}`).join(", ")})`;
}
