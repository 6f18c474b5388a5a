import { counted } from "../output/words.ts";
import { syncKb } from "../write/sync.ts";
import { findingLine } from "../output/findings.ts";
import { kbRoot } from "../machine/settings.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "sync",
  description: "Pull the knowledge base with rebase, lint it, and push when lint is clean and no commit to push holds a secret",
  examples: ["rkb sync", "rkb sync --remote team"],
  input: (Type) =>
    Type.Object(
      {
        remote: Type.Optional(Type.String({ description: "The git remote (default: the branch's upstream, else origin)" })),
      },
      { additionalProperties: false },
    ),
  async run(input, ctx) {
    const result = await syncKb(kbRoot(ctx.env), ctx.env, input.remote);
    if (result.status === "not_pushed") {
      const lines = [
        `pulled ${counted(result.pulled.length, "commit")} from ${result.remote}/${result.branch}, but lint found ${counted(result.errors, "error")}, so nothing was pushed:`,
      ];
      for (const f of result.findings.filter((f) => f.severity === "error")) lines.push(`  ${findingLine(f)}`);
      lines.push("fix them, commit, and run `rkb sync` again");
      return { data: result, human: lines.join("\n"), exit: 1 };
    }
    const human =
      result.pulled.length || result.pushed.length
        ? `pulled ${counted(result.pulled.length, "commit")} and pushed ${counted(result.pushed.length, "commit")} (${result.remote}/${result.branch})`
        : `up to date with ${result.remote}/${result.branch}`;
    return { data: result, human };
  },
});
