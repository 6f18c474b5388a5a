// Embeds extension/rkb.ts into the binary as text. This import lives in a .js file with a .d.ts
// beside it so that the CLI's type check sees a string and does not type-check the extension
// against pi's types, which only the end-to-end tests install.
import text from "../../extension/rkb.ts" with { type: "text" };
export default text;
