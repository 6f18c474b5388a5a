// A scripted Anthropic Messages API on 127.0.0.1 for driving real Claude Code headless (`claude -p`,
// ANTHROPIC_BASE_URL pointing here). Like fake-llm.ts, the prompt names a scenario
// (`[scenario:main]`) and each request gets the step after the tool results that follow that
// prompt, so the script is decided by the request alone. Claude Code streams: the reply is SSE
// (message_start, content_block_start/delta/stop, message_delta, message_stop).
import { callsOf, DONE, FakeServer, type Step, stepAfter, type ToolCall } from "./fake-llm.ts";

export interface AnthropicBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
}

export interface ServedRequest {
  messages: AnthropicMessage[];
  tools: string[];
  system: string;
  step: Step;
}

const blocks = (content: AnthropicMessage["content"]): AnthropicBlock[] => (typeof content === "string" ? [{ type: "text", text: content }] : content);

/** The text of a content field: a string, or text blocks joined. */
export function textOfBlocks(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b === "string" ? b : b?.type === "text" ? (b.text ?? "") : "")).join("\n");
  return "";
}

export class FakeAnthropic extends FakeServer<ServedRequest> {
  constructor(private scenarios: Record<string, Step[]>) {
    super();
  }

  /** ANTHROPIC_BASE_URL: Claude Code appends /v1/messages. */
  get baseUrl(): string {
    return this.origin;
  }

  /** Every tool_result block Claude Code sent back for a call of this tool, in order, as text. */
  toolResults(tool: string): { text: string; isError: boolean }[] {
    const ids = new Set<string>();
    const out = new Map<string, { text: string; isError: boolean }>();
    for (const s of this.served) {
      for (const m of s.messages) {
        for (const b of blocks(m.content)) {
          if (b.type === "tool_use" && b.name === tool && b.id) ids.add(b.id);
          if (b.type === "tool_result" && b.tool_use_id && ids.has(b.tool_use_id))
            out.set(b.tool_use_id, { text: textOfBlocks(b.content), isError: b.is_error === true });
        }
      }
    }
    return [...out.values()];
  }

  private decide(messages: AnthropicMessage[]): Step {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role !== "user") continue;
      const tag = /\[scenario:([a-z-]+)\]/.exec(
        blocks(m.content)
          .map((b) => (b.type === "text" ? (b.text ?? "") : ""))
          .join("\n"),
      );
      if (!tag) continue;
      const done = messages.slice(i + 1).reduce((n, x) => n + blocks(x.content).filter((b) => b.type === "tool_result").length, 0);
      return stepAfter(this.scenarios[tag[1]!], done);
    }
    return { text: DONE };
  }

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method !== "POST") return Response.json({});
    if (url.pathname.endsWith("/count_tokens")) return Response.json({ input_tokens: 10 });
    if (!url.pathname.endsWith("/v1/messages")) return new Response("no route", { status: 404 });
    const body = (await req.json()) as { messages?: AnthropicMessage[]; tools?: { name?: string }[]; system?: unknown; stream?: boolean; model?: string };
    const messages = body.messages ?? [];
    const step = withBackground(this.decide(messages), messages);
    this.served.push({ messages, tools: (body.tools ?? []).map((t) => t.name ?? ""), system: textOfBlocks(body.system), step });
    const n = this.served.length;
    const calls = callsOf(step);
    const blocks = calls.length
      ? calls.map((c, i) => ({ type: "tool_use", id: `toolu_${String(n).padStart(4, "0")}${i ? `_${i}` : ""}`, name: c.tool, input: {} }))
      : [{ type: "text", text: "" }];
    const stop = calls.length ? "tool_use" : "end_turn";
    const message = {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: body.model ?? "fake",
      content: [] as unknown[],
      stop_reason: null as string | null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 0 },
    };
    const text = "text" in step ? step.text : "";
    if (!body.stream) {
      const full = calls.length ? blocks.map((b, i) => ({ ...b, input: calls[i]!.args })) : [{ type: "text", text }];
      return Response.json({ ...message, content: full, stop_reason: stop });
    }
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const delta = (i: number) => (calls.length ? { type: "input_json_delta", partial_json: JSON.stringify(calls[i]!.args) } : { type: "text_delta", text });
    const sse =
      event("message_start", { message }) +
      blocks
        .map(
          (block, index) =>
            event("content_block_start", { index, content_block: block }) +
            event("content_block_delta", { index, delta: delta(index) }) +
            event("content_block_stop", { index }),
        )
        .join("") +
      event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } }) +
      event("message_stop", {});
    return new Response(sse, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }
}

/**
 * A step whose `task_id` is BACKGROUND reads the command Claude Code last ran in the background: its
 * id is random, so the script names it by the `Command running in background with ID: X` result.
 */
export const BACKGROUND = "<last background command>";

function withBackground(step: Step, messages: AnthropicMessage[]): Step {
  const fill = (call: ToolCall): ToolCall => {
    if (call.args.task_id !== BACKGROUND) return call;
    const id = messages
      .flatMap((m) => blocks(m.content))
      .map((b) => (b.type === "tool_result" ? /running in background with ID: (\w+)/.exec(textOfBlocks(b.content))?.[1] : undefined))
      .findLast(Boolean);
    return { ...call, args: { ...call.args, task_id: id } };
  };
  return "tool" in step ? fill(step) : "parallel" in step ? { parallel: step.parallel.map(fill) } : step;
}
