import { termSequence } from "../text/tokenize.ts";

// System error names and the messages the C library prints for them (Linux's strerror, and
// getaddrinfo's ENOTFOUND as Node names it): every program that touches a file, port or host
// reports them, one tool by the name (`Failure EADDRINUSE`), another by the message (`bind:
// address already in use`).
const MESSAGES: Record<string, string> = {
  eacces: "Permission denied",
  eaddrinuse: "Address already in use",
  eaddrnotavail: "Cannot assign requested address",
  eagain: "Resource temporarily unavailable",
  ebusy: "Device or resource busy",
  econnrefused: "Connection refused",
  econnreset: "Connection reset by peer",
  eexist: "File exists",
  ehostunreach: "No route to host",
  einval: "Invalid argument",
  eio: "Input/output error",
  eisdir: "Is a directory",
  eloop: "Too many levels of symbolic links",
  emfile: "Too many open files",
  enametoolong: "File name too long",
  enetunreach: "Network is unreachable",
  enfile: "Too many open files in system",
  enoent: "No such file or directory",
  enomem: "Cannot allocate memory",
  enospc: "No space left on device",
  enotdir: "Not a directory",
  enotempty: "Directory not empty",
  enotfound: "not found",
  eperm: "Operation not permitted",
  epipe: "Broken pipe",
  erofs: "Read-only file system",
  etimedout: "Connection timed out",
  exdev: "Invalid cross-device link",
};

/** The system error names, lowercased. */
export const ERRNO = new Set(Object.keys(MESSAGES));

/** By the name's term as the tokenizer gives it (`EADDRINUSE` → eaddrinus). */
const messageTerms = new Map(Object.entries(MESSAGES).map(([name, message]) => [termSequence(name)[0]!, new Set(termSequence(message))]));

/** Whether `terms` are the message of the system error whose term is `name` (all of them in it): EADDRINUSE and "address already in use". */
export function errnoSays(name: string, terms: string[]): boolean {
  const said = messageTerms.get(name);
  return said !== undefined && terms.length > 0 && terms.every((t) => said.has(t));
}
