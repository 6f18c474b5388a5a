import { defineCommand, type CommandContext } from "./_shared.ts";
import { docOfId } from "../kb/index.ts";
import { openSearch } from "../search/search.ts";
import { RkbError, usageError } from "../base/errors.ts";
import { age, dropItem, expireItems, listItems, parseOutcome, preview, readItem, recordOutcomes, type InboxItem } from "../inbox/inbox.ts";
import { readFileSync } from "node:fs";
import { addFromCommands } from "../inbox/from-item.ts";
import { counted } from "../output/words.ts";

// `rkb inbox [list|show|drop|done] [id…]`: what waits to be distilled into lessons.
export default defineCommand({
  name: "inbox",
  description: "List, show, drop or finish inbox items (captured sessions and notes)",
  examples: ["rkb inbox", "rkb inbox show 3f9a1c0d2e", "rkb inbox done 3f9a1c0d2e --outcome add:7f3a9c2b41", "rkb inbox drop 3f9a1c0d2e"],
  input: (Type) =>
    Type.Object(
      {
        action: Type.Optional(Type.String({ description: "list (default), show, drop or done" })),
        ids: Type.Optional(Type.Array(Type.String(), { description: "The item id(s), for show, drop and done" })),
        outcomes: Type.Optional(
          Type.Array(Type.String(), { description: "With done: what distilling led to, <add|update|supersede|used>:<lesson id> or noop" }),
        ),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["action"], variadic: "ids", flags: { outcomes: { flag: "outcome", valueHint: "op[:lesson]" } } },
  run: async (input, ctx) => {
    const { env } = ctx;
    const { action = "list", ids = [], outcomes = [] } = input;
    if (outcomes.length && action !== "done") throw usageError("--outcome goes with `rkb inbox done`", "write `rkb inbox done <id> --outcome <op>[:<lesson>]`");
    if (action === "list") {
      if (ids.length) throw usageError("`rkb inbox list` takes no id", "use `rkb inbox show <id>` to read one item");
      return list(env);
    }
    if (action === "show") {
      if (ids.length !== 1) throw usageError("`rkb inbox show` needs one id", "write `rkb inbox show <id>` (ids are in `rkb inbox`)");
      const item = readItem(env, ids[0]!);
      return { data: { ...row(item), meta: item.meta, body: item.body }, human: readFileSync(item.path, "utf8"), raw: true };
    }
    if (action === "drop" || action === "done") {
      if (!ids.length) throw usageError(`\`rkb inbox ${action}\` needs at least one id`, `write \`rkb inbox ${action} <id>\``);
      if (outcomes.length) {
        if (ids.length !== 1) throw usageError("--outcome is for one item at a time", "run `rkb inbox done <id> --outcome …` once per item");
        const parsed = outcomes.map(parseOutcome);
        const item = readItem(env, ids[0]!);
        requireLessons(
          parsed.flatMap((o) => (o.lesson ? [o.lesson] : [])),
          ctx,
        );
        await recordOutcomes(env, item, parsed);
      }
      const items = ids.map((id) => ({ id, removed: dropItem(env, id) }));
      const unknown = items.filter((i) => !i.removed).map((i) => i.id);
      const human = items.map((i) => (i.removed ? `removed ${i.id}` : `no inbox item ${i.id}`)).join("\n");
      return { data: { items }, human, exit: unknown.length ? 1 : 0 };
    }
    throw usageError(
      `\`${action}\` is not an inbox action`,
      "use `rkb inbox`, `rkb inbox show <id>`, `rkb inbox drop <id>` or `rkb inbox done <id> --outcome …`",
    );
  },
});

/** The lessons an outcome names must be in the knowledge base: a mistyped id would log a distillation that led nowhere. */
function requireLessons(ids: string[], ctx: { env: NodeJS.ProcessEnv; cwd: string; place: CommandContext["place"] }): void {
  if (!ids.length) return;
  const { index } = openSearch(ctx.env, ctx.cwd, ctx.place);
  const missing = ids.find((id) => docOfId(index, id) < 0);
  if (missing)
    throw new RkbError(
      "not_found",
      `no lesson ${missing} in the knowledge base; the item was kept`,
      "name the lesson the item became (`rkb add` printed its id; `rkb search` finds it), or use --outcome noop",
    );
}

/** For an item with draft pitfalls, the `rkb add --from` command that turns each into a lesson. */
function addCommands(item: InboxItem): { add?: string[] } {
  const add = addFromCommands(item);
  return add.length ? { add } : {};
}

function row(item: InboxItem) {
  const now = Date.now() / 1000;
  const meta = item.meta;
  return {
    id: item.id,
    kind: meta.kind,
    priority: typeof meta.priority === "number" ? meta.priority : 1,
    time: meta.time,
    age: age(now - meta.time),
    lines: item.body.split("\n").length,
    signals: Array.isArray(meta.signals) ? meta.signals : [],
    ...(typeof meta.counts === "string" ? { counts: meta.counts } : {}),
    ...(typeof meta.session === "string" ? { session: meta.session } : {}),
    preview: preview(item),
    ...addCommands(item),
  };
}

const FILLED_BY = "sessions are captured at compaction and shutdown, and `rkb note` adds notes";

function list(env: NodeJS.ProcessEnv) {
  const expired = expireItems(env);
  const items = listItems(env).map(row);
  const help = items.length
    ? "read one with `rkb inbox show <id>`; after distilling it, `rkb inbox done <id> --outcome <op>[:<lesson>]`"
    : `the inbox is empty; ${FILLED_BY}`;
  if (!items.length) {
    const empty = `the inbox is empty${expired ? ` (${counted(expired, "old item")} expired)` : ""}`;
    return { data: { items, expired, help }, human: `${empty}; ${FILLED_BY}` };
  }
  const lines = [`${counted(items.length, "item")} in the inbox, newest first:`];
  for (const i of items) {
    const signals = i.signals.length ? `  [${i.signals.join(", ")}]` : "";
    lines.push(`  ${i.id}  ${i.age.padStart(6)}  p${i.priority}  ${i.kind.padEnd(10)} ${i.preview}${signals}`);
    if (i.counts) lines.push(`${" ".repeat(14)}${i.counts}`);
    for (const command of i.add ?? []) lines.push(`${" ".repeat(14)}${command}`);
  }
  if (expired) lines.push(`(${counted(expired, "item")} older than 30 days expired)`);
  lines.push(help);
  return { data: { items, expired, help }, human: lines.join("\n") };
}
