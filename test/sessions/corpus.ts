import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionWriter } from "./session-writer.ts";

// A folder of generated pi/omp sessions with known signals, for the extract test and benchmark.
// Size comes from long successful outputs (build logs), which rkb must read but never keep.

export interface CorpusExpectation {
  sessions: number;
  bytes: number;
  failed: number;
  fixed: number;
  correction: number;
  remember: number;
  repeat: number;
  items: number;
}

export function writeCorpus(dir: string, sessions: number, bytesPerSession: number): CorpusExpectation {
  mkdirSync(dir, { recursive: true });
  const logLine = "[ 42%] Building CXX object src/core/CMakeFiles/core.dir/parser.cpp.o -- ok\n";
  const log = logLine.repeat(Math.ceil(bytesPerSession / logLine.length));
  const expected: CorpusExpectation = { sessions, bytes: 0, failed: 0, fixed: 0, correction: 0, remember: 0, repeat: 0, items: 0 };
  let makeFailures = 0;
  let pushFailures = 0;
  for (let i = 0; i < sessions; i++) {
    const w = new SessionWriter(i % 2 ? "omp" : "pi", `corpus-${i}`, `/home/dev/p${i % 17}`, Date.parse("2026-10-01T00:00:00Z") + i * 60_000);
    w.user(`Build project ${i} and run its checks.`);
    w.bash("cmake --build build", log);
    let signal = false;
    if (i % 5 === 0) {
      w.bash("make install", `make: *** No rule to make target 'install' in /home/dev/p${i}.  Stop.`, 2);
      w.bash("make -C build install", "Install the project...");
      expected.failed++;
      expected.fixed++;
      if (makeFailures++ > 0) expected.repeat++;
      signal = true;
    }
    if (i % 7 === 0) {
      w.user("No, use the release preset instead.");
      expected.correction++;
      signal = true;
    }
    if (i % 11 === 0) {
      w.user("Remember that the release preset needs ccache.");
      expected.remember++;
      signal = true;
    }
    if (i % 13 === 0) {
      w.bash("git push", "fatal: could not read Username for 'https://github.com': No such device or address", 128);
      expected.failed++;
      if (pushFailures++ > 0) expected.repeat++;
      signal = true;
    }
    w.agent(`Done with project ${i}.`);
    const text = w.text();
    writeFileSync(join(dir, `${String(i).padStart(4, "0")}_corpus-${i}.jsonl`), text);
    expected.bytes += Buffer.byteLength(text);
    if (signal && (i % 5 === 0 || i % 7 === 0 || i % 11 === 0 || (i % 13 === 0 && pushFailures > 1))) expected.items++;
  }
  return expected;
}
