import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, gitIn, kbFromFixture, rkb, sandbox, type Sandbox } from "../helpers.ts";

// `rkb label` on the compiled binary over the fixture kb: a kb.toml [labels] value set on or removed
// from a lesson or a folder note, one commit each; a looser effective label waits for the user's
// `rkb confirm` on their own terminal (here a pseudo-terminal from `script`).

const REBASE = "general/git/rebase-needs-a-clean-tree.md";

function box(): Sandbox {
  const b = sandbox("rkb-label");
  kbFromFixture(b);
  return b;
}

const json = (b: Sandbox, args: string[]) => rkb([...args, "--format", "json"], { env: b.env });
const read = (b: Sandbox, rel: string) => readFileSync(join(b.kb, rel), "utf8");
const head = (b: Sandbox) => gitIn(b.kb, b.env, "rev-parse", "HEAD").trim();
const subject = (b: Sandbox) => gitIn(b.kb, b.env, "log", "-1", "--format=%s").trim();
const status = (b: Sandbox) => gitIn(b.kb, b.env, "status", "--porcelain", "--untracked-files=all");

function confirmOnTerminal(b: Sandbox, id: string, choice: string, answer: string): { out: string; exit: number } {
  const cmd = `${BIN} confirm ${id} --choice '${choice}' --format json`;
  const p = Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], { env: b.env, stdin: Buffer.from(answer + "\n"), stdout: "pipe", stderr: "pipe" });
  return { out: p.stdout.toString(), exit: p.exitCode ?? 1 };
}

describe("rkb label", () => {
  test("a stricter label on a lesson is one commit; the same again is unchanged; the body stays byte for byte", async () => {
    const b = box();
    const before = read(b, REBASE);
    const start = head(b);
    const r = await json(b, ["label", "3c0ffee001", "sensitivity=confidential"]);
    expect(r.exit).toBe(0);
    expect(r.json()).toMatchObject({ status: "written", action: "label", id: "3c0ffee001", path: REBASE });
    expect(r.json().notes).toContain("its effective sensitivity is confidential (was internal)");
    expect(gitIn(b.kb, b.env, "rev-list", "--count", `${start}..HEAD`).trim()).toBe("1");
    expect(subject(b)).toBe("label(general/git): sensitivity confidential [3c0ffee001]");
    expect(gitIn(b.kb, b.env, "show", "--name-only", "--format=", "HEAD").trim()).toBe(REBASE);
    const after = read(b, REBASE);
    expect(after).toContain("labels:\n  sensitivity: confidential\n---\n");
    expect(after.slice(after.indexOf("\n---\n"))).toBe(before.slice(before.indexOf("\n---\n")));
    const again = await json(b, ["label", "3c0ffee001", "sensitivity=confidential"]);
    expect(again.json()).toMatchObject({ status: "unchanged", id: "3c0ffee001" });
    expect((await json(b, ["lint"])).exit).toBe(0);
    // The change log reads the subject, and names the lesson.
    const changes = (await json(b, ["changes"])).json();
    expect(JSON.stringify(changes)).toContain("3c0ffee001");
  });

  test("a looser label asks (exit 3, nothing written) and is written once the person confirms on their terminal", async () => {
    const b = box();
    const start = head(b);
    const asked = await json(b, ["label", "3c0ffee001", "sensitivity=public"]);
    expect(asked.exit).toBe(3);
    const err = asked.json();
    expect(err.status).toBe("needs_user");
    expect(err.options).toEqual(["loosen sensitivity to public", "cancel"]);
    expect(err.question).toContain("public instead of internal");
    expect(head(b)).toBe(start);
    expect(status(b)).toBe("");
    const confirmed = confirmOnTerminal(b, err.request, "loosen sensitivity to public", "yes");
    expect(confirmed.exit).toBe(0);
    expect(JSON.parse(confirmed.out.slice(confirmed.out.indexOf("{")))).toMatchObject({ status: "written", action: "label", id: "3c0ffee001" });
    expect(subject(b)).toBe("label(general/git): sensitivity public [3c0ffee001]");
    expect(read(b, REBASE)).toContain("labels:\n  sensitivity: public\n");
    // Removing a lesson's own stricter label loosens it too: that asks as well.
    expect((await json(b, ["label", "3c0ffee001", "sensitivity=confidential"])).exit).toBe(0);
    const unset = await json(b, ["label", "3c0ffee001", "sensitivity", "--unset"]);
    expect(unset.exit).toBe(3);
    expect(unset.json().options[0]).toBe("loosen sensitivity to internal");
    expect(status(b)).toBe("");
  });

  test("a folder's label lives in its README.md folder note, written when missing, removed when left empty", async () => {
    const b = box();
    expect(existsSync(join(b.kb, "general/git/README.md"))).toBe(false);
    const set = await json(b, ["label", "general/git", "sensitivity=confidential"]);
    expect(set.exit).toBe(0);
    expect(set.json()).toMatchObject({ status: "written", action: "label", path: "general/git/README.md" });
    expect(read(b, "general/git/README.md")).toBe("---\nlabels:\n  sensitivity: confidential\n---\n");
    expect(subject(b)).toBe("label(general/git): sensitivity confidential");
    expect((await json(b, ["lint"])).exit).toBe(0);
    // A lesson's own label beats its folder's; the folder's value is what the lesson loses when unset.
    const lesson = await json(b, ["label", "3c0ffee001", "sensitivity=internal"]);
    expect(lesson.exit).toBe(3);
    // An existing note keeps its other keys and its prose.
    const cpp = read(b, "general/cpp/README.md");
    expect((await json(b, ["label", "general/cpp", "sensitivity=confidential"])).exit).toBe(0);
    expect(read(b, "general/cpp/README.md")).toBe(cpp.replace("---\n\n", "labels:\n  sensitivity: confidential\n---\n\n"));
    // Unsetting the folder's stricter label loosens its lessons: it asks; after cancel nothing changed.
    const unset = await json(b, ["label", "general/git", "sensitivity", "--unset"]);
    expect(unset.exit).toBe(3);
    const cancel = await json(b, ["confirm", unset.json().request, "--choice", "cancel"]);
    expect(cancel.json().status).toBe("cancelled");
    expect(read(b, "general/git/README.md")).toContain("confidential");
    const done = confirmOnTerminal(
      b,
      (await json(b, ["label", "general/git", "sensitivity", "--unset"])).json().request,
      "loosen sensitivity to internal",
      "yes",
    );
    expect(done.exit).toBe(0);
    expect(existsSync(join(b.kb, "general/git/README.md"))).toBe(false);
    expect(subject(b)).toBe("label(general/git): sensitivity unset");
    expect(status(b)).toBe("");
  });

  test("refusals write nothing: undeclared key, value not allowed, unknown id or folder, malformed label", async () => {
    const b = box();
    const start = head(b);
    const value = await json(b, ["label", "3c0ffee001", "sensitivity=secret"]);
    expect(value.exit).toBe(1);
    expect(value.json().error.code).toBe("refused");
    expect(value.json().error.message).toContain("use one of public, internal, confidential");
    const key = await json(b, ["label", "systems/orion", "colour=red"]);
    expect(key.exit).toBe(1);
    expect(key.json().error.message).toContain("not declared in kb.toml [labels] (declared: sensitivity)");
    const id = await json(b, ["label", "ffffffffff", "sensitivity=public"]);
    expect(id.json().error.code).toBe("not_found");
    for (const folder of ["general/nothing-here", "../../x", "general/cpp/missing-vtable.md"]) {
      const r = await json(b, ["label", folder, "sensitivity=confidential"]);
      expect(r.exit).toBe(1);
      expect(r.json().error.code).toBe("not_found");
    }
    for (const args of [["sensitivity"], ["=public"], ["sensitivity="], ["sensitivity=public", "--unset"]]) {
      expect((await json(b, ["label", "3c0ffee001", ...args])).exit).toBe(2);
    }
    expect(head(b)).toBe(start);
    expect(status(b)).toBe("");
  });
});
