// The one rule for a folder name in a knowledge base, whether rkb makes the folder or is told it
// (a topic, a project, a system: `--project`, RKB_PROJECT, `when.project`): lowercase letters and
// digits joined by single dashes, short enough for any file system's path part.

export const FOLDER_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** Longest topic, project or system folder name rkb creates (a path part must stay well under 255 bytes). */
export const MAX_FOLDER_NAME = 64;

/** A name rkb may create a folder with: lowercase letters, digits and single dashes, at most MAX_FOLDER_NAME long. */
export function isFolderName(name: string): boolean {
  return name.length <= MAX_FOLDER_NAME && FOLDER_NAME.test(name);
}

/** The folder name someone most likely meant (`Bad Name` → `bad-name`); empty when no letter or digit is left. */
export function folderNameLike(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, MAX_FOLDER_NAME)
    .replace(/-$/, "");
}
