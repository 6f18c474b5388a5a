import { Glob } from "bun";

// rkb has two glob dialects, each named here and nowhere else:
// - a wildcard (host names in kb.toml, `when` values): `*` matches any run of characters, `/`
//   included, `?` one character, `[abc]`/`[!abc]` a class; it matches the whole value.
// - a path glob (session files for extract and eval --replay): Bun.Glob, where `*` stays inside
//   one folder and `**` crosses folders.

function wildcardRegex(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i);
      if (end < 0) re += "\\[";
      else {
        re +=
          "[" +
          glob
            .slice(i + 1, end)
            .replace(/^!/, "^")
            .replace(/\\/g, "\\\\") +
          "]";
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** The wildcard dialect: does the whole value match? A broken pattern matches nothing. */
export function wildcardMatches(glob: string, value: string): boolean {
  try {
    return wildcardRegex(glob).test(value);
  } catch {
    return false;
  }
}

/** Why a wildcard is broken (an unclosed `[`, a class that is empty or runs backwards), or undefined. */
export function wildcardProblem(glob: string): string | undefined {
  const open = glob.lastIndexOf("[");
  if (open >= 0 && glob.indexOf("]", open) < 0) return `the \`[\` at character ${open + 1} is never closed with \`]\``;
  try {
    wildcardRegex(glob);
    return undefined;
  } catch {
    return "a `[…]` class in it is empty or runs backwards (write `[a-z]`, not `[z-a]`)";
  }
}

/** True when a path argument is a path glob rather than a file or folder name. */
export function isPathGlob(path: string): boolean {
  return /[*?[{]/.test(path);
}

/** The path-glob dialect: the files under cwd that match, as absolute paths. */
export function pathGlobFiles(pattern: string, cwd: string): Iterable<string> {
  return new Glob(pattern).scanSync({ cwd, absolute: true, onlyFiles: true });
}
