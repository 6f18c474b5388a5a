import { runCli, type CliResult } from "../dispatch.ts";
import { toInvocation, type Provenance } from "./argv.ts";
import { findTool } from "./schemas.ts";
import { checkArguments, parseToolInput, unknownTool } from "./validate.ts";

export interface ToolRun extends Provenance {
  env: NodeJS.ProcessEnv;
  cwd: string;
  format: "toon" | "json";
  /** Place flags given to `rkb tool` itself, passed on to the command. */
  placeArgs: string[];
}

/** Checks the arguments and runs the matching command in this process; throws a usage error for bad input. */
export async function runTool(name: string, input: string, run: ToolRun): Promise<CliResult> {
  const tool = findTool(name);
  if (!tool) throw unknownTool(name);
  const args = parseToolInput(name, input);
  checkArguments(tool, args);
  const { argv, stdin } = toInvocation(name, args, run);
  const formatFlag = run.format === "json" ? ["--format", "json"] : ["--toon"];
  // Flags go before the `--` that ends the command's own flags.
  const end = argv.indexOf("--");
  const full = end < 0 ? [...argv, ...formatFlag, ...run.placeArgs] : [...argv.slice(0, end), ...formatFlag, ...run.placeArgs, ...argv.slice(end)];
  return runCli(full, { env: run.env, cwd: run.cwd, stdin: stdin ?? "" });
}
