import MarkdownIt from "markdown-it";
import { resolveLink } from "../lesson/links.ts";
import { href as siteHref } from "./layout.ts";

// Lesson text through markdown-it: text from sessions must never run as script in a page. Raw HTML
// is escaped (`html: false`), and markdown-it refuses `javascript:`, `vbscript:`, `file:` and
// non-image `data:` links on its own (validateLink). On top of that every link is decided here:
// a link to a lesson the page may show goes to its page, an image of the lesson to its copy, a web
// or mail link stays, and anything else (a lesson left out of this site, a file outside it, an
// unknown scheme) becomes plain text, so a page never points at what it does not publish.

/** Where a link or image of a lesson goes on the site: a URL relative to the site root, or undefined (plain text). */
export interface LinkTargets {
  lessonUrl(path: string): string | undefined;
  assetUrl(path: string): string | undefined;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
const WEB_LINK = /^(?:https?:|mailto:)/i;

md.core.ruler.push("rkb_links", (state) => {
  const { from, targets, up } = state.env as { from: string; targets: LinkTargets; up: string };
  // The page shows the title as its own heading: the body's `# Title` is not repeated.
  const title = state.tokens.findIndex((t) => t.type === "heading_open" && t.tag === "h1");
  if (title >= 0) state.tokens.splice(title, 3);
  for (const block of state.tokens) {
    const open: (typeof block)[] = [];
    for (const token of block.children ?? []) {
      if (token.type === "link_open") {
        const href = String(token.attrGet("href") ?? "");
        const to = WEB_LINK.test(href) ? href : siteUrl(from, href, targets.lessonUrl, up);
        if (to === undefined) {
          token.tag = "span";
          token.attrs = [["class", "unlinked"]];
        } else {
          token.attrSet("href", to);
          if (WEB_LINK.test(to)) token.attrSet("rel", "nofollow noopener noreferrer");
        }
        open.push(token);
      } else if (token.type === "link_close") {
        token.tag = open.pop()?.tag ?? "a";
      } else if (token.type === "image") {
        const to = siteUrl(from, String(token.attrGet("src") ?? ""), targets.assetUrl, up);
        if (to === undefined) {
          // Its alt text, as plain text: a page loads nothing from outside the site.
          token.type = "text";
          token.content = `[image: ${token.content}]`;
          token.children = null;
        } else token.attrSet("src", to);
      }
    }
  }
});

/** A relative link of the lesson at `from`, as a URL on the site (with its #anchor), or undefined. */
function siteUrl(from: string, href: string, find: (path: string) => string | undefined, up: string): string | undefined {
  const path = resolveLink(from, href);
  if (typeof path !== "string") return href.startsWith("#") ? href : undefined;
  const url = find(path);
  if (url === undefined) return undefined;
  const anchor = href.indexOf("#");
  return siteHref(up, url) + (anchor >= 0 ? href.slice(anchor) : "");
}

/** The lesson body as HTML for a page `up` levels below the site root (`../`). */
export function renderLesson(body: string, from: string, targets: LinkTargets, up: string): string {
  return md.render(body, { from, targets, up });
}
