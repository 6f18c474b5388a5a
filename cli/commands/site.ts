import { resolve } from "node:path";
import { loadKbConfig } from "../lesson/config.ts";
import { requireReadableKb } from "../lesson/layout.ts";
import { usageError } from "../base/errors.ts";
import { kbRoot, tildify } from "../machine/settings.ts";
import { counted } from "../output/words.ts";
import { defineCommand } from "./_shared.ts";

// `rkb site build --out DIR [--sink NAME]`: the viewer's pages as a static site holding only what
// the sink allows. The site modules (and markdown-it) load when the command runs.
export default defineCommand({
  name: "site",
  description: "Build the pages of the knowledge base as a static site, holding only the lessons a kb.toml sink allows",
  examples: ["rkb site build --out ./public", "rkb site build --out ./internal --sink web-protected"],
  input: (Type) =>
    Type.Object(
      {
        action: Type.String({ description: "build" }),
        out: Type.Optional(Type.String({ description: "The folder to write (new, empty, or built by rkb before: it is emptied first)" })),
        sink: Type.Optional(Type.String({ description: "The kb.toml [sinks.<name>] that decides which lessons go in (default web)" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["action"], flags: { out: { valueHint: "DIR" }, sink: { valueHint: "NAME" } } },
  async run(input, ctx) {
    if (input.action !== "build") throw usageError(`\`rkb site ${input.action}\` is not a site command`, "write `rkb site build --out <folder> [--sink web]`");
    if (!input.out) throw usageError("`rkb site build` needs --out", "e.g. rkb site build --out ./public");
    const root = kbRoot(ctx.env);
    requireReadableKb(root);
    const sink = input.sink ?? "web";
    const [{ sinkAudience }, { loadSiteModel }, { buildSite }] = await Promise.all([
      import("../site/sink.ts"),
      import("../site/model.ts"),
      import("../site/build.ts"),
    ]);
    const audience = sinkAudience(loadKbConfig(root), sink);
    const model = loadSiteModel(root, ctx.env, audience);
    const built = buildSite(model, root, resolve(ctx.cwd, input.out));
    const data = { out: built.out, sink, lessons: model.lessons.length, files: built.files, bytes: built.bytes };
    const human = `wrote ${counted(built.files, "file")} (${counted(model.lessons.length, "lesson")} allowed by [sinks.${sink}]) to ${tildify(built.out)}\n`;
    return { data, human };
  },
});
