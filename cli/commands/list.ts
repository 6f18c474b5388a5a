import { folderTree, isUnder, lessonsUnder, listedFolder, topicCounts, type FolderCount } from "../kb/overview.ts";
import { indexedLessons, type IndexedLesson } from "../kb/index.ts";
import { openSearch } from "../search/search.ts";
import { isCurrent } from "../lesson/schema.ts";
import { defineCommand } from "./_shared.ts";
import { counted } from "../output/words.ts";

const MARK: Record<string, string> = { pitfall: "!", recipe: ">", fact: "=", decision: "#", preference: "~" };

export default defineCommand({
  name: "list",
  description: "Overview of the knowledge base (scopes, projects, systems and topics with their lesson counts), of one folder, or the lessons of one topic",
  examples: ["rkb list", "rkb list projects/dftracer", "rkb list general/git --toon"],
  input: (Type) =>
    Type.Object(
      {
        folder: Type.Optional(Type.String({ description: "A scope, project, system or topic folder" })),
      },
      { additionalProperties: false },
    ),
  cli: { positionals: ["folder"] },
  run(input, ctx) {
    // The search index holds every lesson's listing fields: no lesson file is read.
    const { index } = openSearch(ctx.env, ctx.cwd, ctx.place);
    const all = indexedLessons(index);
    const { folder, kind } = listedFolder(index.root, input.folder) ?? {};
    // Lesson files that do not parse are in no listing: say they are there, and how to find why.
    const unreadable = index.unreadable.filter((u) => isUnder(u.path, folder));
    const unreadableLine = unreadable.length
      ? [
          `${unreadable.length === 1 ? "1 lesson file here does not parse and is" : `${unreadable.length} lesson files here do not parse and are`} not listed: ${unreadable.map((u) => u.path).join(", ")} (\`rkb lint\` says why)`,
        ]
      : [];
    if (kind !== "topic") {
      const tree = folderTree(all, folder);
      const inFolder = folder ? lessonsUnder(all, folder) : all;
      const topics = topicCounts(inFolder);
      const data = { ...(folder ? { folder } : {}), lessons: inFolder.length, tree, topics, unreadable, help: ["rkb list <folder> --toon"] };
      return { data, human: [treeText(tree, inFolder.length, folder, ctx.env), ...unreadableLine].join("\n") };
    }
    const lessons = lessonsUnder(all, folder!);
    const rows = lessons.map((l) => ({
      id: l.id,
      type: l.type,
      status: l.status,
      title: l.title,
      summary: l.summary,
      tags: l.tags.join(" "),
      when: Object.entries(l.when)
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("|") : v}`)
        .join(" "),
      verified: l.verified,
    }));
    return {
      data: { folder, lessons: rows, unreadable, help: ["rkb show <id>"] },
      human: [topicText(lessons, folder!, ctx.env), ...unreadableLine].join("\n"),
    };
  },
});

function treeText(tree: FolderCount[], total: number, folder: string | undefined, env: NodeJS.ProcessEnv): string {
  const depthOf = (path: string) => path.split("/").length - (folder ? folder.split("/").length : 1);
  const width = Math.max(24, ...tree.map((row) => 2 * depthOf(row.folder) + row.folder.split("/").at(-1)!.length + 4));
  const lines = tree.map((row) => {
    const name = `${"  ".repeat(depthOf(row.folder))}${row.folder === folder ? row.folder : row.folder.split("/").at(-1)}/`;
    const others = row.lessons - row.in_search;
    return fit(`${name.padEnd(width)}${String(row.in_search).padStart(5)}${others ? `  (+${others} archived or superseded)` : ""}`, env);
  });
  const example = tree.find((row) => row.kind === "topic")?.folder;
  const top = tree.find((row) => row.folder === folder);
  const inSearch = top ? top.in_search : tree.filter((row) => row.kind === "scope").reduce((n, row) => n + row.in_search, 0);
  const others = total - inSearch;
  return [
    `${counted(total, "lesson")}${folder ? ` under ${folder}` : ""}${others ? `: ${inSearch} in search (active or stale), ${others} archived or superseded` : " in search (active or stale)"}`,
    ...lines,
    `Next: rkb list <folder>${example ? ` (e.g. rkb list ${example})` : ""}`,
  ].join("\n");
}

/** A topic's lessons, grouped by first tag; archived and superseded ones last, under their own heading. */
function topicText(lessons: IndexedLesson[], folder: string, env: NodeJS.ProcessEnv): string {
  if (!lessons.length) return `no lessons in ${folder}`;
  const check = utf8(env) ? "✓" : "v";
  const lines = [`${counted(lessons.length, "lesson")} in ${folder}`];
  let group: string | undefined;
  for (const l of lessons) {
    const heading = isCurrent(l.status) ? l.tags[0] || "(no tag)" : "archived and superseded";
    if (heading !== group) lines.push("", heading);
    group = heading;
    const mark = `${MARK[l.type] ?? "?"}${l.verifiedHow === "checked" ? check : " "}`;
    const status = l.status === "active" ? "" : `  (${l.status})`;
    lines.push(fit(`  ${mark} ${l.id}  ${l.title}${status}${l.tags.length ? `  [${l.tags.join(" ")}]` : ""}`, env));
    if (l.summary) lines.push(fit(`       ${l.summary}`, env));
  }
  lines.push("", fit(`Marks: ! pitfall  > recipe  = fact  # decision  ~ preference  ${check} checked (verified_how: checked)`, env), "Next: rkb show <id>");
  return lines.join("\n");
}

/** Whether the terminal's locale is UTF-8 (else the check mark is written in ASCII). */
function utf8(env: NodeJS.ProcessEnv): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || "";
  return /utf-?8/i.test(locale);
}

/** Cuts a line to the terminal width `COLUMNS` gives, when it gives one. */
function fit(line: string, env: NodeJS.ProcessEnv): string {
  const columns = Number(env.COLUMNS);
  if (!Number.isInteger(columns) || columns < 20 || line.length <= columns) return line;
  return utf8(env) ? `${line.slice(0, columns - 1)}…` : `${line.slice(0, columns - 3)}...`;
}
