// Programs that do one job in different ways: a message one of them prints (`ReferenceError:
// window is not defined`, `exec format error`, node-gyp's `find Python`) may come from another,
// and the fix for one (jest.config.js, `docker buildx`, `npm config set`) is not the other's. A
// fact about the tools, like the launchers table: a lesson about one member answers another's
// failure only when it names that one too.
const FAMILIES: string[][] = [
  ["jest", "vitest", "mocha", "jasmine"],
  ["docker", "podman", "nerdctl"],
  ["npm", "yarn", "pnpm"],
  ["pip", "pipenv", "poetry", "uv"],
];

const FAMILY_OF = new Map<string, string[]>();
for (const family of FAMILIES) for (const name of family) FAMILY_OF.set(name, family);

/** The other members of a program's family (empty when it has none). */
export function familyOthers(program: string): string[] {
  return (FAMILY_OF.get(program) ?? []).filter((p) => p !== program);
}
