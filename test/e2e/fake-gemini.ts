// A scripted Gemini API (generativelanguage v1beta) on 127.0.0.1 for driving real Gemini CLI headless
// (`gemini -p`, GOOGLE_GEMINI_BASE_URL pointing here). Like fake-llm.ts, the prompt names a scenario
// (`[scenario:main]`) and each request gets the step after the function responses that follow that
// prompt. Gemini CLI streams (`:streamGenerateContent?alt=sse`, one `data:` chunk here) and asks
// `:generateContent` for side questions (a JSON reply when it names a response schema).
import { DONE, FakeServer, type Step } from "./fake-llm.ts";

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response?: Record<string, unknown>; id?: string };
}
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

export interface ServedGemini {
  model: string;
  contents: GeminiContent[];
  tools: string[];
  system: string;
  step: Step;
}

const textOfParts = (parts: GeminiPart[] = []) =>
  parts
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("\n");

export class FakeGemini extends FakeServer<ServedGemini> {
  constructor(private scenarios: Record<string, Step[]>) {
    super();
  }

  /** GOOGLE_GEMINI_BASE_URL: the SDK appends /v1beta/models/<model>:<method>. */
  get baseUrl(): string {
    return this.origin;
  }

  /** Every response Gemini CLI sent back for a call of this tool, in order, as the JSON of its `response`. */
  toolResponses(tool: string): string[] {
    const out = new Map<string, string>();
    for (const s of this.served) {
      let n = 0;
      for (const c of s.contents)
        for (const p of c.parts)
          if (p.functionResponse?.name === tool) out.set(p.functionResponse.id ?? `${tool}#${n++}`, JSON.stringify(p.functionResponse.response ?? {}));
    }
    return [...out.values()];
  }

  private decide(contents: GeminiContent[]): Step {
    for (let i = contents.length - 1; i >= 0; i--) {
      const c = contents[i]!;
      if (c.role !== "user") continue;
      const tag = /\[scenario:([a-z-]+)\]/.exec(textOfParts(c.parts));
      if (!tag) continue;
      const done = contents.slice(i + 1).reduce((n, x) => n + x.parts.filter((p) => p.functionResponse).length, 0);
      return this.scenarios[tag[1]!]?.[done] ?? { text: DONE };
    }
    return { text: DONE };
  }

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(url.pathname);
    if (req.method !== "POST" || !m) return new Response("no route", { status: 404 });
    const [, model, method] = m;
    const body = (await req.json()) as {
      contents?: GeminiContent[];
      tools?: { functionDeclarations?: { name: string }[] }[];
      systemInstruction?: { parts?: GeminiPart[] };
      generationConfig?: { responseJsonSchema?: unknown; responseSchema?: unknown };
    };
    if (method === "countTokens") return Response.json({ totalTokens: 10 });
    const contents = body.contents ?? [];
    const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 };
    if (method === "generateContent" && (body.generationConfig?.responseJsonSchema || body.generationConfig?.responseSchema)) {
      // A side question with a schema (Gemini CLI's model router asks how complex the task is).
      const text = JSON.stringify({ complexity_reasoning: "scripted", complexity_score: 10, reasoning: "scripted", model_choice: "flash" });
      return Response.json({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }], usageMetadata });
    }
    const step = this.decide(contents);
    const tools = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    this.served.push({ model: model!, contents, tools, system: textOfParts(body.systemInstruction?.parts), step });
    const part: GeminiPart = "tool" in step ? { functionCall: { name: step.tool, args: step.args } } : { text: "text" in step ? step.text : "" };
    const chunk = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: model };
    if (method === "generateContent") return Response.json(chunk);
    return new Response(`data: ${JSON.stringify(chunk)}\r\n\r\n`, { headers: { "content-type": "text/event-stream" } });
  }
}
