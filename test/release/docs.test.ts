// The install and CI docs, the example workflow and the release files must agree with each other and
// with the binary: same download location, same file names, commands and flags that rkb accepts.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BIN, ROOT, sandbox } from "../helpers.ts";
import { TARGETS } from "../../scripts/release.ts";

const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");
const docs = read("README.md");
const installSh = read("install.sh");
const releaseYml = read(".github/workflows/release.yml");

const yamlFiles = [
  ...readdirSync(join(ROOT, ".github/workflows")).map((f) => `.github/workflows/${f}`),
  ...readdirSync(join(ROOT, "examples/github-actions")).map((f) => `examples/github-actions/${f}`),
].filter((f) => /\.ya?ml$/.test(f));

describe("workflows", () => {
  for (const file of yamlFiles) {
    test(`${file} is a workflow whose jobs all have steps`, () => {
      const wf = Bun.YAML.parse(read(file)) as any;
      expect(wf.on).toBeDefined();
      const jobs = Object.values(wf.jobs ?? {}) as any[];
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) expect(job.steps.length).toBeGreaterThan(0);
    });
  }

  test("release.yml builds with scripts/release.ts and publishes the binaries, SHA256SUMS and install.sh", () => {
    const steps = (Bun.YAML.parse(releaseYml) as any).jobs.release.steps.map((s: any) => s.run ?? "").join("\n");
    expect(steps).toContain("scripts/release.ts --outdir dist/release");
    expect(steps).toMatch(/gh release create .*dist\/release\/\* install\.sh/);
  });

  test("ci.yml runs .ci/run", () => {
    expect(read(".github/workflows/ci.yml")).toContain("bash .ci/run");
  });
});

describe("docs and install.sh agree", () => {
  test("one GitHub repository everywhere, and install.sh defaults to it", () => {
    const examples = yamlFiles.filter((f) => f.startsWith("examples/")).map(read);
    const slugs = new Set([...[docs, ...examples].join("\n").matchAll(/github\.com\/([\w.-]+\/[\w.-]+)\/releases/g)].map((m) => m[1]));
    expect(slugs.size).toBe(1);
    expect(installSh).toContain(`\${RKB_REPO:-${[...slugs][0]}}`);
  });

  test("the release file names in the docs are the ones release.ts makes", () => {
    const mentioned = new Set([...docs.matchAll(/\brkb-(?:linux|darwin|windows)-\w+(?:\.exe)?/g)].map((m) => m[0]));
    expect([...mentioned].sort()).toEqual(Object.keys(TARGETS).sort());
  });
});

/** `rkb …` command lines from the docs' shell blocks and the examples' run steps. */
function commandLines(): string[] {
  const lines: string[] = [];
  for (const block of docs.matchAll(/```sh\n([\s\S]*?)```/g)) lines.push(...block[1]!.split("\n"));
  for (const file of yamlFiles.filter((f) => f.startsWith("examples/"))) {
    const wf = Bun.YAML.parse(read(file)) as any;
    for (const job of Object.values(wf.jobs) as any[]) for (const step of job.steps) if (step.run) lines.push(...String(step.run).split("\n"));
  }
  return lines.map((l) => l.replace(/#.*/, "").trim()).filter((l) => /^rkb\s/.test(l));
}

const box = sandbox("rkb-docs");
afterAll(() => rmSync(box.dir, { recursive: true, force: true }));
function help(command: string): { exit: number; text: string } {
  const proc = Bun.spawnSync([BIN, command, "--help"], { env: box.env, cwd: box.home });
  return { exit: proc.exitCode, text: proc.stdout.toString() };
}

describe("commands in the docs", () => {
  const uses = new Map<string, Set<string>>();
  for (const line of commandLines()) {
    const words = line.split(/\s+/).slice(1);
    const command = words.find((w) => !w.startsWith("-"));
    if (!command) continue; // `rkb --version`
    const flags = uses.get(command) ?? new Set<string>();
    for (const w of words) if (w.startsWith("--")) flags.add(w.split("=")[0]!);
    uses.set(command, flags);
  }

  test("the docs show extract, eval, install, init and propose", () => {
    for (const command of ["eval", "extract", "init", "install", "propose"]) expect([...uses.keys()]).toContain(command);
  });

  for (const [command, flags] of uses) {
    test(`rkb ${command} exists`, () => {
      expect(help(command).exit).toBe(0);
    });
    test(`rkb ${command} accepts ${[...flags].join(" ") || "no flags"}`, () => {
      const text = help(command).text;
      for (const flag of flags) expect(text).toMatch(new RegExp(`^\\s+${flag}\\b`, "m"));
    });
  }
});
