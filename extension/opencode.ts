// rkb for opencode: maps opencode's plugin hooks to the rkb binary, as extension/rkb.ts does for pi
// and omp. The tools come from `rkb mcp` (the `mcp.rkb` entry rkb install writes into opencode's
// config); this file adds what MCP cannot: the session-start context and prompt recall as a part of
// the user's message, the matching lesson after a failed bash command, and capture of the session
// from opencode's store when a run ends. Every decision lives in the binary. opencode runs this file
// with its own Bun; it imports no package, so it needs none of opencode's to be installed.
// `rkb install opencode` writes a copy with the constant below filled in.
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

const RKB: string = "__RKB_BIN__";
const HARNESS = "opencode";

// A hook may hold up opencode this long at most; rkb's answers are small, so more output than this
// means a broken binary, and it is dropped.
const HOOK_MS = 5_000;
const MAX_OUTPUT_BYTES = 1 << 20;

// The parts of opencode's plugin API (1.18) this file uses.
interface TextPart {
  id: string;
  sessionID: string;
  messageID: string;
  type: "text";
  text: string;
  synthetic?: boolean;
}
interface PluginInput {
  directory: string;
}
interface Hooks {
  event?: (input: { event: { type: string; properties?: Record<string, unknown> } }) => Promise<void>;
  "chat.message"?: (
    input: { sessionID: string },
    output: { message: { id: string; sessionID: string }; parts: { type: string; text?: string }[] },
  ) => Promise<void>;
  "tool.execute.after"?: (
    input: { tool: string; sessionID: string; args: Record<string, unknown> },
    output: { output: string; metadata?: { exit?: unknown } },
  ) => Promise<void>;
}

/** opencode's store, where it keeps every session (OPENCODE_DB names another, relative to its data folder). */
function store(): string {
  const data = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode");
  const named = process.env.OPENCODE_DB;
  return named ? (isAbsolute(named) ? named : join(data, named)) : join(data, "opencode.db");
}

/** `rkb hook <event>` with a JSON payload: the text for the model, or "" (rkb hook never fails; a hung one is stopped). */
async function hook(event: string, payload: Record<string, unknown>): Promise<string> {
  try {
    const proc = Bun.spawn([RKB, "hook", event], {
      stdin: new Blob([JSON.stringify({ ...payload, harness: HARNESS })]),
      stdout: "pipe",
      stderr: "ignore",
      env: { ...process.env, RKB_HARNESS: HARNESS },
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), HOOK_MS);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    clearTimeout(timer);
    return code === 0 && out.length <= MAX_OUTPUT_BYTES ? out.trim() : "";
  } catch {
    return ""; // the binary is missing: opencode goes on without rkb, and `rkb doctor` says why
  }
}

export const RkbPlugin = async ({ directory }: PluginInput): Promise<Hooks> => {
  const started = new Set<string>();
  const session = (id: string) => ({ session_id: id, cwd: directory });
  return {
    "chat.message": async (input, output) => {
      const prompt = output.parts
        .filter((p) => p.type === "text" && typeof p.text === "string")
        .map((p) => p.text)
        .join("\n");
      const texts: string[] = [];
      if (!started.has(input.sessionID)) {
        started.add(input.sessionID);
        texts.push(await hook("session-start", session(input.sessionID)));
      }
      texts.push(await hook("prompt", { ...session(input.sessionID), prompt }));
      const text = texts.filter(Boolean).join("\n\n");
      if (!text) return;
      const part: TextPart = {
        id: `prt_rkb${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
        sessionID: output.message.sessionID,
        messageID: output.message.id,
        type: "text",
        text,
        synthetic: true,
      };
      output.parts.push(part);
    },
    "tool.execute.after": async (input, output) => {
      const exit = output.metadata?.exit;
      const command = input.args?.command;
      if (input.tool !== "bash" || typeof exit !== "number" || typeof command !== "string") return;
      const payload = { ...session(input.sessionID), command };
      if (exit === 0) {
        void hook("tool-ok", payload); // bookkeeping only: opencode need not wait
        return;
      }
      const block = await hook("tool-failed", { ...payload, error: output.output });
      if (block) output.output += `\n\n${block}`;
    },
    event: async ({ event }) => {
      const id = event.properties?.sessionID;
      if (event.type !== "session.idle" || typeof id !== "string") return;
      // opencode does not wait for this handler when it exits, so capture runs on in its own
      // process, which outlives opencode; it reads the session's new parts from opencode's store.
      const args = ["hook", "session-end", "--session-file", `${store()}#${id}`, "--session-id", id, "--cwd", directory, "--harness", HARNESS];
      const child = spawn(RKB, args, { detached: true, stdio: "ignore", env: { ...process.env, RKB_HARNESS: HARNESS } });
      child.on("error", () => {}); // the binary is missing (see hook above)
      child.unref();
    },
  };
};
