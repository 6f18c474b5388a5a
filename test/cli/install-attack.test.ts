import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { rkb, sandbox } from "../helpers.ts";

// The QA attacks on `rkb install codex|opencode` (issue 25): the user's settings file as people
// keep it (comments, trailing commas, CRLF, a byte-order mark, no final newline, a symlink into a
// dotfiles folder, a read-only file, a broken one) is given back byte for byte by uninstall, kept
// byte for byte but for rkb's entry by install, or refused with an error naming the file and
// leaving it as it was.

const installed = async (env: Record<string, string>, program: string) => {
  const run = await rkb(["install", program, "--format", "json"], { env });
  return { run, actions: run.exit === 0 ? run.json().installs[0].files.map((f: any) => f.action) : [] };
};

describe("rkb install opencode: the user's opencode.jsonc", () => {
  const cases: [string, string, string][] = [
    ["a comment after the last entry", "opencode.jsonc", '{\n  "model": "x/y" // my model\n}\n'],
    ["a trailing comma", "opencode.jsonc", '{\n  "model": "x/y",\n}\n'],
    ["a trailing comma in mcp", "opencode.jsonc", '{\n  "mcp": {\n    "other": { "type": "local", "command": ["other"] },\n  },\n}\n'],
    ["a comment after another server", "opencode.jsonc", '{\n  "mcp": {\n    "other": { "type": "local", "command": ["other"] } // mine\n  }\n}\n'],
    ["CRLF line ends", "opencode.json", '{\r\n  "model": "x/y"\r\n}\r\n'],
    ["a byte-order mark", "opencode.json", '\uFEFF{\n  "model": "x/y"\n}\n'],
    ["no final newline", "opencode.json", '{\n  "model": "x/y"\n}'],
    ["one line", "opencode.json", '{"model":"x/y","mcp":{"other":{"type":"local","command":["other"]}}}'],
  ];
  test.each(cases)("%s: install adds only mcp.rkb, a second install changes nothing, uninstall gives the file back byte for byte", async (_, name, text) => {
    const { env } = sandbox("rkb-install-attack");
    const dir = join(env.XDG_CONFIG_HOME!, "opencode");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, name);
    writeFileSync(file, text);
    const first = await installed(env, "opencode");
    expect({ exit: first.run.exit, stderr: first.run.stderr }).toEqual({ exit: 0, stderr: "" });
    const after = readFileSync(file, "utf8");
    // Every line of the user's is still there as it was (a file on one line is split where rkb's entry goes).
    if (/\n./.test(text)) for (const line of text.split("\n").filter((l) => l.trim())) expect(after.split("\n")).toContain(line);
    if (text.includes("\r\n")) expect(after.replaceAll("\r\n", "")).not.toContain("\n");
    const mtime = statSync(file).mtimeMs;
    expect((await installed(env, "opencode")).actions[0]).toBe("unchanged");
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect((await rkb(["install", "opencode", "--uninstall"], { env })).exit).toBe(0);
    expect(JSON.stringify(readFileSync(file, "utf8"))).toBe(JSON.stringify(text));
  });

  test("a broken file is refused with its name and line, and nothing of rkb's is written", async () => {
    const { env } = sandbox("rkb-install-attack");
    const dir = join(env.XDG_CONFIG_HOME!, "opencode");
    mkdirSync(dir, { recursive: true });
    const text = '{\n  "model": "x/y",\n  "mcp": {\n}\n';
    writeFileSync(join(dir, "opencode.jsonc"), text);
    const run = await rkb(["install", "opencode"], { env });
    expect(run.exit).toBe(1);
    expect(run.stderr).toMatch(/opencode\.jsonc:\d+ is not valid JSON/);
    expect(readFileSync(join(dir, "opencode.jsonc"), "utf8")).toBe(text);
    expect(existsSync(join(dir, "plugins"))).toBe(false);
  });
});

describe("rkb install: a settings file whose shape has no place for rkb's entry", () => {
  const cases: [string, string, string, RegExp][] = [
    ["`mcp` a string", ".config/opencode/opencode.json", '{ "mcp": "off" }\n', /`mcp` is a string, not an object/],
    ["`mcp` null", ".config/opencode/opencode.json", '{\n  "mcp": null\n}\n', /`mcp` is null, not an object/],
    ["`mcp` an array", ".config/opencode/opencode.json", '{ "mcp": [] }\n', /`mcp` is an array, not an object/],
    ["the file an array", ".config/opencode/opencode.json", "[]\n", /the file is an array, not an object/],
    [
      "`mcp` twice (the last counts)",
      ".config/opencode/opencode.json",
      '{ "mcp": {}, "mcp": { "o": { "type": "local", "command": ["o"] } } }\n',
      /more than once/,
    ],
    ["hooks.json's `Stop` an object", ".codex/hooks.json", '{ "hooks": { "Stop": {} } }\n', /`hooks.Stop` is an object, not an array/],
  ];
  test.each(cases)("%s: refused naming the file, nothing of rkb's written, the file as it was", async (_, rel, text, why) => {
    const { env, home } = sandbox("rkb-install-attack");
    const file = join(home, rel);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
    const program = rel.startsWith(".codex") ? "codex" : "opencode";
    const before = files(home);
    const run = await rkb(["install", program], { env });
    expect(run.exit).toBe(1);
    expect(run.stderr).toContain(`~/${rel}`);
    expect(run.stderr).toMatch(why);
    expect(files(home)).toEqual(before);
  });
});

describe("rkb install: something in the way", () => {
  const cases: [string, string, (home: string) => void, string][] = [
    [
      "a file where the plugins folder goes",
      "opencode",
      (h) => writeFileSync(join(h, ".config", "opencode", "plugins"), ""),
      "~/.config/opencode/plugins is a file",
    ],
    ["a file where the program's folder goes", "gemini", (h) => writeFileSync(join(h, ".gemini"), ""), "~/.gemini is a file"],
    [
      "a folder where rkb's skill file goes",
      "codex",
      (h) => mkdirSync(join(h, ".codex", "skills", "rkb", "SKILL.md"), { recursive: true }),
      "~/.codex/skills/rkb/SKILL.md is a folder",
    ],
    [
      "config.toml a link into a dotfiles folder that is not there",
      "codex",
      (h) => symlinkSync(join(h, "dotfiles", "config.toml"), join(h, ".codex", "config.toml")),
      "~/.codex/config.toml is a link to ~/dotfiles/config.toml, which does not exist",
    ],
  ];
  test.each(cases)("%s: refused naming it before anything is written", async (_, program, arrange, words) => {
    const { env, home } = sandbox("rkb-install-attack");
    mkdirSync(join(home, ".codex"));
    mkdirSync(join(home, ".config", "opencode"), { recursive: true });
    writeFileSync(join(home, ".config", "opencode", "opencode.json"), '{\n  "model": "x/y"\n}\n');
    arrange(home);
    const before = files(home);
    const run = await rkb(["install", program], { env });
    expect(run.exit).toBe(1);
    expect(run.stderr).toContain(words);
    expect(run.stderr).not.toContain("bug in rkb");
    expect(files(home)).toEqual(before);
  });
});

test("a folder where rkb's skill file and opencode.json go: uninstall keeps them, doctor names them, neither fails", async () => {
  const { env, home } = sandbox("rkb-install-attack");
  expect((await rkb(["init"], { env })).exit).toBe(0);
  mkdirSync(join(home, ".codex", "skills", "rkb", "SKILL.md"), { recursive: true });
  mkdirSync(join(home, ".config", "opencode", "opencode.json"), { recursive: true });
  const codex = await rkb(["install", "codex", "--uninstall", "--format", "json"], { env });
  expect(codex.exit).toBe(0);
  expect(codex.json().installs[0].files).toContainEqual({ path: "~/.codex/skills/rkb/SKILL.md", action: "kept" });
  expect((await rkb(["install", "opencode", "--uninstall"], { env })).exit).toBe(0);
  const doctor = await rkb(["doctor", "--format", "json"], { env });
  expect(doctor.stderr).not.toContain("bug in rkb");
  expect(doctor.json().checks.find((c: any) => c.check === "install: codex").status).toBe("warn");
  expect(existsSync(join(home, ".codex", "skills", "rkb", "SKILL.md"))).toBe(true);
});

describe("rkb install codex: the user's config.toml", () => {
  const cases: [string, string][] = [
    ["CRLF line ends", 'model = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "other"\r\n'],
    ["no final newline", 'model = "o3"'],
    ["a byte-order mark", '\uFEFFmodel = "o3"\n'],
    ["inline tables and comments", '# mine\nmodel = "o3" # the model\n\n[profiles.fast]\nmodel = "o4-mini"\nshell_environment_policy = { inherit = "core" }\n'],
  ];
  test.each(cases)("%s: install adds only [mcp_servers.rkb], a second install changes nothing, uninstall gives it back byte for byte", async (_, text) => {
    const { env, home } = sandbox("rkb-install-attack");
    mkdirSync(join(home, ".codex"));
    const file = join(home, ".codex", "config.toml");
    writeFileSync(file, text);
    const first = await installed(env, "codex");
    expect({ exit: first.run.exit, stderr: first.run.stderr }).toEqual({ exit: 0, stderr: "" });
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(text.replace(/\r?\n$/, ""))).toBe(true);
    if (text.includes("\r\n")) expect(after.replaceAll("\r\n", "")).not.toContain("\n");
    expect((await installed(env, "codex")).actions).toEqual(Array(6).fill("unchanged"));
    expect((await rkb(["install", "codex", "--uninstall"], { env })).exit).toBe(0);
    expect(JSON.stringify(readFileSync(file, "utf8"))).toBe(JSON.stringify(text));
  });

  test("servers written as one inline table are refused with words that say so, and the file is left as it was", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    mkdirSync(join(home, ".codex"));
    const text = 'mcp_servers = { other = { command = "other" } }\n';
    writeFileSync(join(home, ".codex", "config.toml"), text);
    const run = await rkb(["install", "codex"], { env });
    expect(run.exit).toBe(1);
    expect(run.stderr).toContain("config.toml");
    expect(run.stderr).toContain("[mcp_servers.rkb]");
    expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toBe(text);
    expect(existsSync(join(home, ".codex", "hooks.json"))).toBe(false);
  });
});

describe("rkb install: a settings file the user broke", () => {
  test("config.toml broken on its fifth line: install and uninstall refuse naming that line, and leave it as it was", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    mkdirSync(join(home, ".codex"));
    const text = '# mine\nmodel = "o3"\n\n[profiles.fast]\nmodel = "o4\n';
    writeFileSync(join(home, ".codex", "config.toml"), text);
    for (const args of [
      ["install", "codex"],
      ["install", "codex", "--uninstall"],
    ]) {
      const run = await rkb(args, { env });
      expect(run.exit).toBe(1);
      expect(run.stderr).toContain("~/.codex/config.toml:5 is not valid TOML");
    }
    expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toBe(text);
    expect(existsSync(join(home, ".codex", "hooks.json"))).toBe(false);
  });

  test("doctor with each program's settings broken: each program's check fails naming its file, and every other check still runs", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    expect((await rkb(["init"], { env })).exit).toBe(0);
    for (const program of ["codex", "gemini", "opencode"]) expect((await rkb(["install", program], { env })).exit).toBe(0);
    const healthy = (await rkb(["doctor", "--format", "json"], { env })).json().checks.map((c: any) => c.check);
    writeFileSync(join(home, ".codex", "hooks.json"), '{\n  "hooks": {\n    "Stop": [\n');
    writeFileSync(join(env.XDG_CONFIG_HOME!, "opencode", "opencode.json"), '{ "mcp": { "rkb": ');
    const run = await rkb(["doctor", "--format", "json"], { env });
    const checks = run.json().checks;
    expect(checks.map((c: any) => c.check)).toEqual(healthy);
    const of = (program: string) => checks.find((c: any) => c.check === `install: ${program}`);
    expect(of("codex")).toMatchObject({ status: "fail", detail: expect.stringContaining("~/.codex/hooks.json:4 is not valid JSON") });
    expect(of("opencode")).toMatchObject({ status: "fail", detail: expect.stringContaining("~/.config/opencode/opencode.json:1 is not valid JSON") });
    expect(of("gemini").status).toBe("ok");
    writeFileSync(join(home, ".codex", "config.toml"), "[mcp_servers.rkb\n");
    expect((await rkb(["doctor", "--format", "json"], { env })).json().checks.find((c: any) => c.check === "install: codex")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("~/.codex/config.toml:1 is not valid TOML"),
    });
  });
});

describe("rkb install: settings files a user keeps elsewhere or protects", () => {
  test("a config.toml linked from a dotfiles folder stays a link; the entry goes into the file it points to, and uninstall gives that file back", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    mkdirSync(join(home, "dotfiles"));
    mkdirSync(join(home, ".codex"));
    const text = '# my dotfiles\nmodel = "o3"\n';
    writeFileSync(join(home, "dotfiles", "codex.toml"), text);
    symlinkSync("../dotfiles/codex.toml", join(home, ".codex", "config.toml"));
    expect((await rkb(["install", "codex"], { env })).exit).toBe(0);
    expect(lstatSync(join(home, ".codex", "config.toml")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(home, "dotfiles", "codex.toml"), "utf8")).toContain("[mcp_servers.rkb]");
    expect((await rkb(["install", "codex", "--uninstall"], { env })).exit).toBe(0);
    expect(lstatSync(join(home, ".codex", "config.toml")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(home, "dotfiles", "codex.toml"), "utf8")).toBe(text);
  });

  test("each program's folder linked from a dotfiles folder: install writes through the links, uninstall empties them and leaves the links", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    const links: Record<string, string> = { codex: ".codex", gemini: ".gemini", opencode: ".config/opencode" };
    mkdirSync(join(home, ".config"));
    for (const [program, at] of Object.entries(links)) {
      mkdirSync(join(home, "dotfiles", program), { recursive: true });
      symlinkSync(join(home, "dotfiles", program), join(home, at));
    }
    for (const program of Object.keys(links)) expect((await rkb(["install", program], { env })).exit).toBe(0);
    expect(existsSync(join(home, "dotfiles", "codex", "config.toml"))).toBe(true);
    for (const program of Object.keys(links)) {
      const run = await rkb(["install", program, "--uninstall"], { env });
      expect({ exit: run.exit, stderr: run.stderr }).toEqual({ exit: 0, stderr: "" });
    }
    for (const [program, at] of Object.entries(links)) {
      expect(lstatSync(join(home, at)).isSymbolicLink()).toBe(true);
      expect(readdirSync(join(home, "dotfiles", program))).toEqual([]);
    }
  });

  test("a read-only opencode.json is refused with words that say so, and nothing of rkb's is written", async () => {
    const { env } = sandbox("rkb-install-attack");
    const dir = join(env.XDG_CONFIG_HOME!, "opencode");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "opencode.json");
    const text = '{\n  "model": "x/y"\n}\n';
    writeFileSync(file, text);
    chmodSync(file, 0o444);
    const run = await rkb(["install", "opencode", "--format", "json"], { env });
    expect(run.exit).toBe(1);
    expect(run.json().error.message).toContain("read-only");
    expect(run.json().error.fix).toContain("chmod");
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(existsSync(join(dir, "plugins"))).toBe(false);
    // Made writable, it installs; read-only again, uninstall refuses the same way and keeps it.
    chmodSync(file, 0o644);
    expect((await rkb(["install", "opencode"], { env })).exit).toBe(0);
    chmodSync(file, 0o444);
    const out = await rkb(["install", "opencode", "--uninstall", "--format", "json"], { env });
    expect(out.exit).toBe(1);
    expect(out.json().error.message).toContain("read-only");
    expect(readFileSync(file, "utf8")).toContain('"rkb"');
  });

  test("the user edited rkb's server: doctor says so, install makes it rkb's again, uninstall takes it out and keeps the rest", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    mkdirSync(join(home, ".codex"));
    const file = join(home, ".codex", "config.toml");
    const text = 'model = "o3"\n';
    writeFileSync(file, text);
    expect((await rkb(["install", "codex"], { env })).exit).toBe(0);
    writeFileSync(file, readFileSync(file, "utf8").replace('args = ["mcp"]', 'args = ["mcp"]\nstartup_timeout_sec = 30'));
    const doctor = (await rkb(["doctor", "--format", "json"], { env })).json().checks.find((c: any) => c.check === "install: codex");
    expect(doctor.status).toBe("warn");
    expect(doctor.detail).toContain("[mcp_servers.rkb]");
    expect(doctor.fix).toContain("rkb install codex");
    expect((await rkb(["install", "codex", "--uninstall"], { env })).exit).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

/** Every file, folder and link under `dir` (relative path → hash of its bytes, "folder", or where the link points). */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.set(relative(dir, path), `link to ${readlinkSync(path)}`);
      else if (st.isDirectory()) {
        out.set(relative(dir, path) + "/", "folder");
        walk(path);
      } else out.set(relative(dir, path), createHash("sha256").update(readFileSync(path)).digest("hex"));
    }
  };
  walk(dir);
  return out;
}

describe("rkb install: only the files it owns", () => {
  test("codex, gemini, opencode: install changes exactly the files it reports, all in the program's folder; uninstall gives the home folder back", async () => {
    const { env, home } = sandbox("rkb-install-attack");
    const put = (rel: string, text: string) => {
      mkdirSync(join(home, rel, ".."), { recursive: true });
      writeFileSync(join(home, rel), text);
    };
    put(".codex/config.toml", '# mine\nmodel = "o3"\n');
    put(".codex/AGENTS.md", "my instructions\n");
    put(".gemini/settings.json", '{ "theme": "dark" }\n');
    put(".gemini/GEMINI.md", "my instructions\n");
    put(".config/opencode/opencode.jsonc", '{\n  // mine\n  "model": "x/y"\n}\n');
    put(".config/opencode/AGENTS.md", "my instructions\n");
    put(".codex/skills/mine/SKILL.md", "---\nname: mine\n---\n");
    put(".bashrc", "export A=1\n");
    put(".claude/settings.json", "{}\n");
    const before = files(home);
    const folders: Record<string, string> = { codex: ".codex/", gemini: ".gemini/extensions/rkb/", opencode: ".config/opencode/" };
    let now = before;
    for (const program of ["codex", "gemini", "opencode"]) {
      const run = await rkb(["install", program, "--format", "json"], { env });
      expect(run.exit).toBe(0);
      const written = run.json().installs[0].files.filter((f: any) => f.action === "written");
      const reported = written.map((f: any) => String(f.path).replace(/^~\//, "")); // reported as ~/…
      const after = files(home);
      const changed = [...new Set([...now.keys(), ...after.keys()])].filter((k) => now.get(k) !== after.get(k)).sort();
      expect(changed.filter((c) => !c.endsWith("/"))).toEqual([...reported].sort());
      const folder = folders[program]!;
      expect(changed.filter((c) => !c.startsWith(folder) && !folder.startsWith(c))).toEqual([]); // the folder itself and the ones above it may be made
      now = after;
    }
    for (const program of ["codex", "gemini", "opencode"]) expect((await rkb(["install", program, "--uninstall"], { env })).exit).toBe(0);
    expect(files(home)).toEqual(before);
  });
});
