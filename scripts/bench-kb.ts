// A generated knowledge base of `size` pitfalls for the benchmarks: 40 topics, words drawn from one
// vocabulary so that a query about the named words hits many lessons, as in a real knowledge base.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const WORDS = `cmake linker python rust git ssh mpi slurm latex docker podman lustre hdf5 compiler cache build
install module package symbol library reference undefined permission denied timeout hang crash memory thread
kernel driver network socket port proxy remote branch commit rebase merge stash config environment variable
path file directory mount quota stripe rank node job queue partition script shell quote subshell cron
tokens borrow move lifetime trait struct vector pointer allocation segfault signal abort version release
debug optimize profile flag option header include macro template generic interface method function`.split(/\s+/);

// Beyond the named words, a few thousand made-up ones, so that the vocabulary is as large as a real
// knowledge base's and most words are rare: word k of the list is drawn with a chance falling as
// 1/√k, so a named word sits in roughly 10–40% of the lessons, not in every one.
const SYLLABLES = "ba ce di fo gu ka le mi no pu ra se ti vo zu".split(" ");
const VOCABULARY = [...WORDS];
for (let i = 0; VOCABULARY.length < 4_000; i++) {
  VOCABULARY.push(`${SYLLABLES[i % 15]}${SYLLABLES[Math.floor(i / 15) % 15]}${SYLLABLES[Math.floor(i / 225) % 15]}x`);
}

/** n words for one lesson part, the same for the same seed (32-bit arithmetic: exact in a double). */
function pick(seed: number, n: number): string[] {
  const out: string[] = [];
  let x = Math.imul(seed + 1, 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const u = (x >>> 8) / 2 ** 24;
    out.push(VOCABULARY[Math.floor(VOCABULARY.length * u * u)]!);
  }
  return out;
}

export function makeKb(work: string, size: number): string {
  const kb = join(work, `kb-${size}`);
  for (let i = 0; i < size; i++) {
    const topic = `topic-${i % 40}`;
    const dir = join(kb, "general", topic);
    mkdirSync(dir, { recursive: true });
    const id = (0x3d00000000 + i).toString(16);
    const title = pick(i, 8).join(" ");
    writeFileSync(
      join(dir, `lesson-${i}.md`),
      `---\nschema: 1\nid: ${id}\ntype: pitfall\nstatus: active\nverified: 2026-01-01\nverified_how: ran\ntags:\n  - ${pick(i + 7, 1)[0]}\n---\n\n# ${title}\n\n## Symptom\n${pick(i + 1, 30).join(" ")}.\n\n## Cause\n${pick(i + 2, 40).join(" ")}.\n\n## Fix\n${pick(i + 3, 40).join(" ")}.\n\n## Evidence\n${pick(i + 4, 20).join(" ")}.\n`,
    );
  }
  return kb;
}
