import { makeMissingCopies } from "./images.server";
import { copyNameOf, readStoredFile, storedNameOf } from "./storage.server";

// The tiny blurred placeholder a page writes inline for each stored photo it shows
// (docs/rules.md#images): the photo's `.tiny.webp` copy as a data URL, a few hundred bytes, so a
// slot shows the photo's colours and shapes at once instead of a flat box. Content-addressed like
// the photo, so a placeholder once read is kept in memory (the few thousand used most recently).
// A page asks for the placeholders of its first screens only (PLACEHOLDERS_PER_PAGE): each costs
// bytes twice in the page (the markup and the data the browser hydrates from), and an older photo
// without one has it made from the photo on its first view, a decode that waits its turn with
// uploads.

/** Photos per list that get a placeholder: four rows of a profile's grid, a page of the feed. */
export const PLACEHOLDERS_PER_PAGE = 12;

const KEPT = 4000;
const kept = new Map<string, string>();
/** Reads (and makes) under way, so that visitors arriving at once share one. */
const underWay = new Map<string, Promise<string | null>>();
/** Photos whose placeholder could not be had, and until when not to try again. */
const failedUntil = new Map<string, number>();
const RETRY_AFTER_MS = 5 * 60_000;

function keep(hash: string, dataUrl: string): void {
  kept.delete(hash);
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(hash, dataUrl);
}

/** The hash of a stored main photo's address, or null (default pictures, other sites' photos). */
function storedHashOf(url: string | null | undefined): string | null {
  const name = storedNameOf(url);
  return name && /^[0-9a-f]{64}\.webp$/.test(name) ? name.slice(0, 64) : null;
}

async function readOrMake(hash: string): Promise<string | null> {
  let bytes = await readStoredFile(copyNameOf(hash, "tiny"));
  // A photo stored before placeholders existed: made once from the photo, then stored.
  if (!bytes?.length) bytes = (await makeMissingCopies(hash, ["tiny"])).get("tiny") ?? null;
  return bytes?.length ? `data:image/webp;base64,${bytes.toString("base64")}` : null;
}

function placeholderOf(hash: string): Promise<string | null> {
  const known = kept.get(hash);
  if (known) {
    keep(hash, known); // used again: the last to go
    return Promise.resolve(known);
  }
  if ((failedUntil.get(hash) ?? 0) > Date.now()) return Promise.resolve(null);
  let reading = underWay.get(hash);
  if (!reading) {
    reading = readOrMake(hash)
      .catch(() => null)
      .then((dataUrl) => {
        if (dataUrl) keep(hash, dataUrl);
        else failedUntil.set(hash, Date.now() + RETRY_AFTER_MS);
        return dataUrl;
      })
      .finally(() => underWay.delete(hash));
    underWay.set(hash, reading);
  }
  return reading;
}

/**
 * The placeholders of the stored photos among `urls`, by address (other addresses have none). A
 * store that cannot be read leaves placeholders out (and is not asked again for that photo for a
 * few minutes): a page never fails for one.
 */
export async function placeholdersOf(urls: Iterable<string | null | undefined>): Promise<Record<string, string>> {
  const byHash = new Map<string, string>();
  for (const url of urls) {
    const hash = storedHashOf(url);
    if (hash && url) byHash.set(hash, url);
  }
  const found: Record<string, string> = {};
  await Promise.all(
    [...byHash].map(async ([hash, url]) => {
      const placeholder = await placeholderOf(hash);
      if (placeholder) found[url] = placeholder;
    }),
  );
  return found;
}

/**
 * Each item with the placeholder of its photo (`placeholder`, null when it has none); only the
 * first PLACEHOLDERS_PER_PAGE items get one, the rest keep the flat box.
 */
export async function withPlaceholders<T>(items: readonly T[], photoOf: (item: T) => string | null | undefined): Promise<(T & { placeholder: string | null })[]> {
  const found = await placeholdersOf(items.slice(0, PLACEHOLDERS_PER_PAGE).map(photoOf));
  return items.map((item, index) => ({ ...item, placeholder: index < PLACEHOLDERS_PER_PAGE ? (found[photoOf(item) ?? ""] ?? null) : null }));
}

/** The placeholder of one photo, or null. */
export async function placeholderFor(url: string | null | undefined): Promise<string | null> {
  return (await placeholdersOf([url]))[url ?? ""] ?? null;
}
