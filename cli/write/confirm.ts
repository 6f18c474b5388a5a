import { RkbError } from "../base/errors.ts";
import { loadRequest, removeRequest } from "./requests.ts";
import { applyAllowed, type Written } from "./write.ts";

// `rkb confirm`: a person allows (or cancels) a write rkb asked about. Anything but `cancel` must be
// confirmed by typing `yes` on the person's own terminal, so an agent cannot answer for them.

export type Confirmed = { status: "cancelled"; request: string } | { status: "written"; request: string; written: Written<unknown> };

const MENU_TRIES = 3;

/**
 * The shortcut for a person who ran the write in their own terminal: the question as a numbered
 * menu there, answered at once (a number or the option's text; Enter cancels; three tries). The
 * answer is that person's, so it is not asked for again. Undefined when there is no terminal or no
 * valid answer: the request stays open for `rkb confirm`.
 */
export async function answerAtTerminal(
  env: NodeJS.ProcessEnv,
  asked: { request: string; question: string; options: string[] },
  ask: (prompt: string) => string | undefined,
): Promise<Confirmed | undefined> {
  const menu = [`Needs your decision:`, asked.question, ...asked.options.map((o, i) => `  ${i + 1}. ${o}`), ""].join("\n");
  for (let attempt = 0; attempt < MENU_TRIES; attempt++) {
    const answer = ask(`${attempt ? "" : menu}Your choice (number or text; Enter cancels): `);
    if (answer === undefined) return undefined;
    const choice = answer === "" ? "cancel" : (asked.options[Number(answer) - 1] ?? asked.options.find((o) => o === answer));
    if (choice) return confirmRequest(env, asked.request, choice, () => "yes");
  }
  return undefined;
}

/** ask: shows a question on the terminal and returns the line typed, or undefined when there is no terminal. */
export async function confirmRequest(env: NodeJS.ProcessEnv, id: string, choice: string, ask: (prompt: string) => string | undefined): Promise<Confirmed> {
  const req = loadRequest(env, id);
  if (!req.options.includes(choice)) {
    throw new RkbError(
      "bad_choice",
      `${JSON.stringify(choice)} is not an option of ${id}`,
      `choose one of: ${req.options.map((o) => JSON.stringify(o)).join(", ")}`,
      { options: req.options },
    );
  }
  if (choice === "cancel") {
    removeRequest(env, id);
    return { status: "cancelled", request: id };
  }
  const command = `rkb confirm ${id} --choice ${JSON.stringify(choice)}`;
  const answer = ask(`rkb asks: ${req.question}\nChoice: ${choice}\nType yes to confirm: `);
  if (answer === undefined) {
    throw new RkbError(
      "needs_terminal",
      `${id} must be confirmed by a person at a terminal, and this process has none`,
      `run \`${command}\` in your own terminal; nothing was written`,
    );
  }
  if (answer !== "yes")
    throw new RkbError(
      "refused",
      `not confirmed: the answer was ${JSON.stringify(answer)}, not \`yes\``,
      `run \`${command}\` again and type yes to allow it; nothing was written`,
    );
  // One answer per request: a write that fails now (the files changed meanwhile) is asked anew.
  removeRequest(env, id);
  return { status: "written", request: id, written: await applyAllowed(req, choice, env) };
}
