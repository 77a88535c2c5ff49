// Stored photos and the copies each one has (docs/rules.md#images). The server stores a photo as
// `/uploads/<sha256>.webp` (800 px on its longer side), its card copy `<sha256>.card.webp`
// (400 px) and narrower copies `<sha256>.w320.webp`, `.w480.webp`, `.w640.webp`, each with an
// AVIF twin (`<sha256>.avif`, `.card.avif`, `.w320.avif` …), so that a page names every copy in
// `srcset` and the browser fetches the one its slot needs, in the lighter format it can read.
// Plain functions of the address, for the server and the browser alike.

/** Widths of the narrower copies, besides the card (400) and the photo itself (800). */
export const PHOTO_WIDTHS = [320, 480, 640] as const;
export type PhotoWidth = (typeof PHOTO_WIDTHS)[number];

const STORED_MAIN = /^\/uploads\/([0-9a-f]{64})\.webp$/;

/** The hash of a stored photo's address, or null for default pictures and other sites' addresses. */
function hashOf(url: string | null | undefined): string | null {
  const match = url ? STORED_MAIN.exec(url) : null;
  return match ? (match[1] ?? null) : null;
}

/** The ~400 px card copy of a stored photo, or null for default pictures and external addresses. */
export function cardImageUrl(url: string | null | undefined): string | null {
  const hash = hashOf(url);
  return hash ? `/uploads/${hash}.card.webp` : null;
}

/**
 * `srcSet` of a stored photo's copies in one format, narrowest first (each copy by the width it
 * has for a landscape photo, as food photos mostly are); undefined for anything else. The `<img>`
 * names the WebP copies, a `<source type="image/avif">` before it their AVIF twins.
 */
export function imageSrcSet(url: string | null | undefined, format: "webp" | "avif" = "webp"): string | undefined {
  const hash = hashOf(url);
  if (!hash) return undefined;
  const copies = [...PHOTO_WIDTHS.map((width) => [`${hash}.w${width}`, width] as const), [`${hash}.card`, 400] as const, [hash, 800] as const];
  return copies
    .sort((a, b) => a[1] - b[1])
    .map(([name, width]) => `/uploads/${name}.${format} ${width}w`)
    .join(", ");
}

/**
 * How wide each photo slot is drawn (`sizes`), from the layouts in app/styles: the feed's column
 * (36rem at most, the page's padding on a phone), the recipe page's photo (its column beside the
 * facts from 1024 px, the navigation's 14rem beside it from 768 px), a profile's grid (a third of
 * its column), a card of the search or saved grid (one column on a phone, about 17rem beside
 * others). Overstating a slot a little costs bytes; understating it costs sharpness.
 */
export const PHOTO_SIZES = {
  feed: "(min-width: 40rem) 36rem, calc(100vw - 2rem)",
  recipe: "(min-width: 1024px) 36rem, (min-width: 768px) calc(100vw - 16rem), calc(100vw - 2rem)",
  grid: "(min-width: 768px) 16rem, calc((100vw - 2rem) / 3)",
  card: "(min-width: 768px) 18rem, calc(100vw - 2rem)",
  thumb: "3.5rem",
} as const;

/**
 * What an `<img>` of the first photo a page shows (its largest paint) asks for: to come first
 * (React 18 does not know the attribute by name, so it is spread in).
 */
export const FIRST_PHOTO = { fetchpriority: "high" } as Record<string, string>;
