import { defineRkbCommand } from "./_shared.ts";
import { harnessFromEnv, sessionFromEnv } from "../agent-env.ts";
import { usageError } from "../output/errors.ts";
import { addItem, type InboxMeta } from "../sessions/inbox.ts";
import { maskSecrets } from "../sessions/secrets.ts";

// `rkb note`: puts a thought in the inbox to be distilled later, from the words given or stdin.
export default defineRkbCommand({
  name: "note",
  description: "Add a note to the inbox, to be distilled into a lesson later",
  examples: ['rkb note "cmake finds zlib under /opt only with -DZLIB_ROOT"', "echo 'ssh to build hosts needs -A' | rkb note --priority 2"],
  args: {
    text: { type: "positional", required: false, description: "The note (read from stdin when absent)" },
    priority: { type: "string", description: "How soon it should be distilled, 1 (default) to 3", valueHint: "1..3" },
  },
  run: async ({ args, env, stdin }) => {
    let priority: number | undefined;
    if (args.priority !== undefined) {
      priority = Number(args.priority);
      if (![1, 2, 3].includes(priority)) throw usageError(`--priority ${args.priority} is not 1, 2 or 3`, "write --priority 1, 2 or 3");
    }
    const words = (args._ as string[]).join(" ").trim();
    const text = words || (await stdin()).trim();
    if (!text) throw usageError("the note is empty", 'write `rkb note "<text>"`, or pipe the text into `rkb note`');
    const meta: InboxMeta = {
      kind: "note",
      time: Math.floor(Date.now() / 1000),
      harness: harnessFromEnv(env),
      session: sessionFromEnv(env),
      priority,
    };
    const id = addItem(env, meta, maskSecrets(text));
    const help = "it is distilled with the other inbox items (`rkb inbox` lists them)";
    return { data: { id, help }, human: `noted ${id} in the inbox; ${help}` };
  },
});
