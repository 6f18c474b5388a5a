import type { LessonWrite } from "../plan/changes.ts";
import { loadKbConfig } from "../lesson/config.ts";
import { planLabel } from "../plan/labels.ts";
import { openKb } from "../kb/open.ts";
import { SCOPES } from "../lesson/schema.ts";
import { findLesson } from "../kb/store.ts";
import { transact, type Written, waitsForUser } from "../write/write.ts";
import { usageError } from "../base/errors.ts";
import { needsUserOutput, unchangedOutput, writtenOutput } from "../output/written.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "label",
  description: "Set or remove a label (kb.toml [labels], e.g. sensitivity) on a lesson or a folder; a looser one asks you first",
  examples: ["rkb label 7f3a9c2b41 sensitivity=confidential", "rkb label systems/orion sensitivity=public", "rkb label 7f3a9c2b41 sensitivity --unset"],
  input: (Type) =>
    Type.Object(
      {
        target: Type.String({ description: "Lesson id, or a folder (its README.md folder note holds the label)" }),
        label: Type.String({ description: "key=value, or the key with --unset" }),
        unset: Type.Optional(Type.Boolean({ description: "Remove the label instead of setting it" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["target", "label"] },
  async run(input, ctx) {
    const eq = input.label.indexOf("=");
    if (input.unset ? eq >= 0 : eq <= 0 || eq === input.label.length - 1)
      throw usageError(
        input.unset ? "--unset takes the label's key alone" : `${JSON.stringify(input.label)} is not key=value`,
        `e.g. rkb label ${input.target} sensitivity=internal, or rkb label ${input.target} sensitivity --unset`,
      );
    const [key, value] = input.unset ? [input.label, undefined] : [input.label.slice(0, eq), input.label.slice(eq + 1)];
    const { root } = openKb(ctx, "write");
    const t = input.target;
    const folder = t.includes("/") || (SCOPES as readonly string[]).includes(t);
    const written = await transact(root, ctx, (kb) =>
      planLabel(kb, loadKbConfig(root), folder ? { folder: t } : { lesson: findLesson(kb, t) }, key.trim(), value?.trim()),
    );
    if (waitsForUser(written)) return needsUserOutput(written);
    const r = written.result;
    if ("unchanged" in r) return unchangedOutput(r.id, r.path, r.message);
    return writtenOutput(written as Written<LessonWrite>);
  },
});
