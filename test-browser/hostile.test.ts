import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { HOSTILE, hostileKb } from "../test/site/hostile-kb.ts";
import { type Viewing, viewing, watchedPage } from "./browser.ts";

// The QA attack in a real Chromium: a knowledge base whose every shown text tries to run script
// (test/site/hostile-kb.ts). Every page of `rkb serve` and of a built site is opened, each link of
// the lesson's text clicked, the search run on the hostile words: nothing runs, no dialog opens,
// no page leaves the site.

let view: Viewing;
let pages: string[];

beforeAll(async () => {
  view = await viewing(await hostileKb("rkb-browser-hostile"));
  const walk = (at: string): string[] =>
    readdirSync(at).flatMap((n) => (statSync(join(at, n)).isDirectory() ? walk(join(at, n)) : n.endsWith(".html") ? [relative(view.out, join(at, n))] : []));
  pages = walk(view.out).map((p) => p.split("/").map(encodeURIComponent).join("/"));
});

afterAll(async () => {
  await view?.close();
});

const pwned = () => (window as unknown as { __pwned?: string }).__pwned ?? null;

describe("hostile text in Chromium", () => {
  test("every page of serve and of the built site: nothing runs, no dialog opens, no console error", async () => {
    const found: string[] = [];
    for (const base of [view.serve.url, view.site.url]) {
      for (const path of [...pages, ...(base === view.serve.url ? ["inbox.html"] : [])]) {
        const { page, errors } = await watchedPage(view.browser);
        page.on("dialog", (d) => (found.push(`dialog on ${base}${path}`), d.dismiss()));
        await page.goto(base + path, { waitUntil: "networkidle" });
        const ran = await page.evaluate(pwned);
        if (ran) found.push(`${ran} ran on ${base}${path}`);
        found.push(...errors.map((e) => `${base}${path}: ${e}`));
        await page.close();
      }
    }
    expect(found).toEqual([]);
  }, 120_000);

  test("clicking every link and button of the hostile lesson, and searching its words, runs nothing and stays on the site", async () => {
    for (const base of [view.serve.url, view.site.url]) {
      const url = `${base}lessons/${HOSTILE.id}.html`;
      const { page } = await watchedPage(view.browser);
      let dialogs = 0;
      page.on("dialog", (d) => (dialogs++, d.dismiss()));
      await page.goto(url, { waitUntil: "networkidle" });
      const links = await page.locator("main a, main button, main summary").count();
      for (let i = 0; i < links; i++) {
        await page.goto(url, { waitUntil: "load" });
        await page
          .locator("main a, main button, main summary")
          .nth(i)
          .click({ timeout: 2_000, noWaitAfter: true })
          .catch(() => {});
        // A link to another page of the site navigates: ask the page that is there once it settled.
        await page.waitForTimeout(150);
        await page.waitForLoadState("load");
        expect(await page.evaluate(pwned).catch(async () => (await page.waitForLoadState("load"), page.evaluate(pwned)))).toBeNull();
        expect(page.url().startsWith(base)).toBe(true);
      }
      await page.goto(`${base}search.html?q=${encodeURIComponent("title img onerror pwned")}`, { waitUntil: "load" });
      await page.waitForSelector("body[data-search-ready]");
      expect(await page.locator("#results li").count()).toBeGreaterThan(0);
      expect(await page.locator("#results img, #results svg, #results script").count()).toBe(0);
      expect(await page.evaluate(pwned)).toBeNull();
      expect(dialogs).toBe(0);
      await page.close();
    }
  }, 120_000);
});
