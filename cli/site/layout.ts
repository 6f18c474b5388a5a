import { esc } from "./html.ts";
import type { SiteModel } from "./model.ts";

// The frame of every page, and where each page lives. Links are relative (`up` leads from a page to
// the site root), so a built site works from any folder: a GitHub Pages project path, a file server.

export const urls = {
  home: "index.html",
  tree: "tree/index.html",
  search: "search.html",
  use: "use.html",
  review: "review.html",
  inbox: "inbox.html",
  lesson: (id: string) => `lessons/${id}.html`,
  folder: (folder: string) => `tree/${folder}/index.html`,
  /** A lesson's image, copied beside the pages under its knowledge-base path. */
  file: (path: string) => `files/${path}`,
  css: "assets/site.css",
  js: "assets/site.js",
  searchIndex: "assets/search-index.bin",
};

/**
 * A link from a page `up` levels down to a file of the site, each part percent-encoded: a folder's
 * name is whatever is on disk (quotes, `#`, markup), and the link must neither end the attribute
 * nor point elsewhere. The result holds no `"`, `<`, `>` or `&`.
 */
export function href(up: string, url: string): string {
  return up + url.split("/").map(encodeURIComponent).join("/");
}

/** The path from a page to the site root: `""` at the top, `../` one folder down. */
export function upFrom(url: string): string {
  return "../".repeat(url.split("/").length - 1);
}

type NavKey = "home" | "tree" | "search" | "use" | "review" | "inbox" | "lesson";

// What scripts may do, said to the browser too: only the site's own script runs, so even text that
// got past the escaping could not run as one. Styles and images come from the site alone.
const POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'";

export function page(model: SiteModel, url: string, nav: NavKey, title: string, body: string): string {
  const up = upFrom(url);
  const items: [NavKey, string, string][] = [
    ["home", urls.home, "Home"],
    ["tree", urls.tree, "Folders"],
    ["search", urls.search, "Search"],
    ["use", urls.use, "Use"],
    ["review", urls.review, "Review"],
    ...(model.inbox ? [["inbox", urls.inbox, "Inbox"] as [NavKey, string, string]] : []),
  ];
  const links = items.map(([key, href, text]) => `<li><a href="${up}${href}"${key === nav ? ' aria-current="page"' : ""}>${text}</a></li>`).join("");
  const scope = model.audience.kind === "owner" ? "rkb serve: everything, for you" : `published for [sinks.${model.audience.name}]`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="rkb-root" content="${up}">
<title>${esc(title)} · rkb</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${up}${urls.css}">
<script type="module" src="${up}${urls.js}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="top">
<a class="name" href="${up}${urls.home}">rkb</a>
<nav aria-label="Pages"><ul>${links}</ul></nav>
<form role="search" action="${up}${urls.search}"><input type="search" name="q" aria-label="Search the lessons (press /)" placeholder="Search (/)"><button type="submit">Go</button></form>
<button type="button" id="theme" aria-label="Switch between light and dark">Theme</button>
</header>
<main id="main">
${body}
</main>
<footer class="muted">${esc(scope)}</footer>
</body>
</html>
`;
}
