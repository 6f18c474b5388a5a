// settings.ts through the binary: checkouts.toml places a checkout, config.toml turns the stop
// nudge on, and a broken file of either is a `config` error naming the file and the line.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookErrorsSince } from "../../cli/machine/state.ts";
import { userConfig } from "../../cli/machine/settings.ts";
import { gitIn, kbFromFixture, rkb, sandbox } from "../helpers.ts";

describe("checkouts.toml", () => {
  test("places a checkout that neither its remote nor its folder name does; a broken one is a config error", async () => {
    const box = sandbox();
    kbFromFixture(box);
    const repo = join(box.dir, "work", "tool-fork");
    mkdirSync(join(repo, "src"), { recursive: true });
    gitIn(repo, box.env, "init", "-q");
    const status = async () => rkb(["--format", "json"], { env: box.env, cwd: join(repo, "src") });
    expect((await status()).json().project).toBeNull();
    const state = join(box.env.XDG_STATE_HOME!, "rkb");
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, "checkouts.toml"), `imgtool = [${JSON.stringify(join(box.dir, "work"))}]\nother = 3\n`);
    expect((await status()).json().project).toEqual({ name: "imgtool", rule: `checkout ${repo}` });
    expect((await rkb(["--format", "json"], { env: { ...box.env, RKB_PROJECT: "imgtool" }, cwd: box.dir })).json().project).toEqual({
      name: "imgtool",
      rule: "env",
    });

    writeFileSync(join(state, "checkouts.toml"), `imgtool = [\n"/a",\n"/b"\n`);
    const broken = await status();
    expect(broken.exit).toBe(1);
    const error = broken.json().error;
    expect(error.code).toBe("config");
    expect(error.message).toContain(join(state, "checkouts.toml"));
    expect(error.fix).toContain("checkouts.toml");
  });
});

describe("config.toml", () => {
  test("read once for every key, with a clear error when broken", () => {
    const box = sandbox();
    expect(userConfig(box.env)).toEqual({ stopNudge: false });
    const dir = join(box.env.XDG_CONFIG_HOME!, "rkb");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.toml"), "[hooks]\nstop_nudge = true\n");
    expect(userConfig(box.env)).toEqual({ stopNudge: true });
    writeFileSync(join(dir, "config.toml"), '[hooks]\nstop_nudge = "yes"\n');
    expect(() => userConfig(box.env)).toThrow(/stop_nudge` must be true or false/);
    writeFileSync(join(dir, "config.toml"), "[hooks\nstop_nudge = true\n");
    expect(() => userConfig(box.env)).toThrow(join(dir, "config.toml"));
  });

  test("a broken config.toml makes the stop hook log the file, and stay silent", async () => {
    const box = sandbox();
    const dir = join(box.env.XDG_CONFIG_HOME!, "rkb");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.toml"), "[hooks]\nstop_nudge = \n");
    const r = await rkb(["hook", "stop"], { env: box.env, stdin: JSON.stringify({ session_id: "s", harness: "pi" }) });
    expect(r.exit).toBe(0);
    expect(r.stdout).toBe("");
    const [error] = hookErrorsSince(box.env, 0);
    expect(error!.event).toBe("stop");
    expect(error!.error).toContain(join(dir, "config.toml"));
  });
});
