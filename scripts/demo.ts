// `npm run demo`: builds rkb, creates a throwaway knowledge base from the demo lessons, searches it
// the way an agent would after a failed command, shows the lesson, and mines a demo session.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bin = join(root, "dist", "rkb");
const work = mkdtempSync(join(tmpdir(), "rkb-demo-"));
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  RKB_HOME: join(work, "kb"),
  XDG_STATE_HOME: join(work, "state"),
  XDG_CACHE_HOME: join(work, "cache"),
  XDG_CONFIG_HOME: join(work, "config"),
  GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? "rkb demo",
  GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? "demo@example.invalid",
  GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? "rkb demo",
  GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? "demo@example.invalid",
};

function rkb(args: string[], opts: { stdin?: string; echo?: boolean } = {}): string {
  if (opts.echo !== false) console.log(`\n$ rkb ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
  const proc = Bun.spawnSync([bin, ...args], { env, cwd: work, stdin: opts.stdin !== undefined ? Buffer.from(opts.stdin) : "ignore" });
  const out = proc.stdout.toString();
  if (opts.echo !== false) process.stdout.write(out + proc.stderr.toString());
  if (proc.exitCode !== 0) throw new Error(`rkb ${args.join(" ")} exited with ${proc.exitCode}: ${proc.stderr.toString()}`);
  return out;
}

console.log(`demo knowledge base: ${env.RKB_HOME}`);
rkb(["init"]);
const lessonsDir = join(root, "demo", "lessons");
let added = 0;
for (const topic of readdirSync(lessonsDir).sort()) {
  for (const file of readdirSync(join(lessonsDir, topic)).sort()) {
    rkb(["add", "--topic", topic], { stdin: readFileSync(join(lessonsDir, topic, file), "utf8"), echo: false });
    added++;
  }
}
console.log(`\nadded ${added} demo lessons (one git commit each)`);
rkb(["list"]);
const found = JSON.parse(rkb(["search", "undefined reference to png_create_read_struct", "--format", "json"], { echo: false }));
rkb(["search", "undefined reference to png_create_read_struct"]);
if (!found.results?.length) throw new Error("the demo search found nothing");
rkb(["show", found.results[0].id]);
rkb(["extract", join(root, "demo", "sessions")]);
rkb(["inbox"]);
const items = JSON.parse(rkb(["inbox", "--format", "json"], { echo: false })).items;
if (!items?.length) throw new Error("the demo session left nothing in the inbox");
rkb(["inbox", "show", items[0].id]);
console.log(`\nDone. Everything lives in ${work}; delete it when you are finished.`);
