// What an agent harness tells the rkb processes it starts through the environment.

/** The agent session rkb runs in, if the harness names it. */
export function sessionFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return env.RKB_SESSION || env.PI_SESSION_ID || env.CLAUDE_CODE_SESSION_ID || undefined;
}
