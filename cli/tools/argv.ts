import { lessonText } from "../kb/compose.ts";
import { REQUIRED_SECTIONS, sectionField, type LessonType } from "../kb/schema.ts";
import { usageError } from "../output/errors.ts";

// Turns a checked tool call into the rkb command line that does the work, so a tool prints exactly
// what the matching command prints.

export interface Provenance {
  sessionId?: string;
  harness?: string;
}

export interface Invocation {
  argv: string[];
  stdin?: string;
}

type Args = Record<string, any>;

export function toInvocation(tool: string, a: Args, from: Provenance): Invocation {
  const session = from.sessionId ? ["--session", from.sessionId] : [];
  switch (tool) {
    case "rkb_search":
      // `--` keeps a query that starts with "-" from being read as a flag.
      return { argv: ["search", ...(a.limit !== undefined ? ["--limit", String(a.limit)] : []), ...(a.all ? ["--all"] : []), "--", a.query] };
    case "rkb_show":
      return { argv: ["show", "--", a.id] };
    case "rkb_add":
      return {
        argv: ["add", "--topic", a.topic, ...session, ...(from.harness ? ["--harness", from.harness] : [])],
        stdin: lessonMarkdown(a),
      };
    case "rkb_note":
      return { argv: ["note", ...(a.priority !== undefined ? ["--priority", String(a.priority)] : []), ...session, "--", a.text] };
    case "rkb_used":
      if (a.result === "failed" && !a.reason?.trim()) {
        throw usageError("rkb_used with result `failed` needs a `reason`", "say what went wrong when you applied the lesson, in `reason`");
      }
      return { argv: ["used", `--${a.result}`, ...(a.reason ? ["--reason", a.reason] : []), ...session, "--", a.id] };
    case "rkb_flag":
      return { argv: ["flag", "--reason", a.reason, "--", a.id] };
    case "rkb_edit":
      return { argv: ["edit", "--base", a.base, "--", a.id], stdin: a.text };
  }
  throw new Error(`no command for tool ${tool}`);
}

/** The lesson file `rkb add` reads on stdin, built from rkb_add's fields. */
export function lessonMarkdown(a: Args): string {
  const type = a.type as LessonType;
  const headings = REQUIRED_SECTIONS[type];
  const own = new Set(headings.map(sectionField));
  const given = Object.keys(a).filter((k) => !["type", "title", "topic", "tags", "queries", "when", "verified_how"].includes(k));
  const stray = given.filter((k) => !own.has(k));
  if (stray.length) {
    throw usageError(
      `\`${stray[0]}\` is not a section of a ${type}`,
      `a ${type} has the sections ${[...own].join(", ")}; pick the type whose sections fit what you learned`,
    );
  }
  const missing = [...own].filter((f) => typeof a[f] !== "string" || a[f].trim() === "");
  if (missing.length) throw usageError(`a ${type} needs \`${missing.join("`, `")}\``, `give every section of a ${type}: ${[...own].join(", ")}`);

  const kept = (items: string[] | undefined) => (items ?? []).map((s) => s.trim()).filter(Boolean);
  return lessonText({
    type,
    title: String(a.title).replace(/\s+/g, " ").trim(),
    verifiedHow: a.verified_how,
    tags: kept(a.tags),
    queries: kept(a.queries),
    when: Object.fromEntries(Object.entries((a.when ?? {}) as Record<string, string>).filter(([k, v]) => k.trim() && v.trim())),
    sections: Object.fromEntries(headings.map((h) => [h, String(a[sectionField(h)])])),
  });
}
