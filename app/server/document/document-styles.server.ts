import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import type { EntryContext, ServerBuild } from "@remix-run/node";

import { setStylesWrittenInline, type StyledRoute } from "~/root";
import { log } from "../observability/log.server";

// The build's stylesheets, read once when the server starts, for the document to write inline
// (app/root.tsx, docs/rules.md#first-paint): the site-wide one and the page's own. Each is allowed
// by its hash in the page's Content-Security-Policy: no nonce, so a page kept by the page cache
// stays valid. Until they are read (a unit test rendering a page without a server) pages link them.

const inline = new Map<string, { css: string; source: string }>();

/** Reads the build's stylesheets (`<publicPath>_assets/*.css`); a server whose build lacks them links them instead. */
export function readStylesheets(build: Pick<ServerBuild, "assetsBuildDirectory" | "publicPath">): void {
  inline.clear();
  try {
    const dir = path.join(build.assetsBuildDirectory, "_assets");
    for (const name of fs.readdirSync(dir).filter((file) => file.endsWith(".css"))) {
      const css = fs.readFileSync(path.join(dir, name), "utf8");
      inline.set(`${build.publicPath}_assets/${name}`, { css, source: `'sha256-${crypto.createHash("sha256").update(css, "utf8").digest("base64")}'` });
    }
  } catch (error) {
    log.warn({ err: error }, "the stylesheets could not be read to write them inline; pages link them instead");
    inline.clear();
  }
  setStylesWrittenInline((href) => inline.has(href));
}

/** A stylesheet's text to write inline, or null. */
export function inlineStylesheet(href: string): string | null {
  return inline.get(href)?.css ?? null;
}

/** The stylesheets the page's routes name (root first), as the document writes them. */
function stylesOfPage(context: EntryContext): string[] {
  return context.staticHandlerContext.matches.flatMap(({ route }) => (context.routeModules[route.id]?.handle as StyledRoute | undefined)?.styles ?? []);
}

/** The style-src sources allowing the page's inline stylesheets (` 'sha256-…'` each), or "". */
export function inlineStyleSources(context: EntryContext): string {
  return [...new Set(stylesOfPage(context))]
    .map((href) => inline.get(href)?.source)
    .filter(Boolean)
    .map((source) => ` ${source}`)
    .join("");
}
