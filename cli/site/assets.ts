import { siteAssets } from "./assets.build.ts" with { type: "macro" };

/** The pages' script and stylesheet, made when rkb is built (assets.build.ts): no page loads anything from elsewhere. */
export const ASSETS: { js: string; css: string } = siteAssets();
