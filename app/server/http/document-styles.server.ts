import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import type { ServerBuild } from "@remix-run/node";

import siteStyles from "~/styles/global.css";

// The site-wide stylesheet, read once when the server starts, for the document to write inline
// (app/root.tsx, docs/rules.md#first-paint), with the hash the Content-Security-Policy
// allows it by: no nonce, so a page kept by the page cache stays valid. Until it is read (a unit
// test rendering a page without a server) pages link the stylesheet as before.

let inline: { css: string; source: string } | null = null;

/** Reads the built stylesheet; a server whose build lacks it links it instead. */
export function readSiteStyles(build: Pick<ServerBuild, "assetsBuildDirectory" | "publicPath">): void {
  try {
    const css = fs.readFileSync(path.join(build.assetsBuildDirectory, siteStyles.slice(build.publicPath.length)), "utf8");
    inline = { css, source: `'sha256-${crypto.createHash("sha256").update(css, "utf8").digest("base64")}'` };
  } catch (error) {
    console.warn(`The site's stylesheet could not be read to write it inline; pages link it instead: ${String(error)}`);
    inline = null;
  }
}

/** The stylesheet's text to write inline, or null. */
export function siteStylesInline(): string | null {
  return inline?.css ?? null;
}

/** The style-src source allowing the inline stylesheet (`'sha256-…'`), or "" when there is none. */
export function siteStylesSource(): string {
  return inline ? ` ${inline.source}` : "";
}
