import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ASSETS } from "./assets.ts";
import { encodeSiteIndex } from "./search-index.ts";
import { urls } from "./layout.ts";
import type { SiteModel } from "./model.ts";
import { homePage } from "./pages/home.ts";
import { lessonPage, linkTargets } from "./pages/lesson.ts";
import { folderPage, folders, inboxPage, reviewPage, searchPage, treePage } from "./pages/lists.ts";
import { usePage } from "./pages/use.ts";
import { usageFactor } from "../search/rank.ts";
import { resolveLink } from "../lesson/links.ts";

// Every file of the site, by its URL: `rkb site build` writes them all, `rkb serve` answers one.
// One table, so the two can never show different things.

export interface SiteFile {
  type: string;
  body: string | Uint8Array;
}

const HTML = "text/html; charset=utf-8";
const TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", webp: "image/webp" };

/** The URL of every file of the site. */
export function* siteUrls(model: SiteModel): Generator<string> {
  yield* [urls.home, urls.tree, urls.search, urls.use, urls.review, urls.css, urls.js, urls.searchIndex];
  if (model.inbox) yield urls.inbox;
  for (const f of folders(model)) yield urls.folder(f.folder);
  for (const l of model.lessons) yield urls.lesson(l.lesson.id);
  yield* imageUrls(model);
}

/** The file at a URL of the site (relative, no leading `/`), or undefined: nothing else is served. */
export function siteFile(model: SiteModel, root: string, url: string): SiteFile | undefined {
  const html = (body: string): SiteFile => ({ type: HTML, body });
  switch (url) {
    case "":
    case urls.home:
      return html(homePage(model));
    case urls.tree:
      return html(treePage(model));
    case urls.search:
      return html(searchPage(model));
    case urls.use:
      return html(usePage(model));
    case urls.review:
      return html(reviewPage(model));
    case urls.inbox:
      return model.inbox ? html(inboxPage(model)) : undefined;
    case urls.css:
      return { type: "text/css; charset=utf-8", body: ASSETS.css };
    case urls.js:
      return { type: "text/javascript; charset=utf-8", body: ASSETS.js };
    case urls.searchIndex:
      return { type: "application/octet-stream", body: searchIndexFile(model) };
  }
  const lesson = /^lessons\/([0-9a-f]{10})\.html$/.exec(url);
  if (lesson) {
    const entry = model.byId.get(lesson[1]!);
    return entry ? html(lessonPage(model, entry)) : undefined;
  }
  const folder = /^tree\/(.+)\/index\.html$/.exec(url);
  if (folder) {
    const found = folders(model).find((f) => f.folder === folder[1]);
    return found ? html(folderPage(model, found)) : undefined;
  }
  if (url.startsWith("files/")) {
    const path = url.slice("files/".length);
    if (!imagePaths(model).has(path)) return undefined;
    const file = join(root, path);
    // A real file, not a link out of the knowledge base.
    if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    return { type: TYPES[path.split(".").pop()!.toLowerCase()]!, body: readFileSync(file) };
  }
  return undefined;
}

/** Images the shown lessons link to in their own `.assets` folder: the only files the site copies. */
function imagePaths(model: SiteModel): Set<string> {
  const cached = imageCache.get(model);
  if (cached) return cached;
  const paths = new Set<string>();
  for (const { lesson } of model.lessons) {
    const targets = linkTargets(model, lesson.path);
    for (const link of lesson.scan.links) {
      if (!link.image) continue;
      const resolved = resolveImage(lesson.path, link.target);
      if (resolved && targets.assetUrl(resolved)) paths.add(resolved);
    }
  }
  imageCache.set(model, paths);
  return paths;
}
const imageCache = new WeakMap<SiteModel, Set<string>>();

function* imageUrls(model: SiteModel): Generator<string> {
  for (const path of imagePaths(model)) yield urls.file(path);
}

function resolveImage(from: string, target: string): string | undefined {
  const path = resolveLink(from, target);
  return typeof path === "string" ? path : undefined;
}

const indexCache = new WeakMap<SiteModel, Uint8Array>();

/** The search index of the shown lessons, as the page's search reads it. */
function searchIndexFile(model: SiteModel): Uint8Array {
  let bytes = indexCache.get(model);
  if (bytes) return bytes;
  const { index } = model;
  const docs = Array.from({ length: index.size }, (_, i) => {
    const l = index.lesson(i);
    return { id: l.id, title: l.title, path: l.path, type: l.type, status: l.status, summary: l.summary };
  });
  // As `rkb search` does: use factors only when there are use records at all.
  const factors = model.records.length ? Float64Array.from(docs, (d) => usageFactor(model.byId.get(d.id)!.usage)) : new Float64Array(0);
  bytes = encodeSiteIndex(index, docs, factors);
  indexCache.set(model, bytes);
  return bytes;
}
