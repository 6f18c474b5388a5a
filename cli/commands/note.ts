import { defineCommand, type TypeBuilder } from "./_shared.ts";
import { usageError } from "../base/errors.ts";
import { BINARY, refusedInput } from "../base/text-input.ts";
import { addItem, type InboxMeta } from "../inbox/inbox.ts";
import { refuseSecrets } from "../lint/leak.ts";

// `rkb note`: puts a thought in the inbox to be distilled later, from the words given or stdin.
export const noteInput = (Type: TypeBuilder) =>
  Type.Object(
    {
      text: Type.Optional(Type.String({ description: "What to remember, with the evidence" })),
      priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: "1 normal, 2 important, 3 urgent" })),
      session: Type.Optional(Type.String({ description: "Session id the note comes from (default: from the harness environment)" })),
    },
    { additionalProperties: false },
  );

export default defineCommand({
  name: "note",
  description: "Add a note to the inbox, to be distilled into a lesson later",
  examples: ['rkb note "cmake finds zlib under /opt only with -DZLIB_ROOT"', "echo 'ssh to build hosts needs -A' | rkb note --priority 2"],
  input: noteInput,
  cli: { variadic: "text", flags: { priority: { valueHint: "1..3" } } },
  run: async (input, { env, stdin, caller }) => {
    const text = input.text?.trim() || (await stdin()).trim();
    if (!text) throw usageError("the note is empty", 'write `rkb note "<text>"`, or pipe the text into `rkb note`');
    if (text.includes("\0")) throw refusedInput("the note", BINARY);
    const meta: InboxMeta = {
      kind: "note",
      time: Math.floor(Date.now() / 1000),
      harness: caller.harness,
      session: input.session || caller.sessionId,
      priority: input.priority,
    };
    refuseSecrets(text, "the note");
    const id = addItem(env, meta, text);
    const help = "it is distilled with the other inbox items (`rkb inbox` lists them)";
    return { data: { id, help }, human: `noted ${id} in the inbox; ${help}` };
  },
});
