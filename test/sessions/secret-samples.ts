// The secrets corpus (test/reliability/secret-corpus.ts) in the shape the session tests use:
// name → secret, and every sample's line in one text.
import { SECRET_SAMPLES } from "../reliability/secret-corpus.ts";

export const SECRETS: Record<string, string> = Object.fromEntries(SECRET_SAMPLES.map((s) => [s.name, s.secret]));

export const SECRET_TEXT = SECRET_SAMPLES.map((s) => s.line).join("\n");
