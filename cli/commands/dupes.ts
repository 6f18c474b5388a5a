import { counted } from "../output/words.ts";
import { loadKbConfig } from "../lesson/config.ts";
import { requireReadableKb } from "../lesson/layout.ts";
import { kbRoot } from "../machine/settings.ts";
import { searchIndexSimilarity } from "../search/similarity.ts";
import { loadIndex } from "../kb/index.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "dupes",
  description: "Pairs of lessons that say much the same thing, most similar first",
  examples: ["rkb dupes", "rkb dupes --min-similarity 0.6 --toon"],
  input: (Type) =>
    Type.Object(
      {
        min_similarity: Type.Optional(
          Type.Number({ minimum: 0, maximum: 1, description: "Lowest similarity to list (0..1; default kb.toml [dupes] min_similarity, else 0.4)" }),
        ),
      },
      { additionalProperties: false },
    ),
  run(input, ctx) {
    // From the cached search index: no lesson is read when nothing changed since the last search.
    const root = kbRoot(ctx.env);
    requireReadableKb(root);
    const min = input.min_similarity ?? loadKbConfig(root).dupesMinSimilarity;
    const pairs = searchIndexSimilarity(loadIndex(root, ctx.env))
      .pairs(min)
      .map((p) => ({
        similarity: p.similarity,
        a: { id: p.a.id, title: p.a.title, path: p.a.path },
        b: { id: p.b.id, title: p.b.title, path: p.b.path },
      }));
    const help = ["rkb show <id>", "merge: rkb edit <keeper> --base <hash>, then rkb supersede <other> --by <keeper> --reason <why>"];
    const human = pairs.length
      ? [
          ...pairs.map((p) => `${p.similarity.toFixed(2)}  ${p.a.id} ${p.a.title}  (${p.a.path})\n      ${p.b.id} ${p.b.title}  (${p.b.path})`),
          `${counted(pairs.length, "pair")} at ${min.toFixed(2)} or more`,
          `Next: ${help[1]}`,
        ].join("\n")
      : `No likely duplicates at ${min.toFixed(2)} or more.`;
    return { data: { min_similarity: min, pairs, help }, human };
  },
});
