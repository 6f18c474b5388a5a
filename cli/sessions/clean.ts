import { stripFrames } from "../output/frame.ts";

// Text that is in a session but not the user's or the agent's own words: harness reminders and
// the lessons rkb itself injected. Removed as soon as the reader sees it, so no signal fires on it
// and no inbox item can quote it back into the knowledge base.

const HARNESS_TAGS = [
  "system-reminder",
  "agent-message",
  "task-notification",
  "bash-input",
  "bash-stdout",
  "bash-stderr",
  "command-message",
  "command-name",
  "command-args",
  "local-command-stdout",
  "local-command-stderr",
  "local-command-caveat",
  "pasted_content",
  // Gemini CLI's: the session's context, and what a hook added (rkb's context and lessons among it).
  "session_context",
  "hook_context",
];

// An opening tag; its attributes hold no `<`, so a text of a million unclosed `<tag` is read in linear time.
const OPEN_TAG = new RegExp(`<(${HARNESS_TAGS.join("|")})\\b[^<>]*>`, "g");
const HARNESS_LINES = /^(?:Another Claude session sent a message:.*|\[Request interrupted by user.*|\[SYSTEM NOTIFICATION.*)$/gm;

/**
 * Each harness block from its opening tag to its closing tag; an opening tag whose block was cut
 * off (a truncated line or output) hides everything after it. The closing tag is found with
 * indexOf from the opening one, so unclosed tags cannot make the search quadratic.
 */
function withoutTagBlocks(text: string): string {
  let out = "";
  let at = 0;
  OPEN_TAG.lastIndex = 0;
  for (let m = OPEN_TAG.exec(text); m; m = OPEN_TAG.exec(text)) {
    if (m.index < at) continue;
    out += text.slice(at, m.index);
    const end = text.indexOf(`</${m[1]}>`, m.index + m[0].length);
    if (end === -1) return out;
    at = end + m[1]!.length + 3;
    OPEN_TAG.lastIndex = at;
  }
  return out + text.slice(at);
}

/** The text without harness blocks and rkb injections, with the blank runs they leave collapsed. */
export function stripInjected(text: string): string {
  if (!text.includes("<") && !text.includes("rkb:") && !text.includes("[")) return text;
  return stripFrames(withoutTagBlocks(text))
    .replace(HARNESS_LINES, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
