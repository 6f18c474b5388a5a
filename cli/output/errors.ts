// One error record for every failure rkb reports: {error: {code, message, fix}}.
// Exit codes: 0 ok, 1 error or findings, 2 usage, 3 needs the user.

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

  toRecord(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, fix: this.fix, ...this.extra } };
  }
}

export function usageError(message: string, fix: string): RkbError {
  return new RkbError("usage", message, fix);
}
