import { planFlag } from "../kb/changes.ts";
import { sessionFromEnv } from "../agent-env.ts";
import { openKb } from "../kb/open.ts";
import { findLesson } from "../kb/store.ts";
import { isCurrent } from "../kb/schema.ts";
import { appendUsage } from "../kb/usage.ts";
import { transact } from "../kb/write.ts";
import { usageError } from "../output/errors.ts";
import { defineRkbCommand } from "./_shared.ts";

export default defineRkbCommand({
  name: "used",
  description: "Report how a lesson worked out; a failure also flags it stale",
  examples: ["rkb used 7f3a9c2b41 --worked", 'rkb used 7f3a9c2b41 --failed --reason "the flag is gone in CMake 4"', "rkb used 7f3a9c2b41 --irrelevant"],
  args: {
    id: { type: "positional", required: true, description: "Lesson id" },
    worked: { type: "boolean", description: "The lesson helped" },
    failed: { type: "boolean", description: "The lesson was wrong here (needs --reason)" },
    irrelevant: { type: "boolean", description: "The lesson did not fit the problem" },
    reason: { type: "string", description: "Why" },
    session: { type: "string", description: "Session id (default: from the harness environment)" },
  },
  async run(ctx) {
    const { args, env } = ctx;
    const chosen = (["worked", "failed", "irrelevant"] as const).filter((k) => args[k]);
    if (chosen.length !== 1) throw usageError("say exactly one of --worked, --failed or --irrelevant", "e.g. rkb used <id> --worked");
    const event = chosen[0]!;
    if (event === "failed" && !args.reason?.trim()) throw usageError("--failed needs --reason", 'say what was wrong, e.g. --reason "the option was removed"');
    const { root, kb } = openKb(ctx, "write");
    const lesson = findLesson(kb, args.id);
    const session = args.session || sessionFromEnv(env);
    await appendUsage(root, { time: new Date().toISOString(), id: lesson.id, event, ...(session ? { session } : {}), ...(args.reason ? { reason: args.reason } : {}) }, env);
    let flag: { commit: string } | undefined;
    if (event === "failed" && isCurrent(lesson.status)) {
      const written = await transact(root, env, (k) => planFlag(findLesson(k, lesson.id), args.reason));
      flag = { commit: written.commit };
    }
    const data = { status: "recorded", id: lesson.id, result: event, session: session ?? null, ...(flag ? { flag } : {}) };
    const human = `recorded: ${lesson.id} ${event}${flag ? `; flagged stale in commit ${flag.commit}` : ""}`;
    return { data, human };
  },
});
