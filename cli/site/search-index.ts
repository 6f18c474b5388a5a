import type { RankedIndex } from "../kb/lookup.ts";

// The search index a site build writes (`assets/search-index.bin`) and the page's search reads:
// exactly what ranking reads (search/lookup `RankedIndex`), the use factor of each lesson, and what
// a result shows. It is made from the index over the admitted lessons only, so it holds no term,
// alias or record of a lesson the site leaves out. Pure: the browser bundle imports it too.

export interface SiteDoc {
  id: string;
  title: string;
  path: string;
  type: string;
  status: string;
  summary: string;
}

interface Header {
  format: string;
  size: number;
  avgLength: number;
  scopes: string[];
  aliases: Record<string, string[]>;
  termCount: number;
  postingCount: number;
  vocabularyBytes: number;
  docs: SiteDoc[];
}

export type SiteIndex = RankedIndex & { docs: SiteDoc[]; usageFactors: Float64Array };

const FORMAT = "rkb-site-index 1";
const align8 = (n: number) => (n + 7) & ~7;

export function encodeSiteIndex(
  index: RankedIndex & { allPostings(): { docs: Uint32Array; tf: Float32Array } },
  docs: SiteDoc[],
  usageFactors: Float64Array,
): Uint8Array {
  const postings = index.allPostings();
  const vocabulary = new TextEncoder().encode(index.vocabulary);
  const header: Header = {
    format: FORMAT,
    size: index.size,
    avgLength: index.avgLength,
    scopes: index.scopes,
    aliases: index.aliases,
    termCount: index.terms.length,
    postingCount: postings.docs.length,
    vocabularyBytes: vocabulary.length,
    docs,
  };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const arrays: ArrayBufferView[] = [
    usageFactors,
    index.termStart,
    postings.docs,
    postings.tf,
    index.lengths,
    index.docScope,
    index.docCurrent,
    index.titleOrder,
  ];
  let at = align8(4 + head.length + vocabulary.length);
  const starts = arrays.map((a) => {
    const start = at;
    at = align8(at + a.byteLength);
    return start;
  });
  const out = new Uint8Array(at);
  new DataView(out.buffer).setUint32(0, head.length, true);
  out.set(head, 4);
  out.set(vocabulary, 4 + head.length);
  arrays.forEach((a, i) => out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), starts[i]!));
  return out;
}

export function decodeSiteIndex(buffer: ArrayBuffer): SiteIndex {
  const headLength = new DataView(buffer).getUint32(0, true);
  const decoder = new TextDecoder();
  const header = JSON.parse(decoder.decode(new Uint8Array(buffer, 4, headLength))) as Header;
  if (header.format !== FORMAT) throw new Error(`search index format ${header.format}, expected ${FORMAT}: rebuild the site`);
  const vocabulary = decoder.decode(new Uint8Array(buffer, 4 + headLength, header.vocabularyBytes));
  let at = align8(4 + headLength + header.vocabularyBytes);
  const take = <T>(make: (buffer: ArrayBuffer, offset: number, length: number) => T, length: number, bytes: number): T => {
    const array = make(buffer, at, length);
    at = align8(at + length * bytes);
    return array;
  };
  const n = header.size;
  const usageFactors = take((b, o, l) => new Float64Array(b, o, l), n, 8);
  const termStart = take((b, o, l) => new Uint32Array(b, o, l), header.termCount + 1, 4);
  const postDocs = take((b, o, l) => new Uint32Array(b, o, l), header.postingCount, 4);
  const postTf = take((b, o, l) => new Float32Array(b, o, l), header.postingCount, 4);
  const lengths = take((b, o, l) => new Float32Array(b, o, l), n, 4);
  const docScope = take((b, o, l) => new Uint32Array(b, o, l), n, 4);
  const docCurrent = take((b, o, l) => new Uint32Array(b, o, l), n, 4);
  const titleOrder = take((b, o, l) => new Uint32Array(b, o, l), n, 4);
  return {
    size: n,
    avgLength: header.avgLength,
    lengths,
    docScope,
    docCurrent,
    titleOrder,
    scopes: header.scopes,
    terms: header.termCount ? vocabulary.split("\n") : [],
    vocabulary,
    termStart,
    postings: (id) => ({ docs: postDocs.subarray(termStart[id], termStart[id + 1]), tf: postTf.subarray(termStart[id], termStart[id + 1]) }),
    aliases: header.aliases,
    lesson: (i) => header.docs[i]!,
    docs: header.docs,
    usageFactors,
  };
}
