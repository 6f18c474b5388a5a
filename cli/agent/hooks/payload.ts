import type { Static } from "typebox";
import type { TypeBuilder } from "../../commands/_shared.ts";

// The one schema of a hook payload, as the pi/omp and opencode extensions send it (JSON on stdin, or
// flags from a detached capture) and as Claude Code's, Codex CLI's and Gemini CLI's payloads read in
// rkb's terms (claude.ts, codex.ts, gemini.ts). `rkb hook` checks
// every payload against it before a handler sees it; the check is compiled when rkb is built
// (commands/inputs.build.ts), like a command's input. Other keys are let through: a newer extension
// may send more than this binary reads.

export const hookPayloadSchema = (Type: TypeBuilder) =>
  Type.Object(
    {
      session_id: Type.Optional(Type.String()),
      session_file: Type.Optional(Type.String()),
      cwd: Type.Optional(Type.String()),
      harness: Type.Optional(Type.String()),
      /** Why the session ends (pi: quit, new, resume, fork, reload; omp gives none). */
      reason: Type.Optional(Type.String()),
      command: Type.Optional(Type.String()),
      error: Type.Optional(Type.String()),
      /** The command's exit code, for tool-done (Codex and Gemini CLI report every command alike). */
      exit_code: Type.Optional(Type.Number()),
      prompt: Type.Optional(Type.String()),
      stop_hook_active: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: true },
  );

export type HookPayload = Static<ReturnType<typeof hookPayloadSchema>>;
