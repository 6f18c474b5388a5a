import { randomHex } from "../base/hash.ts";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { namesIn, writeAtomic } from "../base/fsutil.ts";
import { isPlainSafe } from "../lesson/yaml.ts";
import { RkbError } from "../base/errors.ts";
import { stateDir } from "../machine/settings.ts";
import { recordDistilled } from "../machine/state.ts";

// The inbox: raw material waiting to be distilled into lessons. One Markdown file per item under
// <state>/inbox/, per machine and never synced, mode 600 because it quotes sessions.
// File: `---`, YAML `key: value` lines (kind, time, harness, session, cwd, signals, priority, then
// provenance), `---`, a blank line, the body.

export type MetaValue = string | number | string[];
export type InboxMeta = { kind: string; time: number } & Record<string, MetaValue | undefined>;

/** An item to be made: its header and its body. */
export interface InboxEntry {
  meta: InboxMeta;
  body: string;
}

export interface InboxItem {
  id: string;
  path: string;
  meta: InboxMeta;
  body: string;
}

export const EXPIRE_DAYS = 30;
const ID = /^[0-9a-f]{10}$/;
const FIRST_KEYS = ["kind", "time", "harness", "session", "cwd", "signals", "priority"];

export const inboxDir = (env: NodeJS.ProcessEnv) => join(stateDir(env), "inbox");

export function addItem(env: NodeJS.ProcessEnv, meta: InboxMeta, body: string, opts: { durable?: boolean } = {}): string {
  const dir = inboxDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (;;) {
    const id = randomHex(5);
    const path = join(dir, `${id}.md`);
    try {
      statSync(path);
      continue; // taken; ten hex digits make this rare
    } catch {}
    writeAtomic(path, serialize(meta, body), 0o600, opts);
    return id;
  }
}

export function serialize(meta: InboxMeta, body: string): string {
  const keys = [...FIRST_KEYS.filter((k) => k in meta), ...Object.keys(meta).filter((k) => !FIRST_KEYS.includes(k))];
  const lines = ["---"];
  for (const k of keys) {
    const v = meta[k];
    if (v === undefined) continue;
    // Lists stay on one line (`signals: [a, b]`), as the Rust rkb writes its inbox.
    lines.push(`${k}: ${Array.isArray(v) ? `[${v.map(flowItem).join(", ")}]` : scalar(v)}`);
  }
  lines.push("---", "", body.trimEnd(), "");
  return lines.join("\n");
}

function scalar(v: string | number): string {
  return typeof v === "number" || isPlainSafe(v) ? String(v) : JSON.stringify(v);
}

/** A list item inside `[…]`, where a comma would also end it. */
function flowItem(v: string): string {
  return isPlainSafe(v) && !v.includes(",") ? v : JSON.stringify(v);
}

export function parse(id: string, path: string, text: string): InboxItem {
  let meta: Record<string, MetaValue> = {};
  let body = text;
  const m = /^---\n([\s\S]*?)\n---\n\n?/.exec(text);
  if (m) {
    try {
      const data = Bun.YAML.parse(m[1]!);
      if (data && typeof data === "object" && !Array.isArray(data)) meta = data as Record<string, MetaValue>;
      body = text.slice(m[0].length);
    } catch {
      // A damaged header: show the whole file as the body rather than lose it.
    }
  }
  const time = typeof meta.time === "number" ? meta.time : Math.floor(statSync(path).mtimeMs / 1000);
  return { id, path, meta: { ...meta, kind: String(meta.kind ?? "note"), time }, body };
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new RkbError("not_found", `\`${id}\` is not an inbox item id`, "ids are 10 hex digits; run `rkb inbox` to list the items");
}

export function readItem(env: NodeJS.ProcessEnv, id: string): InboxItem {
  checkId(id);
  const path = join(inboxDir(env), `${id}.md`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new RkbError("not_found", `no inbox item \`${id}\``, "run `rkb inbox` to list the items");
  }
  return parse(id, path, text);
}

/** Every item, newest first (ties by id so the order is stable). */
export function listItems(env: NodeJS.ProcessEnv): InboxItem[] {
  const dir = inboxDir(env);
  const items: InboxItem[] = [];
  for (const name of namesIn(dir)) {
    const id = name.slice(0, -3);
    if (!name.endsWith(".md") || !ID.test(id)) continue;
    try {
      items.push(parse(id, join(dir, name), readFileSync(join(dir, name), "utf8")));
    } catch {
      // Removed by a concurrent `done` between readdir and read.
    }
  }
  return items.sort((a, b) => b.meta.time - a.meta.time || a.id.localeCompare(b.id));
}

/** Writes the item again with a new header (the body stays as it is). */
export function rewriteItem(item: InboxItem, meta: InboxMeta): void {
  writeAtomic(item.path, serialize(meta, item.body), 0o600);
}

/** Removes the item; false when there was none. */
export function dropItem(env: NodeJS.ProcessEnv, id: string): boolean {
  checkId(id);
  const path = join(inboxDir(env), `${id}.md`);
  try {
    statSync(path);
  } catch {
    return false;
  }
  rmSync(path, { force: true });
  return true;
}

/** Removes items older than EXPIRE_DAYS; returns how many. */
export function expireItems(env: NodeJS.ProcessEnv, now = Date.now() / 1000): number {
  let expired = 0;
  for (const item of listItems(env)) {
    if (now - item.meta.time > EXPIRE_DAYS * 86400 && dropItem(env, item.id)) expired++;
  }
  return expired;
}

export type Operation = "add" | "update" | "supersede" | "used" | "noop";
export interface Outcome {
  candidate?: number;
  op: Operation;
  lesson?: string;
}

/** `[<index>=]<op>[:<lesson id>]`; every operation but noop names the lesson it touched. */
export function parseOutcome(text: string): Outcome {
  const m = /^(?:(\d+)=)?(add|update|supersede|used|noop)(?::(\S+))?$/.exec(text.trim());
  if (!m) throw new RkbError("usage", `\`--outcome ${text}\` is not an outcome`, "write --outcome <add|update|supersede|used>:<lesson id>, or --outcome noop");
  const [, index, op, lesson] = m;
  if (op !== "noop" && !lesson) throw new RkbError("usage", `\`--outcome ${text}\` needs the lesson id`, `write --outcome ${op}:<lesson id>`);
  if (op === "noop" && lesson) throw new RkbError("usage", "`noop` touches no lesson", "write --outcome noop");
  return { candidate: index === undefined ? undefined : Number(index), op: op as Operation, lesson };
}

/** Logs what distilling an item led to (never its text) in the state, for `rkb doctor`. */
export function recordOutcomes(env: NodeJS.ProcessEnv, item: InboxItem, outcomes: Outcome[]): void {
  const signals = Array.isArray(item.meta.signals) ? item.meta.signals.map(String) : [];
  recordDistilled(
    env,
    outcomes.map((o) => ({ item: item.id, kind: item.meta.kind, signals, ...o })),
  );
}

/** The line a list shows for an item. */
export function preview(item: InboxItem): string {
  const lines = item.body.split("\n").map((l) => l.trim());
  if (item.meta.kind === "transcript") {
    const user = lines.find((l) => l.startsWith("[user] ") && !l.slice(7).startsWith("<"));
    if (user) return clip(user.slice(7));
  }
  const first = lines.find((l) => l !== "" && !l.startsWith("#") && !l.startsWith("```") && !/^\[.*cut\]$/.test(l));
  return clip(first ?? "");
}

function clip(s: string): string {
  return s.length > 100 ? s.slice(0, 99) + "…" : s;
}

export function age(seconds: number): string {
  if (seconds < 3600) return `${Math.max(0, Math.floor(seconds / 60))} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}
