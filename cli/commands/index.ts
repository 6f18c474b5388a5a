import type { ToolHost } from "../agent/tools/schemas.ts";
import type { RkbCommand } from "./_shared.ts";

// The command table. Each command lives in its own file and is loaded only when it runs.
const table: Record<string, () => Promise<{ default: RkbCommand }>> = {
  status: () => import("./status.ts"),
  context: () => import("./context.ts"),
  init: () => import("./init.ts"),
  add: () => import("./add.ts"),
  show: () => import("./show.ts"),
  search: () => import("./search.ts"),
  list: () => import("./list.ts"),
  edit: () => import("./edit.ts"),
  lint: () => import("./lint.ts"),
  note: () => import("./note.ts"),
  inbox: () => import("./inbox.ts"),
  used: () => import("./used.ts"),
  flag: () => import("./flag.ts"),
  supersede: () => import("./supersede.ts"),
  archive: () => import("./archive.ts"),
  unarchive: () => import("./unarchive.ts"),
  move: () => import("./move.ts"),
  rename: () => import("./rename.ts"),
  label: () => import("./label.ts"),
  confirm: () => import("./confirm.ts"),
  doctor: () => import("./doctor.ts"),
  sync: () => import("./sync.ts"),
  eval: () => import("./eval.ts"),
  hook: () => import("./hook.ts"),
  tools: () => import("./tools.ts"),
  tool: () => import("./tool.ts"),
  mcp: () => import("./mcp.ts"),
  install: () => import("./install.ts"),
  extract: () => import("./extract.ts"),
  dupes: () => import("./dupes.ts"),
  review: () => import("./review.ts"),
  log: () => import("./log.ts"),
  changes: () => import("./changes.ts"),
  import: () => import("./import.ts"),
  propose: () => import("./propose.ts"),
  serve: () => import("./serve.ts"),
  site: () => import("./site.ts"),
};

export const commandNames = Object.keys(table);

export async function loadCommand(name: string): Promise<RkbCommand | undefined> {
  const load = table[name];
  return load ? (await load()).default : undefined;
}

/**
 * The commands as the agent's tools reach them: `rkb tool`, `rkb tools` and `rkb mcp` pass this to
 * the tool runner and the MCP server. inputs.ts is loaded here, when called: its macro loads every
 * command, so no module a command imports may load it at its top.
 */
export async function toolHost(): Promise<ToolHost> {
  const { commandInput, toolInput } = await import("./inputs.ts");
  return { loadCommand, commandInput, toolInput };
}
