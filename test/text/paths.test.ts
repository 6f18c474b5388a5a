import { describe, expect, test } from "bun:test";
import { personalMasker, tildePath } from "../../cli/text/paths.ts";

describe("personalMasker", () => {
  const mask = personalMasker("/Users/alice/src/widgets");
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
    // a person's address; not an SSH remote, not a decorator on a diff's line
    ['maintainers "Hamid <hamid@feedmerge.dev>"', 'maintainers "Hamid <[masked:email]>"'],
    ["git clone git@github.com:acme/app.git", "git clone git@github.com:acme/app.git"],
    ["+@pytest.fixture", "+@pytest.fixture"],
  ])("%p → %p", (text, want) => {
    expect(mask(text)).toBe(want);
  });

  test("a working directory that is a home itself is `~`, not `.`", () => {
    expect(personalMasker("/home/bob")("ls /home/bob/x")).toBe("ls ~/x");
  });

  test("without a working directory, homes only", () => {
    expect(personalMasker()("cd /home/dev/proj && make")).toBe("cd ~/proj && make");
  });

  test("the machine's home where it has no home's usual name (/root, a CI runner's): `~` too, the working directory below it `.`", () => {
    expect(personalMasker(undefined, "/root")("cat /root/.netrc /rootfs/x /root")).toBe("cat ~/.netrc /rootfs/x ~");
    expect(personalMasker("/github/home/app", "/github/home/")("cd /github/home/app/src; ls /github/home/.cache")).toBe("cd ./src; ls ~/.cache");
    expect(personalMasker("/root", "/root")("ls /root/x")).toBe("ls ~/x");
  });
});

test("tildePath: the machine's home as ~", () => {
  expect(tildePath("/srv/me/.pi/agent/sessions/a.jsonl", "/srv/me")).toBe("~/.pi/agent/sessions/a.jsonl");
  expect(tildePath("/home/ana/.claude/projects/-home-ana-app/a.jsonl", undefined)).toBe("~/.claude/projects/-~-app/a.jsonl");
});
