import { makeMissingCopies } from "./images.server";
import { copyNameOf, readStoredFile, storedNameOf } from "./storage.server";

// The tiny blurred placeholder a page writes inline for each stored photo it shows
// (docs/rules.md#images): the photo's `.tiny.webp` copy as a data URL, a few hundred bytes, so a
// slot shows the photo's colours and shapes at once instead of a flat box. Content-addressed like
// the photo, so a placeholder read once is kept in memory for good (the most recent few thousand).

const KEPT = 4000;
const kept = new Map<string, string>();

function keep(hash: string, dataUrl: string): void {
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(hash, dataUrl);
}

/** The hash of a stored main photo's address, or null (default pictures, other sites' photos). */
function storedHashOf(url: string | null | undefined): string | null {
  const name = storedNameOf(url);
  return name && /^[0-9a-f]{64}\.webp$/.test(name) ? name.slice(0, 64) : null;
}

async function placeholderOf(hash: string): Promise<string | null> {
  const known = kept.get(hash);
  if (known) return known;
  let bytes = await readStoredFile(copyNameOf(hash, "tiny"));
  // A photo stored before placeholders existed: made once from the photo, then stored.
  bytes ??= (await makeMissingCopies(hash, ["tiny"])).get("tiny") ?? null;
  if (!bytes) return null;
  const dataUrl = `data:image/webp;base64,${bytes.toString("base64")}`;
  keep(hash, dataUrl);
  return dataUrl;
}

/**
 * The placeholders of the stored photos among `urls`, by address (other addresses have none). A
 * store that cannot be read leaves placeholders out: a page never fails for one.
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
      const placeholder = await placeholderOf(hash).catch(() => null);
      if (placeholder) found[url] = placeholder;
    }),
  );
  return found;
}

/** Each item with the placeholder of its photo (`placeholder`, null when it has none). */
export async function withPlaceholders<T>(items: readonly T[], photoOf: (item: T) => string | null | undefined): Promise<(T & { placeholder: string | null })[]> {
  const found = await placeholdersOf(items.map(photoOf));
  return items.map((item) => ({ ...item, placeholder: found[photoOf(item) ?? ""] ?? null }));
}

/** The placeholder of one photo, or null. */
export async function placeholderFor(url: string | null | undefined): Promise<string | null> {
  return (await placeholdersOf([url]))[url ?? ""] ?? null;
}
