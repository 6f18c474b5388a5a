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
];

const TAG_BLOCKS = new RegExp(`<(${HARNESS_TAGS.join("|")})\\b[^>]*>[\\s\\S]*?</\\1>`, "g");
// An opening tag whose block was cut off (a truncated line or output) hides everything after it.
const OPEN_TAG_TO_END = new RegExp(`<(?:${HARNESS_TAGS.join("|")})\\b[^>]*>[\\s\\S]*$`);
const RKB_LESSON = /<rkb-lesson\b[^>]*>[\s\S]*?(?:<\/rkb-lesson>|$)/g;
const RKB_PREAMBLE = /^rkb: reference data from the user's knowledge base.*$/gm;
const HARNESS_LINES = /^(?:Another Claude session sent a message:.*|\[Request interrupted by user.*|\[SYSTEM NOTIFICATION.*)$/gm;

/** The text without harness blocks and rkb injections, with the blank runs they leave collapsed. */
export function stripInjected(text: string): string {
  if (!text.includes("<") && !text.includes("rkb:") && !text.includes("[")) return text;
  return text
    .replace(TAG_BLOCKS, "")
    .replace(OPEN_TAG_TO_END, "")
    .replace(RKB_LESSON, "")
    .replace(RKB_PREAMBLE, "")
    .replace(HARNESS_LINES, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
