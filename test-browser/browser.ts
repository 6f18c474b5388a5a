import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { rkb, type Sandbox } from "../test/helpers.ts";
import { startServe } from "../test/site/site-kb.ts";

// A real headless Chromium (Debian's `chromium`; RKB_CHROMIUM names another) driven by
// playwright-core. The flags keep it off the network it would otherwise try (updates, sync, QUIC):
// on a machine without one it hangs. Each run gets a fresh profile folder.

export const CHROMIUM = process.env.RKB_CHROMIUM ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function openBrowser(parent = tmpdir()): Promise<BrowserContext> {
  const profile = mkdtempSync(join(parent, "chromium-profile-"));
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
}

/** A page that keeps every console error and uncaught exception it meets. */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
  return { page, errors };
}

/** A static file server over a built site, as GitHub Pages would serve it (folders answer index.html). */
export function serveFolder(dir: string): { url: string; stop: () => void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      let path = decodeURIComponent(new URL(request.url).pathname);
      if (path.includes("..")) return new Response("bad", { status: 400 });
      if (path.endsWith("/")) path += "index.html";
      const file = Bun.file(join(dir, path));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, stop: () => server.stop(true) };
}

/** A knowledge base shown both ways: `rkb serve` on it, its `--sink web` build on a static server, and a browser. */
export interface Viewing {
  serve: Awaited<ReturnType<typeof startServe>>;
  site: ReturnType<typeof serveFolder>;
  /** The built site's folder. */
  out: string;
  browser: BrowserContext;
  close(): Promise<void>;
}

export async function viewing(box: Sandbox): Promise<Viewing> {
  const serve = await startServe(box);
  const out = join(box.dir, "public");
  const built = await rkb(["site", "build", "--out", out, "--sink", "web"], { env: box.env });
  if (built.exit !== 0) throw new Error(built.stderr);
  const site = serveFolder(out);
  const browser = await openBrowser(box.dir);
  return {
    serve,
    site,
    out,
    browser,
    async close() {
      await browser.close();
      site.stop();
      serve.proc.kill("SIGINT");
      await serve.proc.exited;
    },
  };
}
