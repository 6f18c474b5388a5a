import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { initKb, cloneKb } from "../write/init.ts";
import { kbRoot } from "../machine/settings.ts";
import { RkbError } from "../base/errors.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "init",
  description: "Create a knowledge base at $RKB_HOME (a git repository), or clone an existing one",
  examples: ["RKB_HOME=~/Personal/kb rkb init", "rkb init --clone git@example.com:me/kb.git"],
  input: (Type) =>
    Type.Object(
      {
        clone: Type.Optional(Type.String({ description: "Clone this git URL or path instead of creating a new one" })),
      },
      { additionalProperties: false },
    ),
  cli: { flags: { clone: { valueHint: "url" } } },
  run(input, ctx) {
    const root = kbRoot(ctx.env);
    // RKB_HOME=kb names a folder under the current one: from any other folder it names another.
    const given = ctx.env.RKB_HOME;
    const relative =
      given && !isAbsolute(given) && !given.startsWith("~")
        ? [`note: RKB_HOME=${given} is relative; set RKB_HOME=${root} so every folder finds this knowledge base`]
        : [];
    if (existsSync(root) && !statSync(root).isDirectory()) {
      throw new RkbError("exists", `${root} is a file, not a folder`, "set RKB_HOME to a new folder");
    }
    if (existsSync(root) && readdirSync(root).length > 0) {
      // Refused before anything is written: the folder stays as it was.
      if (existsSync(join(root, "kb.toml")) && existsSync(join(root, ".git")))
        throw new RkbError("exists", `${root} is already a knowledge base`, "use it as it is (`rkb` shows what it holds), or set RKB_HOME to a new folder");
      throw new RkbError(
        "exists",
        `${root} already exists and is not empty (and is no knowledge base: it has no kb.toml and .git); rkb left it as it was`,
        "set RKB_HOME to a new or empty folder, or move the files out of this one",
      );
    }
    if (input.clone) {
      const { created } = cloneKb(root, input.clone, ctx.env, ctx.cwd);
      const message = created
        ? `${input.clone} was empty: made a new knowledge base in ${root} (commit ${created}) and pushed it there`
        : `cloned ${input.clone} to ${root}`;
      return {
        data: { status: "done", message, kb: root, ...(created ? { commit: created } : {}), notes: relative },
        human: [
          message,
          ...relative,
          `Next: ${created ? "others run `rkb init --clone` with the same URL; " : ""}rkb sync keeps it in step with the remote`,
        ].join("\n"),
      };
    }
    const commit = initKb(root, ctx.env);
    return {
      data: { status: "done", message: `created a knowledge base at ${root}`, kb: root, commit, notes: relative },
      human: [`created a knowledge base at ${root} (commit ${commit})`, ...relative, "Next: rkb add --template pitfall"].join("\n"),
    };
  },
});
