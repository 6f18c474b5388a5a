import { confirmRequest } from "../write/confirm.ts";
import { confirmedOutput } from "../output/written.ts";
import { askTerminal } from "../base/terminal.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "confirm",
  description: "Allow or cancel a write rkb asked you about (in your own terminal)",
  examples: ['rkb confirm r-1a2b3c --choice "continue"', 'rkb confirm r-1a2b3c --choice "cancel"'],
  input: (Type) =>
    Type.Object(
      {
        request: Type.String({ description: "The request id rkb named (r-xxxxxx)" }),
        choice: Type.String({ description: "One of the options rkb offered" }),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["request"], flags: { choice: { valueHint: "option" } } },
  async run(input, ctx) {
    return confirmedOutput(await confirmRequest(ctx.env, input.request, input.choice, askTerminal));
  },
});
