import { describe, expect, test } from "bun:test";
import { compareVersions, evaluateWhen, isValidWhenValue, parseVersion } from "../../cli/place/when.ts";

const v = (s: string) => parseVersion(s)!;

describe("versions", () => {
  test("compare part by part, releases before branch names, rc before release", () => {
    expect(compareVersions(v("1.10"), v("1.9"))).toBeGreaterThan(0);
    expect(compareVersions(v("1.0.1"), v("1.0"))).toBeGreaterThan(0);
    expect(compareVersions(v("1.0-rc1"), v("1.0"))).toBeLessThan(0);
    expect(compareVersions(v("develop"), v("99.1"))).toBeGreaterThan(0);
    expect(compareVersions(v("v2.1"), v("2.1"))).toBe(0);
  });
});

describe("evaluateWhen", () => {
  test("ranges include versions their bounds are a prefix of", () => {
    const when = { hdf5: "1.12:1.14" };
    expect(evaluateWhen(when, { hdf5: "1.14.9" }).result).toBe("yes");
    expect(evaluateWhen(when, { hdf5: "1.11.2" }).result).toBe("no");
    expect(evaluateWhen({ hdf5: "1.10:" }, { hdf5: "2.0" }).result).toBe("yes");
  });
  test("a plain value is exact; a missing fact is unknown with a hint", () => {
    expect(evaluateWhen({ hdf5: "1.14" }, { hdf5: "1.14.3" }).result).toBe("no");
    const r = evaluateWhen({ gpu: "mi300a" }, {});
    expect(r.result).toBe("unknown");
    expect(r.keys[0]!.reason).toContain("--with gpu=");
  });
  test("name@range checks the name, then the range", () => {
    expect(evaluateWhen({ compiler: "gcc@12:" }, { compiler: "gcc@13.2" }).result).toBe("yes");
    expect(evaluateWhen({ compiler: "gcc@12:" }, { compiler: "clang@17" }).result).toBe("no");
    expect(evaluateWhen({ compiler: "gcc@12" }, { compiler: "gcc@12.3.0" }).result).toBe("yes");
  });
  test("lists are any-of; the whole is no if any key is no", () => {
    expect(evaluateWhen({ system: ["a", "b"] }, { system: "b" }).result).toBe("yes");
    expect(evaluateWhen({ system: "a", hdf5: "1.14" }, { system: "a" }).result).toBe("unknown");
    expect(evaluateWhen({ system: "a", hdf5: "1.14" }, { system: "b" }).result).toBe("no");
    expect(evaluateWhen({}, {}).result).toBe("yes");
  });
  test("since and until ask git", () => {
    const git = { isAncestor: (c: string) => (c === "abc1234" ? true : c === "def5678" ? false : undefined) };
    expect(evaluateWhen({ since: "abc1234" }, {}, git).result).toBe("yes");
    expect(evaluateWhen({ until: "abc1234" }, {}, git).result).toBe("no");
    expect(evaluateWhen({ since: "0000000" }, {}, git).result).toBe("unknown");
  });
  test("path is a glob", () => {
    expect(evaluateWhen({ path: "src/*.rs" }, { path: "src/main.rs" }).result).toBe("yes");
  });
});

describe("isValidWhenValue", () => {
  test("explains what is wrong", () => {
    expect(isValidWhenValue("hdf5", 1.14)).toContain("quoted");
    expect(isValidWhenValue("hdf5", "1.12::1.14")).toContain("range");
    expect(isValidWhenValue("since", "not a commit")).toContain("commit");
    // The Rust rkb takes 7 to 40 hex characters: git's shortest abbreviation up to a full SHA-1.
    expect(isValidWhenValue("since", "abc123")).toContain("7–40");
    expect(isValidWhenValue("until", "abc1234")).toBeUndefined();
    expect(isValidWhenValue("path", "src/[ab")).toContain("never closed");
    expect(isValidWhenValue("path", "src/[z-a]/*.c")).toContain("backwards");
    expect(isValidWhenValue("path", "src/**/*.[ch]")).toBeUndefined();
    expect(isValidWhenValue("hdf5", "1.12:1.14")).toBeUndefined();
    expect(isValidWhenValue("compiler", "gcc@12:")).toBeUndefined();
  });
});
