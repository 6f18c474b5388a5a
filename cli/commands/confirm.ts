import { confirmRequest } from "../kb/confirm.ts";
import type { LessonWrite } from "../kb/changes.ts";
import type { Written } from "../kb/write.ts";
import { usageError } from "../output/errors.ts";
import { writtenOutput } from "../output/written.ts";
import { askTerminal } from "../terminal.ts";
import { defineRkbCommand } from "./_shared.ts";

export default defineRkbCommand({
  name: "confirm",
  description: "Allow or cancel a write rkb asked you about (in your own terminal)",
  examples: ['rkb confirm r-1a2b3c --choice "continue"', 'rkb confirm r-1a2b3c --choice "cancel"'],
  args: {
    request: { type: "positional", required: true, description: "The request id rkb named (r-xxxxxx)" },
    choice: { type: "string", description: "One of the options rkb offered", valueHint: "option" },
  },
  async run(ctx) {
    const { request, choice } = ctx.args;
    if (!choice) throw usageError("`rkb confirm` needs --choice", `name one of the options rkb offered, e.g. rkb confirm ${request} --choice "cancel"`);
    const done = await confirmRequest(ctx.env, request, choice, askTerminal);
    if (done.status === "cancelled") return { data: { status: "cancelled", request }, human: `cancelled ${request}; nothing was written` };
    return writtenOutput(done.written as Written<LessonWrite>);
  },
});
