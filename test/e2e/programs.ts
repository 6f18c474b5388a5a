// Real Codex CLI, Gemini CLI and opencode, each run headless once per call against its scripted
// fake model on 127.0.0.1, with the sandbox's HOME (and XDG folders) so nothing leaks between tests
// or into the developer's setup. Each `configure…` writes the program's own settings the way a user
// would have them before `rkb install`: a model provider, and other entries with comments that the
// install must keep.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENTS_DIR } from "./agent.ts";

const modules = join(AGENTS_DIR, "node_modules");

export const CODEX = join(modules, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex");
export const GEMINI = join(modules, "@google", "gemini-cli", "bundle", "gemini.js");
export const OPENCODE = join(modules, "opencode-linux-x64", "bin", "opencode");

export const programsInstalled = () => [CODEX, GEMINI, OPENCODE].every((p) => existsSync(p));

export interface Ran {
  stdout: string;
  stderr: string;
  exit: number;
}

async function run(argv: string[], opts: { env: Record<string, string>; cwd: string; ms?: number }): Promise<Ran> {
  const proc = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.ms ?? 60_000);
  const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (exit !== 0) throw new Error(`${argv[0]} exited ${exit}: ${stderr.slice(-2000)}\n${stdout.slice(-2000)}`);
  return { stdout, stderr, exit };
}

// ---- Codex CLI ----

/** ~/.codex/config.toml as a user has it: the model provider (the fake), a comment, another MCP server. */
export function codexConfig(baseUrl: string): string {
  return `# My Codex settings
model = "fake-model"
model_provider = "fake"
# Keep the shell's PATH as it is (a login shell resets it from /etc/profile).
allow_login_shell = false

[model_providers.fake]
name = "Fake"
base_url = "${baseUrl}"
wire_api = "responses"

# A server of my own, which rkb must leave alone.
[mcp_servers.other]
command = "other-mcp"
args = ["--quiet"]
`;
}

export function configureCodex(home: string, baseUrl: string): string {
  const dir = join(home, ".codex");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "config.toml");
  writeFileSync(path, codexConfig(baseUrl));
  return path;
}

/**
 * One `codex exec`. Hooks run without Codex's trust review (`--dangerously-bypass-hook-trust`, meant
 * for automation that vets its hooks: these are rkb's own); the other MCP server of the user's
 * settings does not exist here and is turned off for the run.
 */
export function codexExec(prompt: string, opts: { env: Record<string, string>; cwd: string }, extra: string[] = []): Promise<Ran> {
  const args = ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"];
  return run([CODEX, ...args, "-c", "mcp_servers.other.enabled=false", ...extra, prompt], opts);
}

// ---- Gemini CLI ----

/** ~/.gemini/settings.json as a user has it (Gemini CLI reads comments in it). */
export const GEMINI_SETTINGS = `{
  // Sign in with an API key (the fake model takes any).
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "ui": { "theme": "Default" }
}
`;

export function configureGemini(home: string): string {
  const dir = join(home, ".gemini");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "settings.json");
  writeFileSync(path, GEMINI_SETTINGS);
  return path;
}

/** One `gemini -p` in YOLO mode (headless, the shell tool is offered only then), on a fixed model (no router). */
export function geminiPrompt(prompt: string, baseUrl: string, opts: { env: Record<string, string>; cwd: string }): Promise<Ran> {
  const env = { ...opts.env, GEMINI_API_KEY: "fake-key", GOOGLE_GEMINI_BASE_URL: baseUrl, GEMINI_CLI_TRUST_WORKSPACE: "true", NO_COLOR: "1" };
  return run(["node", GEMINI, "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"], { ...opts, env });
}

// ---- opencode ----

/** ~/.config/opencode/opencode.jsonc as a user has it: the provider, a comment, another MCP server. */
export function opencodeConfig(baseUrl: string): string {
  return `{
  "$schema": "https://opencode.ai/config.json",
  // The model: a provider speaking the OpenAI chat API.
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": { "baseURL": "${baseUrl}", "apiKey": "fake-key" },
      "models": { "fake-model": { "name": "Fake" } }
    }
  },
  "model": "fake/fake-model",
  "mcp": {
    // A server of my own, which rkb must leave alone.
    "other": { "type": "local", "command": ["other-mcp"], "enabled": false }
  }
}
`;
}

export function configureOpencode(configHome: string, baseUrl: string): string {
  const dir = join(configHome, "opencode");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "opencode.jsonc");
  writeFileSync(path, opencodeConfig(baseUrl));
  return path;
}

/**
 * One `opencode run`. opencode installs `@opencode-ai/plugin` into its config folder on every start,
 * and waits for it before it loads plugins; npm told to stay offline fails at once (opencode logs
 * "background dependency install failed" and goes on), where a registry that does not answer
 * would hold the start up for a minute of retries.
 */
export function opencodeRun(prompt: string, opts: { env: Record<string, string>; cwd: string }): Promise<Ran> {
  const env = {
    ...opts.env,
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    npm_config_offline: "true",
  };
  return run([OPENCODE, "run", prompt], { ...opts, env });
}
