// What the benchmarks share: an environment that keeps rkb's home, state, cache and config inside the
// bench's work folder (nothing of the user's is read or written), and the median of timed runs.
import { join } from "node:path";

export function isolatedEnv(work: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: work,
    XDG_CACHE_HOME: join(work, "cache"),
    XDG_STATE_HOME: join(work, "state"),
    XDG_CONFIG_HOME: join(work, "config"),
  };
}

/** A git identity for the commits a bench or script makes in its own repositories. */
export const BENCH_IDENTITY = {
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
