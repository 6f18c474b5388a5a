import { defineRkbCommand } from "./_shared.ts";
import { RkbError } from "../output/errors.ts";

// PLACEHOLDER: replaced by the real command.
export default defineRkbCommand({
  name: "tools",
  description: "(not built yet)",
  examples: [],
  args: {},
  run: () => {
    throw new RkbError("refused", "`rkb tools` is not built yet", "wait for the next release");
  },
});
