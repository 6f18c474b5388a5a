import { posix } from "node:path";
import { loadKbConfig, type KbConfig } from "../lesson/config.ts";
import { effectiveLabels } from "../plan/labels.ts";
import { contentHash, isMap, type Lesson } from "../lesson/lesson.ts";
import { LESSON_ID } from "../lesson/schema.ts";
import { resolveLink } from "../lesson/links.ts";
import { reviewCandidates, type ReviewCandidate } from "../kb/review.ts";
import { loadKb, type Broken, type Kb } from "../kb/store.ts";
import { RkbError } from "../base/errors.ts";
import { secretLeaks, secretMessage } from "../lint/leak.ts";
import { readUsage, replayRuns, usageRecords, type ReplayRun, type UsageCounts, type UsageRecord } from "../kb/usage.ts";
import { buildIndex, type IndexedLesson, type SearchIndex } from "../kb/index.ts";
import { searchIndexSimilarity } from "../search/similarity.ts";
import { listItems, type InboxItem } from "../inbox/inbox.ts";
import { readHistory, type FileCommit, type KbHistory } from "./history.ts";
import { withoutHiddenLinks } from "./published.ts";
import { admits, type Audience } from "./sink.ts";

// Everything the pages show, read once: the lessons the audience may see (a sink's share, or all
// for the owner) and what is known about them. Everything below the filter sees only admitted
// lessons, so no page, list, plot, link or search index can name another: use records, replays,
// history entries and similar pairs of left-out lessons are dropped here, not on each page.

export interface SiteLesson {
  /** The lesson as published: a link to anything the site leaves out is its text alone. */
  lesson: Lesson;
  /** The content hash of the file as it is (for `rkb edit --base`). */
  hash: string;
  labels: Record<string, string>;
  usage: UsageCounts;
  history: FileCommit[];
  /** Lessons this one links to, and those linking to it (admitted ones only). */
  linksTo: string[];
  linkedFrom: string[];
  /** Ids of the lessons it replaced (`superseded_by` pointing at it). */
  supersedes: string[];
  similar: { id: string; similarity: number }[];
}

export interface SiteModel {
  audience: Audience;
  config: KbConfig;
  lessons: SiteLesson[];
  byId: Map<string, SiteLesson>;
  byPath: Map<string, SiteLesson>;
  /** The search index over the admitted lessons only. */
  index: SearchIndex;
  records: UsageRecord[];
  replays: ReplayRun[];
  /** rkb's changes of admitted lessons, newest first. */
  changes: KbHistory["changes"];
  review: ReviewCandidate<IndexedLesson>[];
  /** For the owner only: the inbox and the lesson files that do not parse. */
  inbox?: InboxItem[];
  unreadable?: Broken[];
}

const EMPTY_USAGE: UsageCounts = { worked: 0, failed: 0, injected: 0, inferred: 0, irrelevant: 0 };
/** Lessons at least this similar are listed as related (the Rust rkb's `similar` edge). */
export const RELATED_MIN = 0.2;
const MAX_SIMILAR = 5;

export function loadSiteModel(root: string, env: NodeJS.ProcessEnv, audience: Audience): SiteModel {
  const config = loadKbConfig(root);
  const kb = loadKb(root);
  if (audience.kind === "sink") refuseUnreadableNotes(kb);
  // A lesson's page and links are named by its id: one that is no lesson id (a hand-written
  // `id: "../x"` or one with quotes) gets no page and stays out; the owner sees it among the
  // files that do not parse.
  const badIds: Broken[] = kb.lessons
    .filter((l) => !LESSON_ID.test(l.id))
    .map((l) => ({ path: l.path, line: l.keyLines.id ?? 2, message: `the id \`${l.id}\` is not 10 lowercase hex characters`, kind: "lesson", text: l.raw }));
  const kept = kb.lessons.filter((l) => LESSON_ID.test(l.id) && admits(audience, labelsOf(kb.notes, l)));
  if (audience.kind === "sink") refuseSecretsIn(kept, config);
  kept.sort((a, b) => (a.path < b.path ? -1 : 1));
  const paths = new Set(kept.map((l) => l.path));
  const admitted = kept.map((l) => withoutHiddenLinks(l, paths));
  const ids = new Set(admitted.map((l) => l.id));
  // Folder notes only of folders holding an admitted lesson: a note's aliases go into the index.
  const notes = kb.notes.filter((n) => admitted.some((l) => l.path.startsWith(`${n.folder}/`)));
  const index = buildIndex({ root, files: admitted.map((l) => l.path), lessons: admitted, notes, broken: [] });
  const counts = readUsage(root);
  const history = readHistory(root, env);
  const lessons: SiteLesson[] = admitted.map((lesson, i) => ({
    lesson,
    hash: contentHash(kept[i]!.raw),
    labels: labelsOf(kb.notes, lesson),
    usage: counts.get(lesson.id) ?? EMPTY_USAGE,
    history: history.byPath.get(lesson.path) ?? [],
    linksTo: [],
    linkedFrom: [],
    supersedes: [],
    similar: [],
  }));
  const byId = new Map(lessons.map((l) => [l.lesson.id, l]));
  const byPath = new Map(lessons.map((l) => [l.lesson.path, l]));
  for (const l of lessons) {
    for (const link of l.lesson.scan.links) {
      const target = byPath.get(resolveLink(l.lesson.path, link.target) ?? "");
      if (!target || target === l || l.linksTo.includes(target.lesson.id)) continue;
      l.linksTo.push(target.lesson.id);
      target.linkedFrom.push(l.lesson.id);
    }
    const by = l.lesson.frontmatter.superseded_by;
    if (typeof by === "string") byId.get(by)?.supersedes.push(l.lesson.id);
  }
  for (const pair of searchIndexSimilarity(index).pairs(RELATED_MIN)) {
    const [a, b] = [byId.get(pair.a.id)!, byId.get(pair.b.id)!];
    if (a.similar.length < MAX_SIMILAR) a.similar.push({ id: b.lesson.id, similarity: pair.similarity });
    if (b.similar.length < MAX_SIMILAR) b.similar.push({ id: a.lesson.id, similarity: pair.similarity });
  }
  const indexed = Array.from({ length: index.size }, (_, i) => index.lesson(i));
  const owner = audience.kind === "owner";
  return {
    audience,
    config,
    lessons,
    byId,
    byPath,
    index,
    records: [...usageRecords(root)].filter((r) => ids.has(r.id)),
    replays: replayRuns(root).map((run) => ({ ...run, lessons: Object.fromEntries(Object.entries(run.lessons).filter(([id]) => ids.has(id))) })),
    changes: history.changes.filter((c) => ids.has(c.id)),
    review: reviewCandidates(indexed, counts, config),
    ...(owner ? { inbox: listItems(env), unreadable: [...kb.broken.filter((b) => b.kind === "lesson"), ...badIds] } : {}),
  };
}

/**
 * A published site reads each lesson's labels from the folder notes above it; a note that does not
 * parse would leave its lessons at the default (internal) whatever it says (`confidential`), so a
 * build over a folder holding lessons under such a note is refused.
 */
function refuseUnreadableNotes(kb: Kb): void {
  for (const note of kb.broken) {
    if (note.kind !== "note") continue;
    const folder = posix.dirname(note.path);
    if (!kb.lessons.some((l) => l.path.startsWith(`${folder}/`))) continue;
    throw new RkbError(
      "invalid_lesson",
      `${note.path}:${note.line}: ${note.message}; its labels decide who may see the lessons under ${folder}/`,
      "fix the folder note (`rkb lint` lists every problem), then build the site again",
    );
  }
}

/**
 * A lesson committed past the pre-commit hook may hold a secret; `rkb sync` would not push it, and
 * a published site does not publish it: the build is refused, naming the file and line.
 */
function refuseSecretsIn(lessons: Lesson[], config: KbConfig): void {
  for (const lesson of lessons) {
    const leak = secretLeaks(lesson.raw, config.leak.allow)[0];
    if (!leak) continue;
    throw new RkbError(
      "invalid_lesson",
      `${lesson.path}:${leak.line}: ${secretMessage(leak)}`,
      "take the secret out of the lesson (`rkb lint` lists every leak), then build the site again",
    );
  }
}

function labelsOf(notes: Parameters<typeof effectiveLabels>[0], lesson: Lesson): Record<string, string> {
  const own = isMap(lesson.frontmatter.labels) ? Object.fromEntries(Object.entries(lesson.frontmatter.labels).map(([k, v]) => [k, String(v)])) : {};
  return effectiveLabels(notes, posix.dirname(lesson.path), own);
}
