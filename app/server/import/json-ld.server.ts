// Reading schema.org Recipe JSON-LD from a fetched page.

// The page is up to 2 MB that someone else wrote, so it is read in one forward pass with indexOf.
// A regular expression such as /<script[^>]*>([\s\S]*?)<\/script>/ starts again at every
// "<script" and may read to the end of the page each time: a page of repeated "<script " kept the
// process busy for minutes. Here every character is looked at a bounded number of times, with the
// tag and attribute readers of the page scanner (html.server.ts).

import { hasWordAt, isHtmlSpace, readAttributes } from "./html.server";

function isJsonLdType(type: string): boolean {
  const semicolon = type.indexOf(";");
  return (semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase() === "application/ld+json";
}

/**
 * The next "</script>" from `from` ("</script" in any case, then only spaces before ">"), or null.
 * Stricter than the scanner's raw-text end (which also ends at "</script x>"): a JSON-LD block
 * ends only at a plain closing tag.
 */
function findScriptClose(html: string, from: number): { start: number; end: number } | null {
  let at = from;
  for (;;) {
    const start = html.indexOf("</", at);
    if (start < 0) return null;
    let i = start + 2;
    if (hasWordAt(html, i, "script")) {
      i += 6;
      while (i < html.length && isHtmlSpace(html.charCodeAt(i))) i += 1;
      if (html.charCodeAt(i) === 0x3e /* > */) return { start, end: i + 1 };
    }
    at = i;
  }
}

/** The contents of a page's `<script type="application/ld+json">` elements, in page order. */
function* jsonLdScripts(html: string): Generator<string> {
  let at = 0;
  for (;;) {
    const open = html.indexOf("<", at);
    if (open < 0) return;
    at = open + 1;
    if (!hasWordAt(html, at, "script")) continue;
    const after = html.charCodeAt(at + 6);
    if (!(isHtmlSpace(after) || after === 0x2f /* / */ || after === 0x3e /* > */)) continue; // <scripts>, <script-x>
    const tag = readAttributes(html, at + 6);
    if (!tag) return;
    const close = findScriptClose(html, tag.end);
    // No "</script>" anywhere after this tag: no later script could be closed either.
    if (!close) return;
    // Any other script's text is code, not markup, as in a browser: skipped whole, so a quote or
    // "<script" inside a string of it cannot hide the tags after it.
    const type = tag.attributes.get("type");
    if (type !== undefined && isJsonLdType(type)) yield html.slice(tag.end, close.start);
    at = close.end;
  }
}

function parseJsonLoosely(text: string): unknown {
  const trimmed = text
    .trim()
    .replace(/^<!--|-->$/g, "")
    .replace(/^\s*(?:\/\/\s*)?<!\[CDATA\[|(?:\/\/\s*)?\]\]>\s*$/g, "")
    .trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    // Raw line breaks and tabs inside strings are common on real pages and invalid JSON. Without
    // any, a second parse would fail the same way: skipping it halves the work on a page of many
    // broken blocks.
    const folded = trimmed.replace(/[\u0000-\u001f]+/g, " ");
    if (folded === trimmed) return undefined;
    try {
      return JSON.parse(folded);
    } catch {
      return undefined;
    }
  }
}

function isRecipeType(type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some(
    (value) => typeof value === "string" && value.replace(/^(?:https?:\/\/schema\.org\/|schema:)/i, "").toLowerCase() === "recipe",
  );
}

function findRecipeNode(value: unknown, depth = 0): Record<string, unknown> | null {
  if (depth > 8 || value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findRecipeNode(item, depth + 1);
      if (found) return found;
    }
    return null;
  }
  const node = value as Record<string, unknown>;
  if (isRecipeType(node["@type"])) return node;
  // @graph first (the usual place), then any other property (mainEntity, about, …).
  const graph = findRecipeNode(node["@graph"], depth + 1);
  if (graph) return graph;
  for (const [key, child] of Object.entries(node)) {
    if (key === "@graph" || key === "@context") continue;
    const found = findRecipeNode(child, depth + 1);
    if (found) return found;
  }
  return null;
}

/** The first schema.org Recipe node in a page's JSON-LD scripts, or null. */
export function findRecipeJsonLd(html: string): Record<string, unknown> | null {
  for (const script of jsonLdScripts(html)) {
    const found = findRecipeNode(parseJsonLoosely(script));
    if (found) return found;
  }
  return null;
}
