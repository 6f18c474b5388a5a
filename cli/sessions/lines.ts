import { closeSync, openSync, readSync } from "node:fs";

// Streams a file line by line from a byte offset, holding one chunk (plus the line that spans
// chunks) in memory. Reads are synchronous: the work is parsing, not waiting, and Bun's promise
// reads cost more in round trips than the whole parse. A line longer than maxLineBytes is never
// buffered: its bytes are dropped as they stream past and the line is reported as too long.

const CHUNK = 1 << 20;
// One read buffer for the process: lines handed to onLine already stop being valid at the next
// read, and a run over an archive would otherwise allocate a megabyte per session file.
let shared: Buffer | undefined;

export interface RawLine {
  /** The line's bytes without the newline; null when it was too long to keep. */
  bytes: Buffer | null;
  /** False for a last line that has no newline after it (still being written, or cut off). */
  terminated: boolean;
  /** Byte offset just after this line's newline (or its end when unterminated). */
  end: number;
}

/** Calls onLine for each line, in order. */
export function scanLines(path: string, from: number, maxLineBytes: number, onLine: (line: RawLine) => void): void {
  const fd = openSync(path, "r");
  try {
    const buf = (shared ??= Buffer.allocUnsafe(CHUNK));
    let pos = from;
    let parts: Buffer[] = [];
    let partLen = 0;
    let tooLong = false;
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, CHUNK, pos);
      if (bytesRead === 0) break;
      const view = buf.subarray(0, bytesRead);
      let start = 0;
      while (start < bytesRead) {
        const nl = view.indexOf(10, start);
        if (nl === -1) {
          const piece = view.subarray(start);
          if (!tooLong && partLen + piece.length > maxLineBytes) {
            tooLong = true;
            parts = [];
          }
          if (!tooLong) parts.push(Buffer.from(piece)); // copied: buf is reused by the next read
          partLen += piece.length;
          break;
        }
        const piece = view.subarray(start, nl);
        if (partLen + piece.length > maxLineBytes) tooLong = true;
        const bytes = tooLong ? null : parts.length ? Buffer.concat([...parts, piece]) : piece;
        onLine({ bytes: bytes && stripCR(bytes), terminated: true, end: pos + nl + 1 });
        parts = [];
        partLen = 0;
        tooLong = false;
        start = nl + 1;
      }
      pos += bytesRead;
    }
    if (partLen > 0) onLine({ bytes: tooLong ? null : Buffer.concat(parts), terminated: false, end: pos });
  } finally {
    closeSync(fd);
  }
}

function stripCR(bytes: Buffer): Buffer {
  return bytes.length && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
}
