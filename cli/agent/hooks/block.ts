// The block a hook adds to a failed command's output or to a prompt: one lesson in the frame of
// output/frame.ts, with why rkb chose it and the way to report the outcome.
import { frame, oneLine } from "../../output/frame.ts";
import type { InjectedLesson } from "../../search/recall.ts";

const MAX_TEXT = 300;
const ADVICE = "Check that it fits this situation before you use it, then report the outcome with rkb_used (worked, failed with the reason, or irrelevant).";

/** The block for one lesson: the framing line, then the lesson between `<rkb-lesson>` tags, with why rkb chose it. */
export function renderInjection(l: InjectedLesson, reason?: string): string {
  let text = oneLine(`${l.title} - ${l.summary}`).replace(/\s+/g, " ").trim();
  if (text.length > MAX_TEXT) text = text.slice(0, MAX_TEXT - 1).trimEnd() + "…";
  const attrs = { id: l.id, verified: l.verified, how: l.verified_how, applies: l.applies };
  const lines = [text, ...(reason ? [oneLine(`Chosen because it ${reason}.`).replace(/\s+/g, " ")] : []), `Read it with \`rkb show ${oneLine(l.id)}\`.`];
  return frame(attrs, lines.join("\n"), ADVICE);
}
