// `rkb install codex|gemini|opencode [--uninstall]` with the compiled binary: what it writes, what it
// refuses, and what doctor says. The end-to-end tests run the real programs on what this writes.
import { describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installChecks } from "../../cli/install/index.ts";
import { BIN, rkb, sandbox } from "../helpers.ts";

const CODEX_CONFIG = `# mine
model = "o3"

[mcp_servers.other]
command = "other"
`;

const actions = (run: { json: () => any }) => run.json().installs[0].files.map((f: any) => f.action);
const doctorCheck = async (env: Record<string, string>, program: string) =>
  (await rkb(["doctor", "--format", "json"], { env })).json().checks.find((c: any) => c.check === `install: ${program}`);

describe("rkb install codex", () => {
  test("adds its table to config.toml and its groups to hooks.json, idempotently; uninstall gives both back", async () => {
    const { env, home } = sandbox();
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "config.toml"), CODEX_CONFIG);
    const hooks = '{\n  "hooks": {\n    "Stop": [{ "hooks": [{ "type": "command", "command": "mine" }] }]\n  }\n}\n';
    writeFileSync(join(home, ".codex", "hooks.json"), hooks);
    const first = await rkb(["install", "codex", "--format", "json"], { env });
    expect(first.exit).toBe(0);
    expect(actions(first)).toEqual(["written", "written", "written", "written", "written", "written"]);
    const config = readFileSync(join(home, ".codex", "config.toml"), "utf8");
    expect(config.startsWith(CODEX_CONFIG)).toBe(true);
    expect(Bun.TOML.parse(config)).toMatchObject({
      mcp_servers: { other: { command: "other" }, rkb: { command: BIN, args: ["mcp"], env: { RKB_HARNESS: "codex" } } },
    });
    const groups = JSON.parse(readFileSync(join(home, ".codex", "hooks.json"), "utf8")).hooks;
    expect(groups.Stop[0].hooks[0].command).toBe("mine");
    expect(groups.Stop[1].hooks[0].command).toBe(`${BIN} hook stop --harness codex`);
    expect(groups.PostToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: `${BIN} hook tool-done --harness codex`, timeout: 5 }] }]);
    expect(readFileSync(join(home, ".codex", "skills", "rkb-retro", "SKILL.md"), "utf8")).toStartWith("---\nname: rkb-retro\n");

    expect(actions(await rkb(["install", "codex", "--format", "json"], { env }))).toEqual(Array(6).fill("unchanged"));
    expect((await rkb(["install", "codex", "--uninstall"], { env })).exit).toBe(0);
    expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toBe(CODEX_CONFIG);
    expect(readFileSync(join(home, ".codex", "hooks.json"), "utf8")).toBe(hooks);
    expect(existsSync(join(home, ".codex", "skills"))).toBe(false);
  });

  test.each([
    [
      "an MCP server named rkb that runs something else",
      `[mcp_servers.rkb]\ncommand = "rkb-proxy"\nargs = ["serve"]\n`,
      /has \[mcp_servers\.rkb\], and rkb did not write it/,
    ],
    ["rkb's server written as dotted keys", `mcp_servers.rkb.command = "rkb"\nmcp_servers.rkb.args = ["mcp"]\n`, /cannot edit line by line/],
    ["a broken config.toml", `model = "o3\n`, /config\.toml:1 is not valid TOML/],
  ])("refuses %s and writes nothing", async (_, text, message) => {
    const { env, home } = sandbox();
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "config.toml"), text);
    const run = await rkb(["install", "codex"], { env });
    expect(run.exit).not.toBe(0);
    expect(run.stderr).toMatch(message);
    expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toBe(text);
    expect(existsSync(join(home, ".codex", "hooks.json"))).toBe(false);
    expect(existsSync(join(home, ".codex", "skills"))).toBe(false);
  });
});

describe("rkb install gemini", () => {
  test("writes one extension folder, and refuses one of that name it did not write", async () => {
    const { env, home } = sandbox();
    expect((await rkb(["install", "gemini"], { env })).exit).toBe(0);
    const manifest = JSON.parse(readFileSync(join(home, ".gemini", "extensions", "rkb", "gemini-extension.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "rkb", mcpServers: { rkb: { command: BIN, args: ["mcp"] } } });
    const hooks = JSON.parse(readFileSync(join(home, ".gemini", "extensions", "rkb", "hooks", "hooks.json"), "utf8")).hooks;
    expect(Object.keys(hooks)).toEqual(["SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"]);
    expect(hooks.AfterTool[0]).toMatchObject({ matcher: "^run_shell_command$", hooks: [{ timeout: 5000 }] });
    expect(readFileSync(join(home, ".gemini", "extensions", "rkb", "commands", "rkb-retro.toml"), "utf8")).toContain("{{args}}");
    expect((await rkb(["install", "gemini", "--uninstall"], { env })).exit).toBe(0);
    expect(existsSync(join(home, ".gemini", "extensions"))).toBe(false);

    mkdirSync(join(home, ".gemini", "extensions", "rkb"), { recursive: true });
    writeFileSync(join(home, ".gemini", "extensions", "rkb", "gemini-extension.json"), '{"name": "rkb", "version": "9"}\n');
    const refused = await rkb(["install", "gemini"], { env });
    expect(refused.exit).not.toBe(0);
    expect(refused.stderr).toContain("was not written by rkb");
    expect(existsSync(join(home, ".gemini", "extensions", "rkb", "hooks"))).toBe(false);
  });
});

describe("rkb install opencode", () => {
  test("without a config file makes opencode.json, and uninstall removes it again", async () => {
    const { env } = sandbox();
    const dir = join(env.XDG_CONFIG_HOME!, "opencode");
    expect((await rkb(["install", "opencode"], { env })).exit).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "opencode.json"), "utf8"))).toEqual({
      $schema: "https://opencode.ai/config.json",
      mcp: { rkb: { type: "local", command: [BIN, "mcp"], enabled: true, environment: { RKB_HARNESS: "opencode" } } },
    });
    const plugin = readFileSync(join(dir, "plugins", "rkb.ts"), "utf8");
    expect(plugin).toContain(`const RKB: string = ${JSON.stringify(BIN)};`);
    expect((await rkb(["install", "opencode", "--uninstall"], { env })).exit).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  test("a server named rkb in the user's config that is not rkb's is refused", async () => {
    const { env } = sandbox();
    const dir = join(env.XDG_CONFIG_HOME!, "opencode");
    mkdirSync(dir, { recursive: true });
    const text = '{ "mcp": { "rkb": { "type": "remote", "url": "https://example.invalid" } } }\n';
    writeFileSync(join(dir, "opencode.json"), text);
    const run = await rkb(["install", "opencode"], { env });
    expect(run.exit).not.toBe(0);
    expect(run.stderr).toContain("has mcp.rkb, and rkb did not write it");
    expect(readFileSync(join(dir, "opencode.json"), "utf8")).toBe(text);
  });
});

describe("rkb doctor", () => {
  test("knows each program: not found, set up without rkb, installed, and a binary that is gone", async () => {
    const { env, home, dir } = sandbox();
    expect(await doctorCheck(env, "opencode")).toMatchObject({ status: "ok", detail: expect.stringContaining("opencode not found") });
    mkdirSync(join(home, ".gemini"));
    expect(await doctorCheck(env, "gemini")).toMatchObject({ status: "warn", detail: expect.stringContaining("rkb is not installed") });
    const copy = join(dir, "bin-copy", "rkb");
    mkdirSync(join(copy, ".."));
    copyFileSync(BIN, copy);
    chmodSync(copy, 0o755);
    expect(Bun.spawnSync([copy, "install", "gemini"], { env }).exitCode).toBe(0);
    expect(await doctorCheck(env, "gemini")).toMatchObject({ status: "warn", detail: expect.stringContaining("differs from what this rkb writes") });
    rmSync(join(copy, ".."), { recursive: true });
    // A doctor that cannot compare texts (run from source) still sees the binary is gone.
    expect(installChecks(env, undefined).find((c) => c.check === "install: gemini")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`runs ${copy}, which does not exist`),
    });
    expect((await rkb(["install", "gemini"], { env })).exit).toBe(0);
    expect(await doctorCheck(env, "gemini")).toMatchObject({ status: "ok" });
  });
});
