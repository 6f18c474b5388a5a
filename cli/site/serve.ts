import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { RkbError } from "../base/errors.ts";
import { inboxDir } from "../inbox/inbox.ts";
import { kbSignature } from "../kb/signature.ts";
import { loadSiteModel, type SiteModel } from "./model.ts";
import { siteFile } from "./routes.ts";
import type { Audience } from "./sink.ts";

// `rkb serve`: the pages over HTTP on 127.0.0.1 only, for the owner. It answers GET and HEAD for
// the URLs of the site table (routes.ts) and nothing else, writes nothing, and reads the knowledge
// base again when its files, use records, replays, inbox or history changed (checked at most once
// a second, so a page asked for again is answered from memory).

const OWNER: Audience = { kind: "owner" };
const RECHECK_MS = 1000;

export interface Viewer {
  url: string;
  stop(): Promise<void>;
}

export function startViewer(root: string, env: NodeJS.ProcessEnv, port: number): Viewer {
  let model: SiteModel | undefined;
  let seen = "";
  let checked = 0;
  const current = (): SiteModel => {
    const now = Date.now();
    if (model && now - checked < RECHECK_MS) return model;
    checked = now;
    const state = freshness(root, env);
    if (!model || state !== seen) {
      model = loadSiteModel(root, env, OWNER);
      seen = state;
    }
    return model;
  };
  current();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    // Bun's development error page would show the stack and rkb's source to any visitor.
    development: false,
    error: errorPage,
    fetch(request, self): Response {
      // A page of another site that got its name to point here (DNS rebinding) sends its own
      // host: only the viewer's own names are answered, so no other site can read the pages.
      const host = request.headers.get("host");
      if (!host) return new Response("no Host header\n", { status: 400 });
      if (!ownHost(host, self.port) || !ownHost(new URL(request.url).host, self.port))
        return new Response(`this viewer answers only http://127.0.0.1:${self.port}/\n`, { status: 421 });
      if (request.method !== "GET" && request.method !== "HEAD")
        return new Response("read-only: GET and HEAD only\n", { status: 405, headers: { Allow: "GET, HEAD" } });
      const path = sitePath(request.url);
      if (path === undefined) return new Response("bad path\n", { status: 400 });
      const file = siteFile(current(), root, path.endsWith("/") || path === "" ? `${path}index.html` : path);
      if (!file) return new Response("not found\n", { status: 404 });
      return new Response(request.method === "HEAD" ? null : file.body, {
        headers: { "Content-Type": file.type, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, stop: () => server.stop(true) };
}

/** Whether a request's host is one of the viewer's own names: 127.0.0.1 or localhost (on its port, or with none). */
function ownHost(host: string, port: number | undefined): boolean {
  const name = host.toLowerCase();
  return ["127.0.0.1", "localhost"].some((own) => name === own || name === `${own}:${port}`);
}

/** What a visitor sees when the knowledge base cannot be read (a broken kb.toml): the problem and its fix, never a stack. */
function errorPage(error: Error): Response {
  const text =
    error instanceof RkbError
      ? `rkb serve cannot show the knowledge base: ${error.message}\nfix: ${error.fix}\n`
      : `rkb serve met an error: ${error.message}\nfix: this is a bug in rkb; run \`rkb site build --out <folder>\` with RKB_DEBUG=1 to see where\n`;
  return new Response(text, { status: 500, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/**
 * The site path a request names (no leading `/`), or undefined when it tries to leave the table's
 * shape: a `..` or `.` part (as written or percent-encoded), a backslash, a NUL, an encoded `/`.
 */
export function sitePath(requestUrl: string): string | undefined {
  const raw = requestUrl.replace(/^[a-z]+:\/\/[^/]*/i, "").split(/[?#]/)[0]!;
  if (/%2f|%5c|%00|\\/i.test(raw)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const parts = path.split("/").slice(1);
  if (parts.some((p, i) => p === ".." || p === "." || (p === "" && i < parts.length - 1) || p.includes("\0"))) return undefined;
  return parts.join("/");
}

/** What the pages depend on beyond the lesson files: kb.toml, use records, replays, the inbox, git's HEAD. */
function freshness(root: string, env: NodeJS.ProcessEnv): string {
  const config = statSync(join(root, "kb.toml"), { throwIfNoEntry: false });
  const parts = [kbSignature(root), config ? `kb.toml:${config.size}:${config.mtimeMs}` : "kb.toml:none"];
  for (const dir of [join(root, ".rkb", "usage"), join(root, ".rkb", "replays"), inboxDir(env), join(root, ".git")]) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (dir.endsWith(".git") && name !== "HEAD" && name !== "index") continue;
      const s = statSync(join(dir, name), { throwIfNoEntry: false });
      if (s) parts.push(`${name}:${s.size}:${s.mtimeMs}`);
    }
  }
  return parts.join("\n");
}
