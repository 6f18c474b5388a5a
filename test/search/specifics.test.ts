// The failure rule on the shapes of issue 21, each decided end to end on a knowledge base these
// tests write: the same frame with another status, runner, first error, plugin, kind of file or
// hint is another error; the lesson's own specifics agree.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildIndex } from "../../cli/kb/index.ts";
import { loadKb } from "../../cli/kb/store.ts";
import { decideFailureIn, failureVeto } from "../../cli/search/failure.ts";
import { readFailure } from "../../cli/shell/failure.ts";
import { sandbox, writeFile } from "../helpers.ts";

const nowhere = { facts: {}, isAncestor: () => undefined };

describe("the specifics of an error decide, not its frame", () => {
  const { kb } = sandbox("rkb-specifics");
  const lesson = (path: string, id: string, title: string, symptom: string, fix: string) =>
    writeFile(
      join(kb, path),
      `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: active\nverified: 2026-12-01\nverified_how: ran\n---\n\n# ${title}\n\n## Symptom\n\`\`\`text\n${symptom}\n\`\`\`\n\n## Cause\nSee the title.\n\n## Fix\n\`\`\`sh\n${fix}\n\`\`\`\n\n## Evidence\nIt worked after the fix.\n`,
    );
  lesson(
    "general/widgets/os.md",
    "3c0000cc01",
    "widget build excludes every file for another OS",
    "widget: target constraints exclude all sources in pkg/net",
    "WIDGET_OS=linux widget build",
  );
  lesson(
    "general/widgets/big.md",
    "3c0000cc02",
    "widget push fails with HTTP 413 behind a proxy",
    "error: upload failed; HTTP 413 widget 22 the server returned error: 413",
    "widget config upload.chunk 1m",
  );
  lesson(
    "general/runners/jest.md",
    "3c0000cc03",
    "Jest tests fail with widget is not defined in the node environment",
    "ReferenceError: widget is not defined",
    "npm i -D jest-environment-widget",
  );
  lesson(
    "general/runners/both.md",
    "3c0000cc04",
    "gadget is not defined in jsdom tests, with Jest and Vitest alike",
    "ReferenceError: gadget is not defined",
    "add the gadget polyfill to the setup file",
  );
  lesson(
    "general/widgets/role.md",
    "3c0000cc05",
    "widget plugins fail to load because the role is not installed",
    "widget: ERROR! the role 'acme.net' was not found in roles/\nThe error appears in 'site.yml', but may be elsewhere in the file",
    "widget galaxy install acme.net",
  );
  lesson(
    "general/widgets/plugin.md",
    "3c0000cc06",
    "widget rejects --trace because widget-trace is not installed",
    "widget: error: unrecognized arguments: --trace=all",
    "widget plugin add widget-trace",
  );
  lesson(
    "general/widgets/skin.md",
    "3c0000cc08",
    "widget cannot resolve a *.skin.css import without the skin loader",
    "widget: error W2307: cannot resolve import './Card.skin.css' or its declarations",
    "widget loader add skin",
  );
  lesson(
    "general/widgets/types.md",
    "3c0000cc09",
    "widget W7016 for an untyped package is fixed by adding its types package",
    "widget: error W7016: no declaration file for module 'acme'\n  Try `widget add @types/acme` if it exists or declare the module yourself",
    "widget add @types/acme",
  );
  writeFile(
    join(kb, "general/widgets/sum.md"),
    "---\nschema: 1\nid: 3c0000cc07\ntype: pitfall\nstatus: active\nverified: 2026-12-01\nverified_how: ran\n---\n\n# widget build stops on a missing sum entry after editing widget.mod\n\n## Symptom\n```text\nwidget: missing sum entry for module providing package acme/cli\n```\n\n## Cause\nThe sum file has no checksum for it.\n\n## Fix\nRun the tidy command.\n\n## Evidence\n`widget mod tidy` added the checksums.\n",
  );
  for (const [i, topic] of ["git rebase conflicts", "python virtual environments", "ssh agent forwarding", "latex bibliography", "slurm job arrays"].entries())
    writeFile(
      join(kb, `general/misc/filler-${i}.md`),
      `---\nschema: 1\nid: 3c0000dd0${i}\ntype: fact\nstatus: active\nverified: 2026-12-01\nverified_how: read\n---\n\n# Notes on ${topic}\n\n## Statement\nSomething about ${topic}.\n\n## Evidence\nIt worked.\n`,
    );
  const idx = buildIndex(loadKb(kb));
  const decide = (command: string, error: string) => decideFailureIn(idx, nowhere, new Map(), readFailure(command, error));
  // [case, command, error, the lesson weighed, whether it is injected, why not]
  test.each<[string, string, string, string, boolean, RegExp]>([
    ["the fix's setting not yet made", "widget build", "widget: target constraints exclude all sources in pkg/ui", "3c0000cc01", true, /./],
    [
      "the fix's setting already made",
      "WIDGET_OS=linux widget build",
      "widget: target constraints exclude all sources in pkg/ui",
      "3c0000cc01",
      false,
      /already sets WIDGET_OS=linux/,
    ],
    ["the status the lesson is about", "widget push", "error: upload failed; HTTP 413 widget 22 the server returned error: 413", "3c0000cc02", true, /./],
    ["another status", "widget push", "error: upload failed; HTTP 502 widget 22 the server returned error: 502", "3c0000cc02", false, /about 413/],
    ["the runner the lesson is about", "npx jest", "ReferenceError: widget is not defined", "3c0000cc03", true, /./],
    ["another runner of its family", "npx vitest run", "ReferenceError: widget is not defined", "3c0000cc03", false, /about jest, the failure is vitest's/],
    ["a lesson that says it applies to both", "npx vitest run", "ReferenceError: gadget is not defined", "3c0000cc04", true, /./],
    [
      "two first errors apart, one line alike",
      "widget deploy",
      "widget: ERROR! couldn't resolve module 'acme.net.ufw'\nThe error appears in 'site.yml', but may be elsewhere in the file",
      "3c0000cc05",
      false,
      /starts with .* is not in the error/,
    ],
    ["the plugin the lesson is about missing", "widget run", "widget: error: unrecognized arguments: --trace=all", "3c0000cc06", true, /./],
    [
      "the command turns that plugin off",
      "widget run -p no:trace",
      "widget: error: unrecognized arguments: --trace=all",
      "3c0000cc06",
      false,
      /turns off what 3c0000cc06 is about \(no:trace\)/,
    ],
    ["or leaves it out", "widget run --without-trace", "widget: error: unrecognized arguments: --trace=all", "3c0000cc06", false, /--without-trace/],
    [
      "the kind of file the lesson is about",
      "widget build",
      "widget: error W2307: cannot resolve import './Nav.skin.css' or its declarations",
      "3c0000cc08",
      true,
      /./,
    ],
    [
      "another kind of import",
      "widget build",
      "widget: error W2307: cannot resolve import '@/stores/cart' or its declarations",
      "3c0000cc08",
      false,
      /about \*\.skin\.css files/,
    ],
    [
      "the message with the lesson's hint",
      "widget check",
      "widget: error W7016: no declaration file for module 'leftpad'\n  Try `widget add @types/leftpad` if it exists or declare the module yourself",
      "3c0000cc09",
      true,
      /./,
    ],
    [
      "the same line with another hint",
      "widget check",
      "widget: error W7016: no declaration file for module 'leftpad'\n  There are types at 'dist/index.d.ts', but the exports map of the package hides them",
      "3c0000cc09",
      false,
      /goes on "There are types at .* the same line in another message/,
    ],
    ["the error the lesson shows", "widget build", "widget: missing sum entry for module providing package acme/web", "3c0000cc07", true, /./],
    [
      "only the command its Evidence names, printed as a hint",
      "widget build",
      "widget: updates to widget.mod needed; to update it:\n\twidget mod tidy",
      "3c0000cc07",
      false,
      /quotes no part of the error/,
    ],
  ])("%s", (_, command, error, id, injected, why) => {
    const d = decide(command, error);
    expect(d.lesson?.id === id).toBe(injected);
    const e = d.candidates.find((c) => c.id === id);
    expect(e).toBeDefined();
    if (!injected) expect(failureVeto(e!)).toMatch(why);
  });
});
