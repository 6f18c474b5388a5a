// One error record for every failure rkb reports: {error: {code, message, fix}}.
// Exit codes: 0 ok, 1 an error (lint: errors found; sync: nothing pushed), 2 usage, 3 needs the
// user (not an error: a write's outcome, write/requests.ts `NeedsUser`, which only the user may
// decide, with `rkb confirm`). `internal` is a bug in rkb; `config` a broken TOML file.

export type ErrorCode =
  | "not_a_kb"
  | "exists"
  | "git_identity"
  | "git"
  | "io"
  | "not_found"
  | "bad_format"
  | "refused"
  | "invalid_lesson"
  | "locked"
  | "conflict"
  | "config"
  | "internal"
  | "expired"
  | "bad_choice"
  | "needs_terminal"
  | "usage";

export const EXIT = { ok: 0, error: 1, usage: 2, needsUser: 3 } as const;

export class RkbError extends Error {
  readonly code: ErrorCode;
  readonly fix: string;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, fix: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.fix = fix;
    this.extra = extra;
  }

  get exit(): number {
    return this.code === "usage" ? EXIT.usage : EXIT.error;
  }

  /** What scripts and agents read. */
  toRecord(): Record<string, unknown> {
    return { error: { code: this.code, message: this.message, fix: this.fix, ...this.extra } };
  }
}

/** An RkbError as it is; anything else is a bug in rkb, reported as `internal` (with its stack when debugging: RKB_DEBUG). */
export function asRkbError(e: unknown, debug: boolean): RkbError {
  if (e instanceof RkbError) return e;
  const message = e instanceof Error ? e.message : String(e);
  const stack = debug && e instanceof Error && e.stack ? { stack: e.stack } : {};
  return new RkbError("internal", message, "this is a bug in rkb; rerun with RKB_DEBUG=1 and report the output", stack);
}

export function usageError(message: string, fix: string): RkbError {
  return new RkbError("usage", message, fix);
}
