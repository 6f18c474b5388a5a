import { existsSync, readdirSync, statSync } from "node:fs";
import { initKb, cloneKb } from "../kb/init.ts";
import { kbRoot } from "../settings.ts";
import { RkbError } from "../output/errors.ts";
import { Type } from "typebox";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "init",
  description: "Create a knowledge base at $RKB_HOME (a git repository), or clone an existing one",
  examples: ["RKB_HOME=~/Personal/kb rkb init", "rkb init --clone git@example.com:me/kb.git"],
  input: Type.Object(
    {
      clone: Type.Optional(Type.String({ description: "Clone this git URL or path instead of creating a new one" })),
    },
    { additionalProperties: false },
  ),
  cli: { flags: { clone: { valueHint: "url" } } },
  run(input, ctx) {
    const root = kbRoot(ctx.env);
    if (existsSync(root) && !statSync(root).isDirectory()) {
      throw new RkbError("exists", `${root} is a file, not a folder`, "set RKB_HOME to a new folder");
    }
    if (existsSync(root) && readdirSync(root).length > 0) {
      throw new RkbError("exists", `${root} already exists and is not empty`, "set RKB_HOME to a new folder, or use the knowledge base that is there");
    }
    if (input.clone) {
      cloneKb(root, input.clone, ctx.env, ctx.cwd);
      return {
        data: { status: "done", message: `cloned ${input.clone} to ${root}`, kb: root },
        human: `cloned ${input.clone} to ${root}\nNext: rkb sync keeps it in step with the remote`,
      };
    }
    const commit = initKb(root, ctx.env);
    return {
      data: { status: "done", message: `created a knowledge base at ${root}`, kb: root, commit },
      human: `created a knowledge base at ${root} (commit ${commit})\nNext: rkb add --template pitfall`,
    };
  },
});
