import { parseQuery, ranking } from "../../search/rank.ts";
import type { SiteDoc, SiteIndex } from "../search-index.ts";

// The page's search: the CLI's own parseQuery and ranking (search/rank.ts, bundled for the browser
// when rkb is built) over the index the site build wrote, so a query finds what `rkb search --all`
// finds among the lessons the site holds, in the same order.

/** Per index, each lesson id's position: ranking asks for a lesson's use factor by id. */
const positions = new WeakMap<SiteIndex, Map<string, number>>();

/** The first `limit` lessons a query ranks, best first. */
export function searchSite(index: SiteIndex, query: string, limit: number): SiteDoc[] {
  let doc = positions.get(index);
  if (!doc) positions.set(index, (doc = new Map(index.docs.map((d, i) => [d.id, i]))));
  const ranked = ranking(index, parseQuery(index, query), {
    usage: index.usageFactors.length ? (id) => index.usageFactors[doc!.get(id)!]! : undefined,
  });
  return ranked.first(limit).map((r) => index.docs[r.doc]!);
}
