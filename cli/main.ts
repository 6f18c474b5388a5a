#!/usr/bin/env bun
import { runCli } from "./dispatch.ts";

// No top-level await: the binary is compiled to bytecode, which needs a plain entry module.
// Output goes through Bun.write: touching process.stdout builds a Node stream, which costs more
// than a whole warm search.
runCli(process.argv.slice(2)).then(async (result) => {
  if (result.stdout) await Bun.write(Bun.stdout, result.stdout);
  if (result.stderr) await Bun.write(Bun.stderr, result.stderr);
  process.exitCode = result.exit;
});
