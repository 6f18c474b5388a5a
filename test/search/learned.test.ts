import { expect, test } from "bun:test";
import { join } from "node:path";
import { loadKb } from "../../cli/kb/store.ts";
import { decideFailureIn } from "../../cli/search/failure.ts";
import { readFailure } from "../../cli/shell/failure.ts";
import { buildIndex } from "../../cli/kb/index.ts";
import { sandbox, writeFile } from "../helpers.ts";

// A lesson learned from a failure (its queries hold the failure's key line) is injected for that
// failure even where the word-based rule, weighing two lessons that quote the same error, stays silent.

const ERROR = "Loading config from /home/dev/fw/widget.toml\nwidget: error: calibration table missing for sensor array (run widget-calibrate first)";
const nowhere = { facts: {}, isAncestor: () => undefined };

function lesson(id: string, title: string, queries: string[]): string {
  const q = queries.length ? `queries:\n${queries.map((x) => `  - "${x}"`).join("\n")}\n` : "";
  return `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: active\nverified: 2026-11-30\nverified_how: ran\n${q}---\n\n# ${title}\n\n## Symptom\n\n\`widget build\` stops with \`calibration table missing for sensor array\`.\n\n## Cause\n\nx\n\n## Fix\n\ny\n\n## Evidence\n\nz\n`;
}

function indexWith(first: string[], second: string[]) {
  const box = sandbox("rkb-learned");
  writeFile(join(box.kb, "general/widget/a.md"), lesson("aaaaaaaaaa", "widget calibration table missing for sensor array", first));
  writeFile(join(box.kb, "general/widget/b.md"), lesson("bbbbbbbbbb", "widget calibration table missing for sensor array on CI", second));
  return buildIndex(loadKb(box.kb));
}

test("two lessons quote the error alike: silence, until one has learned the error's key line", () => {
  const plain = decideFailureIn(indexWith([], []), nowhere, new Map(), readFailure("widget build", ERROR));
  expect(plain.lesson).toBeUndefined();
  const learned = decideFailureIn(
    indexWith([], ["widget: error: calibration table missing for sensor array (run widget-calibrate first)"]),
    nowhere,
    new Map(),
    readFailure("widget build --target fw", ERROR),
  );
  expect(learned.lesson?.id).toBe("bbbbbbbbbb");
  expect(learned.reason).toContain("was learned from this error");
});
