import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { shown } from "../base/fsutil.ts";
import { RkbError } from "../base/errors.ts";
import type { SiteModel } from "./model.ts";
import { siteFile, siteUrls } from "./routes.ts";

// `rkb site build`: every file of the site written into one folder. The folder is rkb's from then
// on (a marker file says so): a rebuild empties it first, so a lesson that left the sink leaves the
// site too. A folder that holds anything else, or the knowledge base, is refused.

const MARKER = ".rkb-site";

export interface BuiltSite {
  out: string;
  files: number;
  bytes: number;
}

export function buildSite(model: SiteModel, root: string, outDir: string): BuiltSite {
  const out = resolve(outDir);
  // Compared as the file system sees them: a path through a link into the knowledge base is inside it.
  const kb = realPath(root);
  const real = realPath(out);
  const rel = relative(real, kb);
  if (rel === "" || !rel.startsWith("..") || !relative(kb, real).startsWith("..")) {
    throw new RkbError(
      "refused",
      `${shown(outDir)} is the knowledge base, inside it, or holds it`,
      "build the site into a folder of its own, e.g. --out ./site",
    );
  }
  prepare(out, outDir);
  let files = 0;
  let bytes = 0;
  const made = new Set<string>();
  for (const url of siteUrls(model)) {
    const file = siteFile(model, root, url);
    if (!file) continue;
    const path = join(out, url);
    const folder = dirname(path);
    if (!made.has(folder)) mkdirSync(folder, { recursive: true });
    made.add(folder);
    writeFileSync(path, file.body);
    files++;
    bytes += typeof file.body === "string" ? Buffer.byteLength(file.body) : file.body.length;
  }
  // GitHub Pages would otherwise run the folder through Jekyll.
  writeFileSync(join(out, ".nojekyll"), "");
  return { out, files, bytes };
}

/** The path with every link in the part that exists resolved (what is below it does not exist yet). */
function realPath(path: string): string {
  const absolute = resolve(path);
  if (existsSync(absolute)) return realpathSync(absolute);
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(realPath(parent), basename(absolute));
}

/** An empty folder, or one rkb built before (emptied): the only folders a build writes into. */
function prepare(out: string, given: string): void {
  if (!existsSync(out)) {
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, MARKER), "built by rkb site build; the next build empties this folder\n");
    return;
  }
  if (!lstatSync(out).isDirectory()) throw new RkbError("refused", `${shown(given)} is not a folder`, "name a folder for the site with --out");
  const names = readdirSync(out);
  if (names.length && !names.includes(MARKER)) {
    throw new RkbError(
      "refused",
      `${shown(given)} is not empty and was not built by rkb (no ${MARKER} in it)`,
      "name a new or empty folder with --out; rkb empties only a folder it built",
    );
  }
  // A deploy checkout (`.git`) stays; everything else was written by the last build.
  for (const name of names) if (name !== MARKER && name !== ".git") rmSync(join(out, name), { recursive: true, force: true });
  writeFileSync(join(out, MARKER), "built by rkb site build; the next build empties this folder\n");
}
