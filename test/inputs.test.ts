// Input schemas are built and their checks compiled by TypeBox when rkb is built (cli/commands/inputs.build.ts):
// the compiled checks must answer as TypeBox's own checker does, and nothing a run loads may hold
// TypeBox, except the checker that words a failed check.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type, type TObject, type TSchema } from "typebox";
import { Check } from "typebox/schema";
import { commandNames, loadCommand } from "../cli/commands/index.ts";
import { commandInput, hookPayloadInput, toolInput } from "../cli/commands/inputs.ts";
import { hookPayloadSchema } from "../cli/agent/hooks/payload.ts";
import { TOOLS } from "../cli/agent/tools/schemas.ts";
import { seededRandom } from "./helpers.ts";

/** Values around a schema: a fitting value, each property wrong, missing and unknown keys, random junk. */
function samples(schema: TObject, random: () => number): unknown[] {
  const props = schema.properties as Record<string, TSchema & { type?: string; enum?: string[]; minimum?: number; maximum?: number }>;
  const fitting = (s: (typeof props)[string]): unknown => {
    if (s.enum) return s.enum[0];
    switch (s.type) {
      case "string":
        return "text";
      case "integer":
        return s.minimum ?? 1;
      case "number":
        return s.minimum ?? 0.5;
      case "boolean":
        return true;
      case "array":
        return ["a", "b"];
      case "object":
        return { key: "value" };
    }
    return null;
  };
  const whole = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fitting(s)]));
  const junk = [null, 0, -1, 1.5, 2 ** 40, "", "x", true, [], [1], {}, { a: 1 }, ["a", 2]];
  const pick = () => junk[Math.floor(random() * junk.length)];
  const out: unknown[] = [{}, whole, null, [], "string", { ...whole, unknown_key: 1 }];
  for (const key of Object.keys(props)) {
    const { [key]: _, ...without } = whole;
    out.push(without);
    for (const value of junk) out.push({ ...whole, [key]: value });
  }
  for (let i = 0; i < 200; i++)
    out.push(
      Object.fromEntries(
        Object.keys(props)
          .filter(() => random() < 0.5)
          .map((k) => [k, random() < 0.5 ? whole[k] : pick()]),
      ),
    );
  return out;
}

describe("inputs built when rkb is built", () => {
  test("every command's and every tool's compiled check answers as TypeBox's checker on its schema", async () => {
    const random = seededRandom(12345);
    let compared = 0;
    for (const name of commandNames) {
      const schema = (await loadCommand(name))!.input(Type);
      const built = commandInput(name);
      expect(built.schema).toEqual(JSON.parse(JSON.stringify(schema)));
      for (const value of samples(schema, random)) {
        expect({ name, value, ok: built.check(value) }).toEqual({ name, value, ok: Check(schema, value) });
        compared++;
      }
    }
    for (const tool of TOOLS) {
      const built = toolInput(tool.name);
      for (const value of samples(built.schema, random)) {
        expect({ tool: tool.name, value, ok: built.check(value) }).toEqual({ tool: tool.name, value, ok: Check(built.schema, value) });
        compared++;
      }
    }
    const payload = hookPayloadSchema(Type);
    expect(hookPayloadInput().schema).toEqual(JSON.parse(JSON.stringify(payload)));
    for (const value of samples(payload, random)) {
      expect({ payload: value, ok: hookPayloadInput().check(value) }).toEqual({ payload: value, ok: Check(payload, value) });
      compared++;
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  test("the bundle holds no TypeBox a run loads: no schema builder at all, its checker only behind a dynamic import", async () => {
    const out = mkdtempSync(join(tmpdir(), "rkb-bundle-"));
    try {
      const built = await Bun.build({ entrypoints: [join(import.meta.dir, "../cli/main.ts")], outdir: out, target: "bun", format: "esm", splitting: true });
      expect(built.success).toBe(true);
      const chunks = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
      const withBuilder = [...chunks].filter(([, text]) => text.includes("typebox/build/type/"));
      expect(withBuilder.map(([f]) => f)).toEqual([]);
      const withChecker = [...chunks].filter(([, text]) => text.includes("typebox/build/schema/")).map(([f]) => f);
      expect(withChecker.length).toBeGreaterThan(0);
      for (const [file, text] of chunks) {
        for (const checker of withChecker) {
          // `import … from "./chunk"` would load it with every command; `import("./chunk")` only on a failed check.
          expect({ file, checker, static: new RegExp(`(?:from|import)\\s*"\\./${checker.replace(".", "\\.")}"`).test(text) }).toEqual({
            file,
            checker,
            static: false,
          });
        }
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
