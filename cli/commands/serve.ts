import { requireReadableKb } from "../lesson/layout.ts";
import { kbRoot } from "../machine/settings.ts";
import { defineCommand } from "./_shared.ts";

// `rkb serve`: the read-only viewer on 127.0.0.1 until Ctrl-C. The site modules (and markdown-it)
// load here, when the command runs, never with another command.
export default defineCommand({
  name: "serve",
  description: "A read-only viewer of the knowledge base in the browser, on 127.0.0.1 (inbox and use included)",
  examples: ["rkb serve", "rkb serve --port 8421"],
  input: (Type) =>
    Type.Object(
      { port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: "Port on 127.0.0.1 (default: a free one)" })) },
      { additionalProperties: false },
    ),
  async run(input, ctx) {
    const root = kbRoot(ctx.env);
    requireReadableKb(root);
    const { startViewer } = await import("../site/serve.ts");
    const viewer = startViewer(root, ctx.env, input.port ?? 0);
    // The binary starts with a lazy JIT, made for one-shot calls (scripts/build.ts); a server is not one.
    Bun.unsafe.setJITPolicy(1);
    await Bun.write(
      Bun.stdout,
      ctx.format === "human" ? `rkb serve: ${viewer.url} (read-only; Ctrl-C stops it)\n` : `${JSON.stringify({ url: viewer.url })}\n`,
    );
    await new Promise<void>((done) => {
      process.once("SIGINT", done);
      process.once("SIGTERM", done);
    });
    await viewer.stop();
    return { data: null, human: "", raw: true };
  },
});
