// Builds session files the way pi 1.6 and omp 18.2 write them (see ../shared/spec/pi-omp.md §3):
// a header line, then entries with 8-hex ids chained by parentId; bash results carry the harness
// trailer. The "claude-code" flavor writes Claude Code 2.1's shape instead: no header, `user` and
// `assistant` entries chained by uuid/parentUuid, `tool_use`/`tool_result` blocks, failed bash
// results leading with `Exit code N`. Used by tests and the benchmark to make sessions with known
// content.

export type Flavor = "pi" | "omp" | "claude-code";

export class SessionWriter {
  readonly lines: string[] = [];
  private seq = 0;
  private call = 0;
  private clock: number;
  leaf: string | null = null;

  constructor(
    readonly flavor: Flavor = "pi",
    readonly sessionId = "01a228b6-0000-7000-8000-" + Math.random().toString(16).slice(2, 14).padEnd(12, "0"),
    readonly cwd = "/home/dev/proj",
    start = Date.parse("2026-11-20T10:00:00.000Z"),
  ) {
    this.clock = start;
    if (flavor === "claude-code") return;
    if (flavor === "omp") this.lines.push(JSON.stringify({ type: "title", v: 1, title: "", updatedAt: this.iso(), pad: " ".repeat(40) }));
    this.lines.push(JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: this.iso(), cwd }));
    this.entry({ type: "model_change", ...(flavor === "omp" ? { model: "fake/fake-model" } : { provider: "fake", modelId: "fake-model" }) });
  }

  private iso(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  /** Appends an entry under the current leaf; returns its id. */
  entry(fields: Record<string, unknown>): string {
    const id = (++this.seq).toString(16).padStart(8, "0");
    if (this.flavor === "claude-code") {
      const uuid = `${id}-0000-4000-8000-000000000000`;
      const { type, ...rest } = fields;
      this.lines.push(
        JSON.stringify({
          parentUuid: this.leaf,
          isSidechain: false,
          type,
          uuid,
          timestamp: this.iso(),
          sessionId: this.sessionId,
          cwd: this.cwd,
          version: "2.1.332",
          ...rest,
        }),
      );
      this.leaf = uuid;
      return uuid;
    }
    const { type, ...rest } = fields;
    this.lines.push(JSON.stringify({ type, id, parentId: this.leaf, timestamp: this.iso(), ...rest }));
    this.leaf = id;
    return id;
  }

  user(text: string): string {
    if (this.flavor === "claude-code") return this.entry({ type: "user", message: { role: "user", content: text } });
    return this.entry({ type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: this.clock } });
  }

  agent(text: string, thinking?: string): string {
    if (this.flavor === "claude-code")
      return this.entry({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" } });
    const content: unknown[] = [];
    if (thinking) content.push({ type: "thinking", thinking });
    content.push({ type: "text", text });
    return this.entry({ type: "message", message: { role: "assistant", content, stopReason: "stop" } });
  }

  /** An assistant tool call followed by its result; exitCode 0 is a success. */
  bash(command: string, output: string, exitCode = 0): { call: string; result: string } {
    if (this.flavor === "claude-code") {
      const text = exitCode !== 0 ? `Exit code ${exitCode}\n${output}` : output;
      return this.claudeTool("Bash", { command, description: "run" }, text, exitCode !== 0);
    }
    const callId = `call_${++this.call}`;
    const call = this.entry({
      type: "message",
      message: { role: "assistant", content: [{ type: "toolCall", id: callId, name: "bash", arguments: { command } }], stopReason: "toolUse" },
    });
    if (this.flavor === "omp")
      this.entry({ type: "custom", customType: "tool_execution_start", data: { toolCallId: callId, toolName: "bash", args: { command } } });
    let text = output;
    if (this.flavor === "omp") text += "\n\n\nWall time: 0.12 seconds";
    if (exitCode !== 0) text += `${this.flavor === "omp" ? "\n\n" : "\n\n\n"}Command exited with code ${exitCode}`;
    const result = this.entry({
      type: "message",
      message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text }], isError: exitCode !== 0, timestamp: this.clock },
    });
    return { call, result };
  }

  tool(name: string, args: Record<string, unknown>, output: string, isError = false): void {
    if (this.flavor === "claude-code") {
      this.claudeTool(name, args, output, isError);
      return;
    }
    const callId = `call_${++this.call}`;
    this.entry({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: callId, name, arguments: args }], stopReason: "toolUse" } });
    this.entry({ type: "message", message: { role: "toolResult", toolCallId: callId, toolName: name, content: [{ type: "text", text: output }], isError } });
  }

  private claudeTool(name: string, input: Record<string, unknown>, output: string, isError: boolean): { call: string; result: string } {
    const callId = `toolu_${String(++this.call).padStart(4, "0")}`;
    const call = this.entry({
      type: "assistant",
      message: { role: "assistant", content: [{ type: "tool_use", id: callId, name, input }], stop_reason: "tool_use" },
    });
    const result = this.entry({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content: output, is_error: isError }] },
    });
    return { call, result };
  }

  compaction(): string {
    return this.entry({ type: "compaction", summary: "## Goal\nsummary", firstKeptEntryId: this.leaf, tokensBefore: 1000 });
  }

  custom(customType: string, data: unknown = {}): string {
    return this.entry({ type: "custom", customType, data });
  }

  /** Continues from an earlier entry, abandoning the branch after it (pi's /tree). */
  branchFrom(id: string): void {
    this.leaf = id;
  }

  text(): string {
    return this.lines.join("\n") + "\n";
  }
}
