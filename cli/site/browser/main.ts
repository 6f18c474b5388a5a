import { decodeSiteIndex, type SiteIndex } from "../search-index.ts";
import { searchSite } from "./search.ts";

// The one script of every page (assets/site.js): the theme switch, the copy buttons of the rkb
// commands a page suggests, "/" to search, and the search page itself. Lesson text is put into the
// page only as text (textContent), never as HTML.

const root = document.querySelector<HTMLMetaElement>('meta[name="rkb-root"]')?.content ?? "";

function setTheme(theme: string | null): void {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

function themeSwitch(): void {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem("rkb-theme");
  } catch {
    // storage refused (a file:// page in some browsers): the theme just is not remembered
  }
  setTheme(saved);
  document.getElementById("theme")?.addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme
      ? document.documentElement.dataset.theme === "dark"
      : matchMedia("(prefers-color-scheme: dark)").matches;
    const next = dark ? "light" : "dark";
    setTheme(next);
    try {
      localStorage.setItem("rkb-theme", next);
    } catch {
      // as above
    }
  });
}

function copyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    button.addEventListener("click", async () => {
      const text = button.dataset.copy ?? "";
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = "Copied";
      } catch {
        // no clipboard (an insecure origin): select the command so Ctrl-C copies it
        const code = button.previousElementSibling;
        if (code) getSelection()?.selectAllChildren(code);
        button.textContent = "Selected";
      }
      setTimeout(() => (button.textContent = "Copy"), 1500);
    });
  }
}

function slashToSearch(): void {
  document.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement;
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    const field = document.querySelector<HTMLInputElement>('input[type="search"]');
    if (!field) return;
    event.preventDefault();
    field.focus();
  });
}

const LIMIT = 30;

async function searchPage(): Promise<void> {
  const field = document.getElementById("q") as HTMLInputElement | null;
  const list = document.getElementById("results");
  const status = document.getElementById("search-status");
  if (!field || !list || !status) return;
  status.textContent = "Loading the index…";
  let index: SiteIndex;
  try {
    const response = await fetch(`${root}assets/search-index.bin`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    index = decodeSiteIndex(await response.arrayBuffer());
  } catch (e) {
    status.textContent = `The search index did not load (${(e as Error).message}).`;
    return;
  }
  const run = () => {
    const query = field.value.trim();
    const started = performance.now();
    const found = query ? searchSite(index, query, LIMIT) : [];
    const items = found.map((doc) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = `${root}lessons/${doc.id}.html`;
      link.textContent = doc.title;
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = ` ${doc.type} · ${doc.path}${doc.status === "active" ? "" : ` · ${doc.status}`}`;
      const summary = document.createElement("p");
      summary.textContent = doc.summary;
      item.append(link, meta, summary);
      item.dataset.id = doc.id;
      return item;
    });
    list.replaceChildren(...items);
    const ms = performance.now() - started;
    list.dataset.ms = ms.toFixed(2);
    status.textContent = query
      ? `${found.length === LIMIT ? `The first ${LIMIT}` : found.length} lesson${found.length === 1 ? "" : "s"} for “${query}”.`
      : `${index.size} lessons; type to search.`;
    const url = new URL(location.href);
    if (query) url.searchParams.set("q", query);
    else url.searchParams.delete("q");
    history.replaceState(null, "", url);
  };
  field.addEventListener("input", run);
  field.value = new URLSearchParams(location.search).get("q") ?? field.value;
  run();
  document.body.dataset.searchReady = "1";
}

themeSwitch();
copyButtons();
slashToSearch();
void searchPage();
