import type { TObject } from "typebox";
import type { RkbCommand } from "../../commands/_shared.ts";
import type { CheckedInput } from "../../commands/inputs.ts";
import { firstSentence } from "../../lesson/body.ts";

// The agent tools. Each is a command: its parameters are the command's input schema, picked down to
// what an agent gives (and with the fields it must give made required), so there is one definition.
// `rkb tools` prints them, `rkb tool` and callTool check arguments against them, and the pi/omp
// extension registers them from `rkb tools --format json` without a copy.
// Two rules come from omp: no array or object `default` (omp refuses to load the extension) and
// only JSON-Schema keywords that Type.Unsafe can pass through unchanged.

export interface ToolSpec {
  name: string;
  /** Short name for a harness UI. */
  label: string;
  /** First sentence is the one-line summary a harness shows in its tool list. */
  description: string;
  /** The command that does the work. */
  command: string;
  /** The input fields an agent gives, in order (`pick`), or all but some (`omit`); the command fills the rest from the call (session, harness). */
  pick?: readonly string[];
  omit?: readonly string[];
  /** Of those, the ones it must give. */
  required: readonly string[];
  /** Its answer holds lesson text, so the model gets it inside the lesson frame (output/frame.ts). */
  framed?: boolean;
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "rkb_search",
    label: "rkb search",
    description:
      "Search the user's lessons-learned knowledge base for pitfalls, recipes, facts, decisions and preferences that match the words. " +
      "Search before a web search and before debugging a failure from scratch; results list id, title, a summary and whether the lesson applies here.",
    command: "search",
    pick: ["query", "limit", "all"],
    required: ["query"],
    framed: true,
  },
  {
    name: "rkb_show",
    label: "rkb show",
    description: "Show one lesson in full: frontmatter, body, usage counts, whether it applies here and its hash (needed by rkb_edit).",
    command: "show",
    pick: ["id"],
    required: ["id"],
    framed: true,
  },
  {
    name: "rkb_add",
    label: "rkb add",
    description:
      "Record a new lesson that will matter again: what failed and how it was fixed (pitfall), how to do something (recipe), a fact, a decision or a user preference. " +
      "Search first so you do not add a duplicate; give every section the type needs; never invent a fix you did not see work.",
    command: "add",
    omit: ["template", "session", "harness"],
    required: ["type", "title", "topic"],
  },
  {
    name: "rkb_note",
    label: "rkb note",
    description: "Put a short note in the inbox to be turned into a lesson later, when you have no time or evidence for a full lesson now.",
    command: "note",
    pick: ["text", "priority"],
    required: ["text"],
  },
  {
    name: "rkb_used",
    label: "rkb used",
    description:
      "Report whether a lesson you read or were given helped: worked, failed (say why) or irrelevant. This is how the knowledge base learns which lessons are good.",
    command: "used",
    pick: ["id", "result", "reason"],
    required: ["id", "result"],
  },
  {
    name: "rkb_flag",
    label: "rkb flag",
    description: "Mark a lesson as stale because it is wrong or out of date, with the reason.",
    command: "flag",
    pick: ["id", "reason"],
    required: ["id", "reason"],
  },
  {
    name: "rkb_edit",
    label: "rkb edit",
    description: "Replace a lesson's file with a corrected or extended version. Read it with rkb_show first and pass its hash as base.",
    command: "edit",
    pick: ["id", "base", "text"],
    required: ["id", "base", "text"],
  },
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);

export function findTool(name: string): ToolSpec | undefined {
  return TOOLS.find((t) => t.name === name);
}

/**
 * What the tools need of the commands: the command behind a tool, and the inputs built when rkb was
 * built (cli/commands/inputs.build.ts). The command that starts the tool runner or the MCP server
 * passes it in (commands/index.ts `toolHost`): the agent's tools sit below the command table that
 * holds them, and the inputs module must not load with a command (its macro loads every command).
 */
export interface ToolHost {
  loadCommand(name: string): Promise<RkbCommand | undefined>;
  commandInput(name: string): CheckedInput;
  toolInput(name: string): CheckedInput;
}

/** The tool, the command behind it and both inputs. */
export async function loadTool(tool: ToolSpec, host: ToolHost): Promise<{ cmd: RkbCommand; parameters: CheckedInput; commandSchema: TObject }> {
  const cmd = await host.loadCommand(tool.command);
  return { cmd: cmd!, parameters: host.toolInput(tool.name), commandSchema: host.commandInput(tool.command).schema };
}

/** What `rkb tools` prints for each tool; the snippet is the first sentence, for a harness's one-line tool list. */
export function toolDefinition(t: ToolSpec, host: Pick<ToolHost, "toolInput">) {
  return {
    name: t.name,
    label: t.label,
    description: t.description,
    snippet: firstSentence(t.description),
    inputSchema: host.toolInput(t.name).schema,
  };
}
