// Builds session files the way pi 1.6 and omp 18.2 write them (see ../shared/spec/pi-omp.md §3):
// a header line, then entries with 8-hex ids chained by parentId; bash results carry the harness
// trailer. Used by tests and the benchmark to make sessions with known content.

export type Flavor = "pi" | "omp";

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
    const { type, ...rest } = fields;
    this.lines.push(JSON.stringify({ type, id, parentId: this.leaf, timestamp: this.iso(), ...rest }));
    this.leaf = id;
    return id;
  }

  user(text: string): string {
    return this.entry({ type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: this.clock } });
  }

  agent(text: string, thinking?: string): string {
    const content: unknown[] = [];
    if (thinking) content.push({ type: "thinking", thinking });
    content.push({ type: "text", text });
    return this.entry({ type: "message", message: { role: "assistant", content, stopReason: "stop" } });
  }

  /** An assistant tool call followed by its result; exitCode 0 is a success. */
  bash(command: string, output: string, exitCode = 0): { call: string; result: string } {
    const callId = `call_${++this.call}`;
    const call = this.entry({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: callId, name: "bash", arguments: { command } }], stopReason: "toolUse" } });
    if (this.flavor === "omp") this.entry({ type: "custom", customType: "tool_execution_start", data: { toolCallId: callId, toolName: "bash", args: { command } } });
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
    const callId = `call_${++this.call}`;
    this.entry({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: callId, name, arguments: args }], stopReason: "toolUse" } });
    this.entry({ type: "message", message: { role: "toolResult", toolCallId: callId, toolName: name, content: [{ type: "text", text: output }], isError } });
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
