// A scripted OpenAI Responses API on 127.0.0.1 for driving real Codex CLI headless (`codex exec`,
// a `[model_providers.fake]` with `wire_api = "responses"` pointing here; Codex 0.171 speaks no
// other API). Like fake-llm.ts, the prompt names a scenario (`[scenario:main]`) and each request
// gets the step after the tool outputs that follow that prompt. Codex streams: the reply is SSE
// (response.created, response.output_item.done per item, response.completed). Compaction asks for a
// summary with no tools offered; the summary carries how many steps were done (`[steps:N]`), since
// the tool outputs it replaces no longer follow the prompt, so the script goes on where it was.
import { DONE, FakeServer, SUMMARY, type Step, type ToolCall } from "./fake-llm.ts";

export interface ResponseItem {
  type: string;
  role?: string;
  content?: unknown;
  name?: string;
  namespace?: string;
  call_id?: string;
  arguments?: string;
  output?: unknown;
}

export interface ServedResponse {
  input: ResponseItem[];
  tools: string[];
  step: Step;
}

/** The text of an input item's content: a string, or its text parts joined. */
export function textOfItem(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("\n");
  return "";
}

interface OfferedTool {
  type?: string;
  name?: string;
  tools?: { name?: string }[];
}

/** A namespaced tool's name in the scripts: `<namespace>__<name>` (Codex names an MCP server's namespace `mcp__<server>`). */
const qualified = (namespace: string | undefined, name: string | undefined) => (namespace ? `${namespace}__${name}` : (name ?? ""));

function toolNames(tools: OfferedTool[]): string[] {
  return tools.flatMap((t) => (t.type === "namespace" ? (t.tools ?? []).map((x) => qualified(t.name, x.name)) : t.name ? [t.name] : []));
}

export class FakeResponses extends FakeServer<ServedResponse> {
  constructor(private scenarios: Record<string, Step[]>) {
    super();
  }

  /** A provider's base_url: Codex appends /responses. */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** Every output Codex sent back for a call of this tool (its name as the model called it), in order, as text. */
  toolOutputs(tool: string): string[] {
    const ids = new Set<string>();
    const out = new Map<string, string>();
    for (const s of this.served) {
      for (const item of s.input) {
        if (item.type === "function_call" && qualified(item.namespace, item.name) === tool && item.call_id) ids.add(item.call_id);
        if (item.type === "function_call_output" && item.call_id && ids.has(item.call_id)) out.set(item.call_id, textOfItem(item.output));
      }
    }
    return [...out.values()];
  }

  private decide(input: ResponseItem[], tools: string[]): Step {
    for (let i = input.length - 1; i >= 0; i--) {
      const item = input[i]!;
      if (item.type !== "message" || item.role !== "user") continue;
      const tag = /\[scenario:([a-z-]+)\]/.exec(textOfItem(item.content));
      if (!tag) continue;
      const after = input.slice(i + 1);
      const summarized = after.map((x) => /\[steps:(\d+)\]/.exec(x.type === "message" ? textOfItem(x.content) : "")).findLast(Boolean);
      const done = Number(summarized?.[1] ?? 0) + after.filter((x) => x.type === "function_call_output").length;
      if (tools.length === 0 && /COMPACTION/.test(textOfItem(input.at(-1)?.content))) return { text: `${SUMMARY}\n[steps:${done}]` };
      return this.scenarios[tag[1]!]?.[done] ?? { text: DONE };
    }
    return { text: DONE };
  }

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname.endsWith("/models")) return Response.json({ object: "list", data: [] });
    if (req.method !== "POST" || !url.pathname.endsWith("/responses")) return new Response("no route", { status: 404 });
    const body = (await req.json()) as { input?: ResponseItem[]; tools?: OfferedTool[]; model?: string };
    const input = body.input ?? [];
    const tools = toolNames(body.tools ?? []);
    const step = this.decide(input, tools);
    this.served.push({ input, tools, step });
    const n = this.served.length;
    const id = `resp_${n}`;
    const item =
      "tool" in step
        ? this.call(withSession(step, input), n, body.tools ?? [])
        : {
            type: "message",
            id: `msg_${n}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "text" in step ? step.text : "", annotations: [] }],
          };
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 110,
    };
    const response = {
      id,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      model: body.model ?? "fake-model",
      status: "in_progress",
      output: [] as unknown[],
    };
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const sse =
      event("response.created", { response }) +
      event("response.output_item.added", { output_index: 0, item }) +
      event("response.output_item.done", { output_index: 0, item }) +
      event("response.completed", { response: { ...response, status: "completed", output: [item], usage } });
    return new Response(sse, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  /** A function call; a tool offered inside a namespace is called with its namespace, as Codex expects. */
  private call(step: { tool: string; args: Record<string, unknown> }, n: number, tools: OfferedTool[]) {
    const ns = tools.find((t) => t.type === "namespace" && (t.tools ?? []).some((x) => qualified(t.name, x.name) === step.tool));
    const name = ns ? step.tool.slice(ns.name!.length + 2) : step.tool;
    return {
      type: "function_call",
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name,
      ...(ns ? { namespace: ns.name } : {}),
      arguments: JSON.stringify(step.args),
      status: "completed",
    };
  }
}

/**
 * A step whose `session_id` is SESSION polls the command Codex last left running: its id is random,
 * so the script names it by the `Process running with session ID N` line of the latest output.
 */
export const SESSION = "<last running session>";

function withSession(step: ToolCall, input: ResponseItem[]): ToolCall {
  if (step.args.session_id !== SESSION) return step;
  const running = input
    .filter((i) => i.type === "function_call_output")
    .map((i) => /Process running with session ID (\d+)/.exec(textOfItem(i.output))?.[1])
    .findLast(Boolean);
  return { ...step, args: { ...step.args, session_id: Number(running) } };
}
