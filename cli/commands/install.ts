import { existsSync } from "node:fs";
import { defineCommand } from "./_shared.ts";
import { agentDir, HARNESSES, install, thisBinary, uninstall, type Harness, type InstallReport } from "../install/index.ts";
import { RkbError, usageError } from "../base/errors.ts";
import { tildify } from "../machine/settings.ts";

export default defineCommand({
  name: "install",
  description: "Install (or remove) the rkb extension and skill for pi or omp, or the rkb plugin for Claude Code",
  examples: ["rkb install pi", "rkb install omp", "rkb install claude", "rkb install pi --uninstall"],
  input: (Type) =>
    Type.Object(
      {
        harness: Type.Optional(Type.String({ description: "pi, omp or claude (default: each one found in your home folder)" })),
        uninstall: Type.Optional(Type.Boolean({ description: "Remove the files rkb installed, and nothing else" })),
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
      throw usageError("found none of ~/.pi, ~/.omp, ~/.claude", `name the harness: \`rkb install ${HARNESSES.join("` or `rkb install ")}\``);
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
    const help = input.uninstall
      ? ["Files rkb did not write were left alone"]
      : changed
        ? [`Restart ${harnesses.map(harnessName).join(" and ")}${reloadHint(harnesses)} to load rkb`]
        : ["Already installed and current"];
    const human = [
      ...reports.flatMap((r) => [
        `${r.harness}:`,
        ...r.files.map((f) => `  ${f.action.padEnd(9)} ${tildify(f.path)}`),
        ...(r.note ? [`  note: ${r.note}`] : []),
      ]),
      ...help,
    ].join("\n");
    return { data: { installs: reports.map((r) => ({ ...r, files: r.files.map((f) => ({ ...f, path: tildify(f.path) })) })), help }, human };
  },
});

const harnessName = (h: string) => (h === "claude" ? "Claude Code" : h);

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
