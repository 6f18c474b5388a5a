import type { Finding } from "../lesson/finding.ts";
import { EXIT, RkbError, usageError } from "../base/errors.ts";
import { findingLine } from "./findings.ts";
import { formatFromEnv } from "../machine/settings.ts";

// TOON is the library's own encoding, so its decoder reads back exactly the JSON data. The encoder
// is loaded only when TOON is asked for: every rkb call is a new process.
// The data goes through JSON first so that TOON holds exactly what JSON does (an undefined field is
// left out, not written as null).
const toon = async (data: unknown) => (await import("@toon-format/toon")).encode(JSON.parse(JSON.stringify(data ?? null)), { indent: 2 });

export type Format = "human" | "json" | "toon";

/** What every command returns: data for scripts and agents, text for people, an exit code. */
export interface Output {
  data: unknown;
  human: string;
  exit?: number;
  /** Print the human text even for TOON (templates, raw file text). */
  raw?: boolean;
  /** A write that waits for the user's decision: a person who ran it at a terminal may answer at once (dispatch). */
  ask?: { request: string; question: string; options: string[] };
}

export function resolveFormat(flags: { format?: string; toon?: boolean }, env = process.env): Format {
  if (flags.toon) {
    if (flags.format && flags.format !== "toon") {
      throw usageError("--toon conflicts with --format " + flags.format, "use either --toon or --format json|human");
    }
    return "toon";
  }
  const chosen = flags.format ?? formatFromEnv(env);
  if (chosen === undefined || chosen === "") return "human";
  if (chosen === "human" || chosen === "json" || chosen === "toon") return chosen;
  if (flags.format) throw usageError(`unknown format \`${chosen}\``, "use --format human, json or toon");
  throw new RkbError("bad_format", `RKB_FORMAT is \`${chosen}\``, "set RKB_FORMAT to human, json or toon, or unset it");
}

export async function renderOutput(out: Output, format: Format): Promise<{ stdout: string; stderr: string; exit: number }> {
  const exit = out.exit ?? EXIT.ok;
  if (format === "json") return { stdout: JSON.stringify(out.data) + "\n", stderr: "", exit };
  if (format === "toon" && !out.raw) return { stdout: (await toon(out.data)) + "\n", stderr: "", exit };
  const text = out.human.endsWith("\n") || out.human === "" ? out.human : out.human + "\n";
  return { stdout: text, stderr: "", exit };
}

/** Errors go to stdout as a record for scripts and agents, to stderr as two lines for people. */
export async function renderError(err: RkbError, format: Format): Promise<{ stdout: string; stderr: string; exit: number }> {
  if (format === "json") return { stdout: JSON.stringify(err.toRecord()) + "\n", stderr: "", exit: err.exit };
  if (format === "toon") return { stdout: (await toon(err.toRecord())) + "\n", stderr: "", exit: err.exit };
  let text = `error: ${err.message}\nfix: ${err.fix}\n`;
  const findings = err.extra.findings as Finding[] | undefined;
  // The message names the first finding; one finding alone would be said twice.
  const said = findings?.length === 1 && err.message.includes(findings[0]!.message);
  if (findings && !said) for (const f of findings) text += `  ${findingLine(f)}\n`;
  const files = err.extra.files as string[] | undefined;
  if (files) for (const f of files) text += `  ${f}\n`;
  if (typeof err.extra.stack === "string") text += err.extra.stack + "\n";
  return { stdout: "", stderr: text, exit: err.exit };
}
