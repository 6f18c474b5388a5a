import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { rkb, type Sandbox } from "../test/helpers.ts";
import { HIDDEN, PUBLIC, siteKb } from "../test/site/site-kb.ts";
import { type Viewing, viewing, watchedPage } from "./browser.ts";

// The pages in a real headless Chromium, from `rkb serve` (everything, for the owner) and from a
// `rkb site build --sink web` folder served as a static host would. Run with `npm run test:browser`
// (needs Debian's chromium, or RKB_CHROMIUM); `npm test` does not run these.

let box: Sandbox;
let browser: BrowserContext;
let serve: Viewing["serve"];
let site: Viewing["site"];
let view: Viewing | undefined;

const PAGES = [
  "index.html",
  "tree/index.html",
  "tree/general/tar/index.html",
  "search.html",
  "use.html",
  "review.html",
  `lessons/${PUBLIC.tar.id}.html`,
  `lessons/${PUBLIC.cmake.id}.html`,
  `lessons/${PUBLIC.hostile.id}.html`,
];

beforeAll(async () => {
  box = await siteKb("rkb-browser");
  view = await viewing(box);
  ({ serve, site, browser } = view);
});

afterAll(async () => {
  await view?.close();
});

async function open(url: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const watched = await watchedPage(browser);
  await watched.page.setViewportSize({ width, height: 800 });
  await watched.page.goto(url, { waitUntil: "load" });
  return watched;
}

/** The counts the injection plot shows, as `week series count` lines. */
async function injectionBars(page: Page): Promise<string[]> {
  return page.$$eval('figure[aria-label="Lesson injections per week by outcome"] rect[data-count]', (rects) =>
    rects.map((r) => `${r.getAttribute("data-week")} ${r.getAttribute("data-series")} ${r.getAttribute("data-count")}`).sort(),
  );
}

describe("the pages in Chromium", () => {
  test("every page loads with no console error, from rkb serve and from the built site", async () => {
    const found: string[] = [];
    for (const base of [serve.url, site.url]) {
      for (const path of [...PAGES, ...(base === serve.url ? ["inbox.html"] : [])]) {
        const { page, errors } = await open(base + path);
        await page.waitForLoadState("networkidle");
        found.push(...errors.map((e) => `${base}${path}: ${e}`));
        await page.close();
      }
    }
    expect(found).toEqual([]);
  });

  test("search finds a lesson as you type, in the order rkb search --all gives", async () => {
    for (const [base, query] of [
      [serve.url, "tar symlink exists"],
      [serve.url, "zlib"],
      [site.url, "extract symlink"],
    ] as const) {
      const { page, errors } = await open(`${base}search.html`);
      await page.waitForSelector("body[data-search-ready]");
      await page.locator("#q").pressSequentially(query, { delay: 20 });
      await page.waitForFunction((q) => new URL(location.href).searchParams.get("q") === q, query);
      const shown = await page.$$eval("#results li", (items) => items.map((i) => i.getAttribute("data-id")));
      expect(shown.length).toBeGreaterThan(0);
      if (base === serve.url) {
        // The owner's page ranks the whole knowledge base, as the CLI does.
        const cli = (await rkb(["search", "--all", "--limit", "30", "--format", "json", query], { env: box.env })).json();
        expect(shown).toEqual(cli.results.map((r: { id: string }) => r.id));
      }
      expect(errors).toEqual([]);
      await page.close();
    }
    const { page } = await open(`${site.url}search.html?q=${encodeURIComponent("tar extract symlink")}`);
    await page.waitForSelector("body[data-search-ready]");
    expect(await page.locator("#results li a").first().textContent()).toBe(PUBLIC.tar.title);
    // A word only a left-out lesson holds finds nothing on the published site.
    await page.locator("#q").fill(HIDDEN.confidential.word);
    await page.waitForFunction(() => document.getElementById("search-status")?.textContent?.startsWith("0 lessons"));
    expect(await page.locator("#results li").count()).toBe(0);
    await page.close();
  });

  test("the injection plot shows the counts of the known use records, and the published one only its lessons'", async () => {
    const owner = await open(`${serve.url}use.html`);
    // tar: injected in s1 (then worked), s2 (then irrelevant), once without a session; cmake once,
    // no report; the confidential lesson once, then worked (that one only for the owner).
    expect(await injectionBars(owner.page)).toEqual([
      "2026-11-02 irrelevant 1",
      "2026-11-02 no report 1",
      "2026-11-02 worked 1",
      "2026-11-09 no report 1",
      "2026-11-09 worked 1",
    ]);
    expect(await owner.page.locator("figure.plot figcaption").first().textContent()).toContain(
      "Each bar counts the times rkb put a lesson in front of an agent",
    );
    const published = await open(`${site.url}use.html`);
    expect(await injectionBars(published.page)).toEqual(["2026-11-02 irrelevant 1", "2026-11-02 no report 1", "2026-11-02 worked 1", "2026-11-09 no report 1"]);
    const helped = await published.page.$$eval('figure[aria-label="Lessons reported to help most"] rect', (r) => r.map((x) => x.getAttribute("data-count")));
    expect(helped).toEqual(["2"]);
    // Coverage: 2 of 10, then 6 of 20 for the public lessons; 4 of 10 and 10 of 20 for the owner.
    const coverage = (p: Page) =>
      p.$$eval('figure[aria-label="Coverage of replayed failed commands"] circle', (c) => c.map((x) => x.getAttribute("data-count")));
    expect(await coverage(published.page)).toEqual(["20", "30"]);
    expect(await coverage(owner.page)).toEqual(["40", "50"]);
    await owner.page.close();
    await published.page.close();
  });

  test("the lesson with <script> and javascript: links is inert", async () => {
    for (const base of [serve.url, site.url]) {
      const { page, errors } = await open(`${base}lessons/${PUBLIC.hostile.id}.html`);
      let dialogs = 0;
      page.on("dialog", (d) => (dialogs++, d.dismiss()));
      await page.waitForLoadState("networkidle");
      const article = page.locator("article.lesson-body");
      expect(await article.locator("script, img, svg, iframe, object").count()).toBe(0);
      const hrefs = await article.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
      expect(hrefs.filter((h) => !/^(?:https?:|mailto:|#|\.\.\/)/.test(h ?? ""))).toEqual([]);
      // Its text is shown as text.
      expect(await article.textContent()).toContain("<script>window.__pwned = 'script'</script>");
      for (const item of await article.locator("li").all()) await item.click();
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned ?? null)).toBeNull();
      expect(dialogs).toBe(0);
      expect(page.url()).toContain(PUBLIC.hostile.id);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  test("layout holds at 375 px and 1280 px: no horizontal overflow on any page", async () => {
    const overflow: string[] = [];
    for (const width of [375, 1280]) {
      for (const path of PAGES) {
        const { page } = await open(site.url + path, width);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        const shot = await page.screenshot({ fullPage: true });
        // A PNG's width is the 4 bytes at offset 16: a full-page shot is as wide as the page's content.
        const shotWidth = shot.readUInt32BE(16);
        if (wide > 0 || shotWidth > width) overflow.push(`${path} at ${width}: ${wide} px too wide, screenshot ${shotWidth} px`);
        await page.close();
      }
    }
    expect(overflow).toEqual([]);
  });

  test("keyboard: a skip link first, / focuses the search, Enter follows a link; the theme switches light and dark", async () => {
    const { page } = await open(`${site.url}index.html`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to the content");
    await page.keyboard.press("/");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe("search");
    await page.keyboard.type("zlib");
    await page.keyboard.press("Enter");
    await page.waitForSelector("body[data-search-ready]");
    await page.waitForSelector("#results li a");
    await page.locator("#results li a").first().focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/lessons\/5a00000002\.html$/);
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const first = await background();
    await page.locator("#theme").click();
    const second = await background();
    expect(second).not.toBe(first);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toMatch(/^(light|dark)$/);
    await page.locator("#theme").click();
    expect(await background()).toBe(first);
    await page.close();
  });
});
