import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { FolderNote } from "../lesson/notes.ts";
import type { IndexedLesson, Postings, SearchIndex, Unreadable } from "./index.ts";

// The search index's cache file: magic, header length, a JSON header, then the lessons as JSON and
// the postings and per-lesson tables as 4-byte aligned binary arrays. A search reads the header
// and the tables it needs, and decodes only the lessons it shows; a file of another format,
// signature, root or length is not read (the index is rebuilt).

/** The cache's format: a file of another format is rebuilt, never read. */
export const FORMAT = "rkb-search-index 5";
const MAGIC = new TextEncoder().encode("RKBIDX1\n");

interface Header {
  format: string;
  root: string;
  signature: string;
  size: number;
  avgLength: number;
  termCount: number;
  postingCount: number;
  termsBytes: number;
  docsBytes: number;
  scopes: string[];
  aliases: Record<string, string[]>;
  topics: string[];
  notes: FolderNote[];
  files: string[];
  unreadable: Unreadable[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const align4 = (n: number) => (n + 3) & ~3;

export function encodeIndex(index: SearchIndex, signature: string): Uint8Array {
  const postings = index.allPostings();
  const termsBlob = encoder.encode(index.vocabulary);
  const docLines: Uint8Array[] = [];
  const docOffsets = new Uint32Array(index.size + 1);
  let docsBytes = 0;
  for (let i = 0; i < index.size; i++) {
    const line = encoder.encode(JSON.stringify(index.lesson(i)));
    docOffsets[i] = docsBytes;
    docsBytes += line.length;
    docLines.push(line);
  }
  docOffsets[index.size] = docsBytes;
  const header: Header = {
    format: FORMAT,
    root: index.root,
    signature,
    size: index.size,
    avgLength: index.avgLength,
    termCount: index.terms.length,
    postingCount: postings.docs.length,
    termsBytes: termsBlob.length,
    docsBytes,
    scopes: index.scopes,
    aliases: index.aliases,
    topics: index.topics,
    notes: index.notes,
    files: index.files,
    unreadable: index.unreadable,
  };
  const headerBytes = encoder.encode(JSON.stringify(header));
  const arrays: ArrayBufferView[] = [
    index.termStart,
    postings.docs,
    postings.tf,
    index.lengths,
    index.docScope,
    index.docCurrent,
    index.titleOrder,
    docOffsets,
  ];
  const start = align4(MAGIC.length + 4 + headerBytes.length + termsBlob.length + docsBytes);
  const total = start + arrays.reduce((n, a) => n + a.byteLength, 0);
  const out = new Uint8Array(total);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(MAGIC.length, headerBytes.length, true);
  let at = MAGIC.length + 4;
  for (const part of [headerBytes, termsBlob, ...docLines]) {
    out.set(part, at);
    at += part.length;
  }
  at = start;
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  return out;
}

/** Closes a cache file's descriptor once nothing uses the index read from it any more. */
const closeWhenUnused = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/**
 * The cached index, read in parts through one open descriptor: a search needs the postings of a
 * few terms and the records of the lessons it shows, a small part of a file of 18 MB at 10,000
 * lessons. Mapping or reading the whole file cost more than the search: the runtime counts those
 * bytes as allocated and collects garbage at the next allocation (~5 ms at 10,000 lessons). The
 * file is only ever replaced by a rename, never changed in place, so the descriptor keeps reading
 * the file it opened.
 */
export function readCache(file: string, root: string, signature: string): SearchIndex | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const index = decodeIndex((offset, length) => readAt(fd, offset, length), fstatSync(fd).size, root, signature);
    if (index) {
      closeWhenUnused.register(index, fd);
      return index;
    }
  } catch {
    // a damaged or foreign cache file is rebuilt
  }
  closeSync(fd);
  return undefined;
}

function readAt(fd: number, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let got = 0; got < length; ) {
    const n = readSync(fd, bytes, got, length - got, offset + got);
    if (n <= 0) throw new Error(`the search cache ended at byte ${offset + got}, before ${offset + length}`);
    got += n;
  }
  return bytes;
}

/** Whether a table of offsets starts at 0 and ends at `end`. */
const spans = (offsets: Uint32Array, end: number) => offsets[0] === 0 && offsets[offsets.length - 1] === end;

/** A byte range of an encoded index (its file, or the bytes in a test), as a new array with a buffer of its own. */
export type ReadAt = (offset: number, length: number) => Uint8Array;

export function decodeIndex(read: ReadAt, byteLength: number, root: string, signature: string): SearchIndex | undefined {
  if (byteLength < MAGIC.length + 4) return undefined;
  const lead = read(0, MAGIC.length + 4);
  if (!MAGIC.every((b, i) => lead[i] === b)) return undefined;
  const headerLength = new DataView(lead.buffer).getUint32(MAGIC.length, true);
  const header = JSON.parse(decoder.decode(read(lead.length, headerLength))) as Header;
  if (header.format !== FORMAT || header.signature !== signature || header.root !== root) return undefined;
  const termsAt = lead.length + headerLength;
  const docsAt = termsAt + header.termsBytes;
  const termStartAt = align4(docsAt + header.docsBytes);
  const postDocsAt = termStartAt + (header.termCount + 1) * 4;
  const postTfAt = postDocsAt + header.postingCount * 4;
  const perDocAt = postTfAt + header.postingCount * 4;
  // A file of another length is damaged (cut short, or not this header's): rebuilt, never half read.
  if (byteLength !== perDocAt + (5 * header.size + 1) * 4) return undefined;
  const vocabulary = decoder.decode(read(termsAt, header.termsBytes));
  const terms = header.termCount ? vocabulary.split("\n") : [];
  const termStart = new Uint32Array(read(termStartAt, (header.termCount + 1) * 4).buffer);
  // lengths, docScope, docCurrent, titleOrder and docOffsets lie one after the other: one read.
  const perDoc = read(perDocAt, (5 * header.size + 1) * 4).buffer;
  const n = header.size;
  const lengths = new Float32Array(perDoc, 0, n);
  const docScope = new Uint32Array(perDoc, 4 * n, n);
  const docCurrent = new Uint32Array(perDoc, 8 * n, n);
  const titleOrder = new Uint32Array(perDoc, 12 * n, n);
  const docOffsets = new Uint32Array(perDoc, 16 * n, n + 1);
  // The right length is not enough: a file overwritten in place must not answer with wrong lessons.
  // Its offset tables must end where the header says (checking every entry costs ~1 ms at 10,000).
  if (!spans(termStart, header.postingCount) || !spans(docOffsets, header.docsBytes)) return undefined;
  const postingsRead = new Map<number, Postings>();
  const decoded = new Map<number, IndexedLesson>();
  const postingsAt = (from: number, count: number): Postings => ({
    docs: new Uint32Array(read(postDocsAt + from * 4, count * 4).buffer),
    tf: new Float32Array(read(postTfAt + from * 4, count * 4).buffer),
  });
  return {
    root,
    size: header.size,
    avgLength: header.avgLength,
    lengths,
    docScope,
    docCurrent,
    titleOrder,
    scopes: header.scopes,
    terms,
    vocabulary,
    termStart,
    postings(id) {
      let p = postingsRead.get(id);
      if (!p) postingsRead.set(id, (p = postingsAt(termStart[id]!, termStart[id + 1]! - termStart[id]!)));
      return p;
    },
    allPostings: () => postingsAt(0, header.postingCount),
    aliases: header.aliases,
    topics: header.topics,
    notes: header.notes,
    files: header.files,
    unreadable: header.unreadable,
    lesson(i) {
      let l = decoded.get(i);
      if (!l) {
        l = JSON.parse(decoder.decode(read(docsAt + docOffsets[i]!, docOffsets[i + 1]! - docOffsets[i]!))) as IndexedLesson;
        decoded.set(i, l);
      }
      return l;
    },
  };
}
