import { ImportLinkSchema } from "../validation/import-schema.server";

// Sharing a page to ReciPals from a phone (docs/rules.md#import-by-link): the web app manifest's
// share_target opens /ReciPals/Create?title=…&text=…&url=…, and the editor opens with the link
// in `Import from link`.

/** The share target's query parameters (public/manifest.webmanifest names the same). */
export const SHARE_PARAMS = { title: "title", text: "text", url: "url" } as const;

/** The editor's query parameter that fills in `Import from link`. */
export const IMPORT_LINK_PARAM = "link";

/** Characters of shared text searched for a link: a shared note may be long; the link is near the start. */
const MAX_SHARED_TEXT = 10_000;

/** An http(s) address inside text, up to white space or a character that cannot end a link in prose. */
const LINK_IN_TEXT = /https?:\/\/[^\s<>"]+/gi;

/** `value` as a link we would import (ImportLinkSchema), or null. */
export function importableLink(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const parsed = ImportLinkSchema.safeParse(value);
  return parsed.success ? parsed.data.href : null;
}

/**
 * The link a share carries: the `url` parameter, else the first http(s) link in `text` (Android
 * apps often send the link there, after the page's title), else in `title`. Null when none is one
 * we would import; nothing shared is ever an error.
 */
export function sharedLink(params: URLSearchParams): string | null {
  const direct = importableLink(params.get(SHARE_PARAMS.url));
  if (direct) return direct;
  for (const name of [SHARE_PARAMS.text, SHARE_PARAMS.title]) {
    const text = (params.get(name) ?? "").slice(0, MAX_SHARED_TEXT);
    for (const match of text.matchAll(LINK_IN_TEXT)) {
      // "See https://example.com/soup." — the sentence's punctuation is not part of the link.
      const link = importableLink(match[0].replace(/[.,;:!?)\]}'’”]+$/u, ""));
      if (link) return link;
    }
  }
  return null;
}
