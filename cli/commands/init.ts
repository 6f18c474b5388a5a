import { defineRkbCommand } from "./_shared.ts";
import { RkbError } from "../output/errors.ts";

// PLACEHOLDER: replaced by the real command.
export default defineRkbCommand({
  name: "init",
  description: "(not built yet)",
  examples: [],
  args: {},
  run: () => {
    throw new RkbError("refused", "`rkb init` is not built yet", "wait for the next release");
  },
});
