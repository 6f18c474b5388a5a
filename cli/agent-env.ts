// What an agent harness tells the rkb processes it starts through the environment.

/** The agent session rkb runs in, if the harness names it. */
export function sessionFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return env.RKB_SESSION || env.PI_SESSION_ID || env.CLAUDE_CODE_SESSION_ID || undefined;
}

/** The harness rkb runs under: the extension sets RKB_HARNESS; Claude Code sets CLAUDECODE=1. */
export function harnessFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return env.CLAUDECODE === "1" ? "claude-code" : env.RKB_HARNESS || undefined;
}
