import { closeSync, openSync, readSync, writeSync } from "node:fs";

// The person's own terminal, for questions only a person may answer (`rkb confirm`). It is the
// controlling terminal (/dev/tty), not stdin: an agent can pipe text into stdin, but a process an
// agent starts in the background has no controlling terminal to open.

const MAX_ANSWER = 1024;

/** Writes prompt to the terminal and returns the line typed; undefined when this process has no terminal. */
export function askTerminal(prompt: string): string | undefined {
  let fd: number;
  try {
    fd = openSync("/dev/tty", "r+");
  } catch {
    return undefined;
  }
  try {
    writeSync(fd, prompt);
    const buf = Buffer.alloc(256);
    let answer = "";
    while (!answer.includes("\n") && answer.length < MAX_ANSWER) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      answer += buf.toString("utf8", 0, n);
    }
    return answer.split("\n")[0]!.trim();
  } finally {
    closeSync(fd);
  }
}
