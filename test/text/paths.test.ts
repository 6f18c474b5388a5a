import { describe, expect, test } from "bun:test";
import { pathMasker, tildePath } from "../../cli/text/paths.ts";

describe("pathMasker", () => {
  const mask = pathMasker("/Users/alice/src/widgets");
  test.each([
    ["cd /Users/alice/src/widgets && git push", "cd . && git push"],
    ["error in /Users/alice/src/widgets/src/app.ts:3", "error in ./src/app.ts:3"],
    ["'/Users/alice/src/widgets'", "'.'"],
    ["/Users/alice/src/widgets2/x", "~/src/widgets2/x"],
    ["npm error path /Users/alice/.npm/_logs/x.log", "npm error path ~/.npm/_logs/x.log"],
    ["see /home/bob/notes.txt and C:\\Users\\carol\\build.ps1", "see ~/notes.txt and ~\\build.ps1"],
    ["~/.claude/projects/-Users-alice-src-widgets/s.jsonl", "~/.claude/projects/-~-src-widgets/s.jsonl"],
    ["/home/$USER/x and /homebrew/bin and /tmp/home/x", "/home/$USER/x and /homebrew/bin and /tmp/home/x"],
    ["no paths here", "no paths here"],
  ])("%p → %p", (text, want) => {
    expect(mask(text)).toBe(want);
  });

  test("a working directory that is a home itself is `~`, not `.`", () => {
    expect(pathMasker("/home/bob")("ls /home/bob/x")).toBe("ls ~/x");
  });

  test("without a working directory, homes only", () => {
    expect(pathMasker()("cd /home/dev/proj && make")).toBe("cd ~/proj && make");
  });

  test("the machine's home where it has no home's usual name (/root, a CI runner's): `~` too, the working directory below it `.`", () => {
    expect(pathMasker(undefined, "/root")("cat /root/.netrc /rootfs/x /root")).toBe("cat ~/.netrc /rootfs/x ~");
    expect(pathMasker("/github/home/app", "/github/home/")("cd /github/home/app/src; ls /github/home/.cache")).toBe("cd ./src; ls ~/.cache");
    expect(pathMasker("/root", "/root")("ls /root/x")).toBe("ls ~/x");
  });
});

test("tildePath: the machine's home as ~", () => {
  expect(tildePath("/srv/me/.pi/agent/sessions/a.jsonl", "/srv/me")).toBe("~/.pi/agent/sessions/a.jsonl");
  expect(tildePath("/home/ana/.claude/projects/-home-ana-app/a.jsonl", undefined)).toBe("~/.claude/projects/-~-app/a.jsonl");
});
