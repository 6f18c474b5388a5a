import pkg from "../../package.json" with { type: "json" };

// The build (scripts/build.ts) defines RKB_COMMIT; running from source shows "source".
declare const RKB_COMMIT: string | undefined;
const commit = typeof RKB_COMMIT === "string" ? RKB_COMMIT : "source";

export const VERSION = pkg.version;
export const VERSION_LINE = `rkb ${VERSION} (${commit})`;
