import { accessSync, constants, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Static, TObject, Type } from "typebox";
import type { Caller } from "../machine/settings.ts";
import { RkbError } from "../base/errors.ts";
import { writeAtomic } from "../base/fsutil.ts";
import type { PlaceOptions } from "../place/place.ts";
import type { Format, Output } from "../output/render.ts";

// The shape of every command: a handler `(input, ctx) → Output` whose input is one TypeBox schema.
// Two adapters build that input and check it against the schema: cli/flags.ts from a command line,
// cli/agent/tools/run.ts from an agent tool's JSON.

/** TypeBox's schema builder, handed to a command's `input` when rkb is built (cli/commands/inputs.ts). */
export type TypeBuilder = typeof Type;

/** What a handler may know about the call besides its input. */
export interface CommandContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  format: Format;
  place: PlaceOptions;
  /**
   * Standard input as text under the input rule (base/text-input: at most 1 MiB of UTF-8, no NUL), a
   * pipe silent for RKB_STDIN_TIMEOUT seconds an error; "" when it is a terminal or a tool call.
   */
  stdin: () => Promise<string>;
  /** Standard input whole, as an agent's event payload comes (`rkb hook` reads a bounded prefix of a huge one). */
  stdinPayload: () => Promise<string>;
  /** True when standard input is a terminal (nothing was piped in). */
  stdinIsTTY: boolean;
  /** Who calls: a person or an agent's tool call, the harness, the session (machine/settings.ts). */
  caller: Caller;
}

/** How the command line spells the input; every other property is the flag `--<name with - for _>`. */
export interface CliShape {
  /** Properties given as positional words, in order. */
  positionals?: string[];
  /** The property that takes every positional word (a list, or one string of the words joined). */
  variadic?: string;
  /** Per-property flag details: another flag name, a value hint for --help, an example for key=value errors. */
  flags?: Record<string, { flag?: string; valueHint?: string; example?: string }>;
  /** The property the command line gives on standard input rather than as a flag (the handler reads it). */
  stdin?: string;
  /** Enum properties given as one boolean flag per value (`--worked`), with each flag's help. */
  choices?: Record<string, Record<string, string>>;
}

export interface RkbCommand<S extends TObject = TObject> {
  name: string;
  description: string;
  /** Shown under "Example:" in --help. */
  examples: string[];
  /**
   * The input schema, written with TypeBox's builder. It runs when rkb is built, not when a command
   * runs: cli/commands/inputs.ts holds every schema as data with a check TypeBox compiled, because loading
   * TypeBox costs every rkb process ~2.4 ms, a third of what a warm search adds to its floor.
   */
  input: (Type: TypeBuilder) => S;
  cli?: CliShape;
  run: (input: Static<S>, ctx: CommandContext) => Promise<Output> | Output;
}

export function defineCommand<const S extends TObject>(cmd: RkbCommand<S>): RkbCommand<S> {
  return cmd;
}

/** A context for calling a handler from inside rkb (hooks): no stdin, no place flags. */
export function innerContext(env: NodeJS.ProcessEnv, cwd: string, caller: Caller): CommandContext {
  return { env, cwd, format: "human", place: { with: {} }, stdin: async () => "", stdinPayload: async () => "", stdinIsTTY: false, caller };
}

/**
 * A --report file, checked before the run: a run moves the session cursors (extract) or records
 * its proposals (propose), so a report that cannot be written afterwards could not be had again by rerunning.
 */
export function reportFile(path: string): { write: (text: string) => void } {
  const cannot = (e: unknown) =>
    new RkbError("io", `cannot write the report to ${path}: ${(e as Error).message}`, "pass --report a file in a folder you can write to");
  try {
    mkdirSync(dirname(path), { recursive: true });
    accessSync(dirname(path), constants.W_OK);
  } catch (e) {
    throw cannot(e);
  }
  return {
    write: (text) => {
      try {
        writeAtomic(path, text);
      } catch (e) {
        throw cannot(e);
      }
    },
  };
}
