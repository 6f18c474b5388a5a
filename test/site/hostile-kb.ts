import { join } from "node:path";
import { gitIn, writeFile, type Sandbox } from "../helpers.ts";
import { siteKb } from "./site-kb.ts";

// A knowledge base in which every text a page shows tries to run script: a lesson's title, folder,
// tags, labels, `when`, provenance, stale reason and body (reference links, autolinks, entities,
// data: and javascript: in every spelling, SVG), the commit messages and author names of its
// history, and a use record's reason. Every attempt sets `window.__pwned` or opens a dialog, so a
// browser can tell; the HTML must hold none of it as markup.

export const HOSTILE = { id: "5c00000001", folder: `general/x"><svg onload=alert(1)>` };

const MARKUP = `<img src=x onerror="window.__pwned='title'">`;

const BODY = `## Statement
Reference links: [a reference][js] and [another][data] and [a third][vb].
Autolinks: <javascript:window.__pwned='autolink'> and <data:text/html,<script>window.__pwned='auto-data'</script>>.
Entities: [entity](&#106;avascript:window.__pwned='entity') and [hex](&#x6A;avascript:window.__pwned='hex') and [tab](java&#x09;script:window.__pwned='tab').
Brackets: [angled](<javascript:window.__pwned='angled'>) and [spaced]( javascript:window.__pwned='spaced' ).
An SVG image: ![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+) and ![remote](https://example.invalid/x.png).
Raw HTML: <iframe src="javascript:window.__pwned='iframe'"></iframe> <object data="x"></object> <base href="https://example.invalid/">
<meta http-equiv="refresh" content="0;url=javascript:window.__pwned='meta'">
<form action="https://example.invalid/"><button formaction="javascript:window.__pwned='form'">go</button></form>
Entities shown as text: &lt;script&gt;window.__pwned='entities'&lt;/script&gt; &amp;lt;b&amp;gt;

[js]: javascript:window.__pwned='reference'
[data]: data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0nZGF0YSc8L3NjcmlwdD4=
[vb]: vbscript:msgbox(1)

## Evidence
Read it in a page.
`;

export async function hostileKb(name = "rkb-hostile"): Promise<Sandbox> {
  const box = await siteKb(name);
  writeFile(
    join(box.kb, HOSTILE.folder, "hostile-fields.md"),
    `---
schema: 1
id: ${HOSTILE.id}
type: fact
status: stale
stale_reason: "<script>window.__pwned='stale'</script>"
verified: 2026-10-02
verified_how: read
tags:
  - "<svg onload=\\"window.__pwned='tag'\\">"
when:
  os: "<img src=x onerror=\\"window.__pwned='when'\\">"
labels:
  sensitivity: public
  team: "<b onmouseover=\\"window.__pwned='label'\\">x</b>"
meta:
  source:
    session: "<script>window.__pwned='source'</script>"
---

# A title ${MARKUP} &amp; &lt;b&gt;

${BODY}`,
  );
  writeFile(
    join(box.kb, ".rkb/usage/hostile.jsonl"),
    `${JSON.stringify({ time: "2026-11-05T10:00:00Z", id: HOSTILE.id, event: "irrelevant", session: "h1", reason: "<script>window.__pwned='reason'</script>" })}\n`,
  );
  gitIn(box.kb, box.env, "add", "-A");
  const author = { ...box.env, GIT_AUTHOR_NAME: `<img src=x onerror="window.__pwned='author'">`, GIT_COMMITTER_NAME: "<script>x</script>" };
  // An rkb-shaped subject names the lesson, so even a published site shows it.
  gitIn(box.kb, author, "commit", "-q", "--no-verify", "-m", `add(general/x): <script>window.__pwned='subject'</script> [${HOSTILE.id}]`);
  return box;
}

/**
 * What a page holds that the site did not write itself, as a browser's parser sees it (Bun's
 * HTMLRewriter): scripts other than the site's one, event attributes, elements that load or run
 * something, and links or sources with a scheme that runs.
 */
export function activeMarkup(file: string, html: string): string[] {
  const found: string[] = [];
  const bad = (what: string) => found.push(`${what} in ${file}`);
  new HTMLRewriter()
    .on("*", {
      element(el) {
        const tag = el.tagName;
        if (["iframe", "object", "embed", "base", "img", "frame", "applet", "video", "audio", "image", "foreignobject"].includes(tag)) bad(`<${tag}>`);
        if (tag === "script" && el.getAttribute("src")?.endsWith("assets/site.js") !== true) bad("<script>");
        if (tag === "meta" && el.getAttribute("http-equiv")?.toLowerCase() === "refresh") bad("<meta refresh>");
        for (const [name, value] of el.attributes) {
          if (/^on/i.test(name)) bad(`${tag} ${name}=`);
          if (/^(?:href|src|action|formaction|xlink:href|data|poster)$/i.test(name) && /^\s*(?:javascript|vbscript|data):/i.test(value) && value !== "data:,")
            bad(`${tag} ${name}="${value.slice(0, 30)}"`);
        }
      },
    })
    .transform(html);
  return found;
}
