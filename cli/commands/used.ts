import { planFlag } from "../plan/status.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { isCurrent } from "../lesson/schema.ts";
import { refuseSecrets } from "../lint/leak.ts";
import { appendUsage } from "../kb/usage.ts";
import { transact, waitsForUser } from "../write/write.ts";
import { usageError } from "../base/errors.ts";
import { needsUserOutput } from "../output/written.ts";
import { defineCommand, type TypeBuilder } from "./_shared.ts";

const RESULTS = ["worked", "failed", "irrelevant"] as const;

export const usedInput = (Type: TypeBuilder) =>
  Type.Object(
    {
      id: Type.String({ description: "Lesson id" }),
      result: Type.String({ enum: [...RESULTS], description: "What happened when you applied it" }),
      reason: Type.Optional(Type.String({ description: "Why; required when it failed" })),
      session: Type.Optional(Type.String({ description: "Session id (default: from the harness environment)" })),
    },
    { additionalProperties: false },
  );

export default defineCommand({
  name: "used",
  description: "Report how a lesson worked out; a failure also flags it stale",
  examples: ["rkb used 7f3a9c2b41 --worked", 'rkb used 7f3a9c2b41 --failed --reason "the flag is gone in CMake 4"', "rkb used 7f3a9c2b41 --irrelevant"],
  input: usedInput,
  cli: {
    positionals: ["id"],
    choices: {
      result: { worked: "The lesson helped", failed: "The lesson was wrong here (needs --reason)", irrelevant: "The lesson did not fit the problem" },
    },
  },
  async run(input, ctx) {
    const { env } = ctx;
    const event = input.result as (typeof RESULTS)[number];
    if (event === "failed" && !input.reason?.trim()) {
      throw ctx.caller.origin === "tool"
        ? usageError("rkb_used with result `failed` needs a `reason`", "say what went wrong when you applied the lesson, in `reason`")
        : usageError("--failed needs --reason", 'say what was wrong, e.g. --reason "the option was removed"');
    }
    if (input.reason) refuseSecrets(input.reason, ctx.caller.origin === "tool" ? "reason" : "--reason");
    const { root, kb } = openKb(ctx, "write");
    const lesson = findLesson(kb, input.id);
    const session = input.session || ctx.caller.sessionId;
    await appendUsage(
      root,
      { time: new Date().toISOString(), id: lesson.id, event, ...(session ? { session } : {}), ...(input.reason ? { reason: input.reason } : {}) },
      env,
    );
    let flag: { commit: string } | undefined;
    if (event === "failed" && isCurrent(lesson.status)) {
      const written = await transact(root, ctx, (k) => planFlag(findLesson(k, lesson.id), input.reason));
      if (waitsForUser(written)) return needsUserOutput(written);
      flag = { commit: written.commit };
    }
    const data = { status: "recorded", id: lesson.id, result: event, session: session ?? null, ...(flag ? { flag } : {}) };
    const human = `recorded: ${lesson.id} ${event}${flag ? `; flagged stale in commit ${flag.commit}` : ""}`;
    return { data, human };
  },
});
