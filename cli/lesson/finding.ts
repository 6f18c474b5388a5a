// One lint finding. Its own module so that lint.ts (the whole tree) and lint-lesson.ts (one lesson),
// which both report findings, do not import each other for the type.

export interface Finding {
  path: string;
  line?: number;
  severity: "error" | "warning";
  rule: string;
  message: string;
}
