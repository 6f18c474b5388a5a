// Benchmark for secret masking (not a test): `bun scripts/bench-secrets.ts`. Measures maskSecrets
// on text shaped like what capture masks (commands, failed build output, prompts) and on inputs
// made to make a pattern retry (each a prefix of a secret or a rule's keyword, repeated), at 1 MB
// and 8 MB: linear time means the 8 MB run costs ~8x the 1 MB one. Paste the output into BENCHMARKS.md.
import { findSecrets, maskSecrets } from "../cli/text/secrets.ts";
import { SECRET_SAMPLES } from "../test/reliability/secret-corpus.ts";

const best = (fn: () => void, rounds = 3) => {
  let ms = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return ms;
};

const commands = [
  "cmake -B build -DCMAKE_BUILD_TYPE=Release",
  "make -j8 2>&1 | tail -50",
  "git push origin main",
  "pytest -x tests/test_api.py::test_login",
  "npm ci && npm test",
];
const perCommand =
  (best(() => {
    for (let i = 0; i < 100_000; i++) maskSecrets(commands[i % commands.length]!);
  }) *
    1000) /
  100_000;

const buildLog = Array.from(
  { length: 20_000 },
  (_, i) =>
    `[${i}/20000] Building CXX object src/CMakeFiles/core.dir/module_${i}.cpp.o\n/usr/include/c++/12/bits/stl_vector.h:${i}: warning: unused variable 'x${i}'`,
).join("\n");
const withSecrets = buildLog + "\n" + SECRET_SAMPLES.map((s) => s.line).join("\n");
const mbps = (text: string) => text.length / 1e6 / (best(() => maskSecrets(text)) / 1000);

const fragments = [
  ...SECRET_SAMPLES.map((s) => s.line.slice(0, s.line.indexOf(s.secret) + 3)),
  "password=",
  "PASSWORD=x",
  "token: ",
  "--token ",
  "my password is ",
  "://a:",
  "curl -u ",
  "-----BEGIN PRIVATE KEY-----",
  "eyJa.",
  "-----BEGIN PRIVATE KEY----- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  "xghp_",
  "AAAAAAAAAAAAAAAAAAAA.aaaaaa.",
  "a",
];
const made = (bytes: number) => fragments.map((f) => f.repeat(Math.ceil(bytes / fragments.length / f.length))).join("\n");
const small = made(1_000_000);
const large = made(8_000_000);
const smallMs = best(() => findSecrets(small));
const largeMs = best(() => findSecrets(large), 1);

console.log(`| what | result |`);
console.log(`|---|---:|`);
console.log(`| one short command | ${perCommand.toFixed(2)} µs |`);
console.log(`| build log without secrets (${(buildLog.length / 1e6).toFixed(1)} MB) | ${mbps(buildLog).toFixed(0)} MB/s |`);
console.log(`| the same with all ${SECRET_SAMPLES.length} corpus lines | ${mbps(withSecrets).toFixed(0)} MB/s |`);
console.log(`| retry-provoking input, 1 MB | ${smallMs.toFixed(0)} ms |`);
console.log(`| retry-provoking input, 8 MB | ${largeMs.toFixed(0)} ms (${(largeMs / smallMs).toFixed(1)}× the 1 MB run) |`);
