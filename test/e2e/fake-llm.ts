// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for driving real pi and omp.
// The test names a scenario in its prompt (`[scenario:main]`); each request gets the next step of
// that scenario, decided only from the request (how many tool results follow the prompt), so
// retries and both agents see the same script. Summary requests (compaction) get a fixed summary.

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}
/** One reply: a tool call, several tool calls at once (`parallel`), or text that ends the run. */
export type Step = ToolCall | { parallel: ToolCall[] } | { text: string };

/** The calls a step makes. */
export const callsOf = (step: Step): ToolCall[] => ("tool" in step ? [step] : "parallel" in step ? step.parallel : []);

/** The step that follows `done` tool results of a scenario (a parallel step is answered by one result per call). */
export function stepAfter(steps: Step[] | undefined, done: number): Step {
  let results = 0;
  for (const step of steps ?? []) {
    if (results === done) return step;
    results += callsOf(step).length;
    if (results > done) break;
  }
  return { text: DONE };
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

export interface Served {
  messages: ChatMessage[];
  tools: string[];
  step: Step;
}

export const SUMMARY = "## Goal\nScripted summary from the fake model.";
export const DONE = "All done.";

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("\n");
  return "";
}

/** What every scripted model server shares: a port on 127.0.0.1, the requests it served, stop. */
export abstract class FakeServer<S> {
  readonly served: S[] = [];
  private server: ReturnType<typeof Bun.serve>;

  constructor() {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => this.handle(req) });
  }

  protected get origin(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  stop(): void {
    this.server.stop(true);
  }

  protected abstract handle(req: Request): Promise<Response>;
}

export class FakeLlm extends FakeServer<Served> {
  constructor(private scenarios: Record<string, Step[]>) {
    super();
  }

  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** The tool result the model was sent for the call with this name (first match), as text. */
  toolResultFor(tool: string, nth = 0): string | undefined {
    const ids: string[] = [];
    for (const s of this.served)
      for (const m of s.messages) for (const c of m.tool_calls ?? []) if (c.function.name === tool && !ids.includes(c.id)) ids.push(c.id);
    const id = ids[nth];
    if (!id) return undefined;
    for (const s of this.served) for (const m of s.messages) if (m.role === "tool" && m.tool_call_id === id) return textOf(m.content);
    return undefined;
  }

  private decide(messages: ChatMessage[], tools: string[]): Step {
    const userText = messages.filter((m) => m.role === "user").map((m) => textOf(m.content));
    const systemText = messages
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => textOf(m.content))
      .join("\n");
    // Compaction sends the conversation and asks for a summary (omp in the system prompt, offering no tools).
    if (/<conversation>|summariz/i.test(userText.at(-1) ?? "") || (tools.length === 0 && /summariz/i.test(systemText))) return { text: SUMMARY };
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!.role === "user" ? /\[scenario:([a-z-]+)\]/.exec(textOf(messages[i]!.content)) : null;
      if (!m) continue;
      const done = messages.slice(i + 1).filter((x) => x.role === "tool").length;
      return stepAfter(this.scenarios[m[1]!], done);
    }
    return { text: DONE };
  }

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname.endsWith("/models")) {
      return Response.json({ object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }] });
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) return new Response("no route", { status: 404 });
    const body = (await req.json()) as { messages?: ChatMessage[]; tools?: { function?: { name?: string } }[]; stream?: boolean; model?: string };
    const messages = body.messages ?? [];
    const tools = (body.tools ?? []).map((t) => t.function?.name ?? "").filter(Boolean);
    const step = this.decide(messages, tools);
    this.served.push({ messages, tools, step });
    const n = this.served.length;
    const id = `chatcmpl-${n}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? "fake-model";
    const calls = callsOf(step).map((c, index) => ({
      index,
      id: `call_${n}${index ? `_${index}` : ""}`,
      type: "function",
      function: { name: c.tool, arguments: JSON.stringify(c.args) },
    }));
    const finish = calls.length ? "tool_calls" : "stop";
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    if (!body.stream) {
      const message = {
        role: "assistant",
        content: "text" in step ? step.text : null,
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: c.function })) } : {}),
      };
      return Response.json({ id, object: "chat.completion", created, model, usage, choices: [{ index: 0, finish_reason: finish, message }] });
    }
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
    const delta = calls.length ? { tool_calls: calls } : { content: (step as { text: string }).text };
    const sse =
      chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]) +
      chunk([{ index: 0, delta, finish_reason: null }]) +
      chunk([{ index: 0, delta: {}, finish_reason: finish }]) +
      chunk([], { usage }) +
      "data: [DONE]\n\n";
    return new Response(sse, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }
}
