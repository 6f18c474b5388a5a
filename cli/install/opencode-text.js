// Embeds extension/opencode.ts into the binary as text (see extension-text.js for why a .js file).
import text from "../../extension/opencode.ts" with { type: "text" };
export default text;
