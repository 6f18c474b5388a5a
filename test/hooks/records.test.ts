import { describe, expect, test } from "bun:test";
import { existsSync, utimesSync } from "node:fs";
import { expireRecords, readRecords, recordsPath, sanitizeId, updateRecords } from "../../cli/hooks/records.ts";
import { sandbox } from "../helpers.ts";

describe("session records", () => {
  test("ids become safe file names", () => {
    expect(sanitizeId("019a-b2/../x y")).toBe("019a-b2xy");
    expect(sanitizeId("")).toBe("unknown");
    expect(sanitizeId(undefined)).toBe("unknown");
    expect(sanitizeId("a".repeat(150))).toHaveLength(100);
  });

  test("a decision sees the records before it and appends with a time", async () => {
    const { env } = sandbox();
    const first = await updateRecords(env, "s1", (records) => ({ append: [{ kind: "failed", program: "make" }], result: records.length }));
    const second = await updateRecords(env, "s1", (records) => ({ append: [], result: records.map((r) => r.kind) }));
    expect(first).toBe(0);
    expect(second).toEqual(["failed"]);
    const [r] = readRecords(env, "s1");
    expect(r).toMatchObject({ kind: "failed", program: "make" });
    expect(typeof r!.time).toBe("number");
    expect(readRecords(env, "other")).toEqual([]);
  });

  test("concurrent updates never lose a record", async () => {
    const { env } = sandbox();
    await Promise.all(Array.from({ length: 20 }, (_, i) => updateRecords(env, "s", () => ({ append: [{ kind: "fixed", program: `p${i}` }], result: 0 }))));
    expect(readRecords(env, "s")).toHaveLength(20);
  });

  test("records untouched for two weeks are removed at session start", async () => {
    const { env } = sandbox();
    await updateRecords(env, "old", () => ({ append: [{ kind: "remember" }], result: 0 }));
    await updateRecords(env, "new", () => ({ append: [{ kind: "remember" }], result: 0 }));
    const old = (Date.now() - 15 * 24 * 3600 * 1000) / 1000;
    utimesSync(recordsPath(env, "old"), old, old);
    expireRecords(env);
    expect(existsSync(recordsPath(env, "old"))).toBe(false);
    expect(existsSync(recordsPath(env, "new"))).toBe(true);
  });
});
