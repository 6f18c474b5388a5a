import { counted } from "../output/words.ts";
import { kbChecks, stateChecks } from "../doctor/doctor.ts";
import { installChecks } from "../install/index.ts";
import { kbRoot } from "../machine/settings.ts";
import { defineCommand } from "./_shared.ts";

export default defineCommand({
  name: "doctor",
  description: "Check the machine, the knowledge base and the pi/omp wiring; each problem comes with its fix",
  examples: ["rkb doctor", "rkb doctor --format json"],
  input: (Type) => Type.Object({}, { additionalProperties: false }),
  run(_input, ctx) {
    const checks = [...kbChecks(kbRoot(ctx.env), ctx.env, ctx.cwd, ctx.place), ...installChecks(ctx.env), ...stateChecks(ctx.env)];
    const failed = checks.filter((c) => c.status === "fail").length;
    const warnings = checks.filter((c) => c.status === "warn").length;
    const human = [
      ...checks.map((c) => `${c.status.padEnd(4)}  ${c.check}: ${c.detail}${c.fix ? `\n      fix: ${c.fix}` : ""}`),
      `${failed} failed, ${counted(warnings, "warning")}`,
    ].join("\n");
    return { data: { failed, warnings, checks }, human, exit: failed ? 1 : 0 };
  },
});
