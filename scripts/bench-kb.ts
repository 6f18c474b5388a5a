// A generated knowledge base of `size` pitfalls for the benchmarks: 40 topics, words drawn from one
// vocabulary so that queries hit many lessons, as in a real knowledge base.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const WORDS = `cmake linker python rust git ssh mpi slurm latex docker podman lustre hdf5 compiler cache build
install module package symbol library reference undefined permission denied timeout hang crash memory thread
kernel driver network socket port proxy remote branch commit rebase merge stash config environment variable
path file directory mount quota stripe rank node job queue partition script shell quote subshell cron
tokens borrow move lifetime trait struct vector pointer allocation segfault signal abort version release
debug optimize profile flag option header include macro template generic interface method function`.split(/\s+/);

function pick(seed: number, n: number): string[] {
  const out: string[] = [];
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]!);
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
