#!/usr/bin/env bun
import { runCli } from "./dispatch.ts";

// No top-level await: the binary is compiled to bytecode, which needs a plain entry module.
runCli(process.argv.slice(2)).then((result) => {
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(result.stderr);
  process.exitCode = result.exit;
});
