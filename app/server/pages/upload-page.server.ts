// A stored image (/uploads/<sha256>.webp and its copies): its bytes from the image store, a
// redirect to S3_PUBLIC_URL when the images are served from there, or a plain 404 or 503.
import { makeMissingCopies } from "~/server/media/images.server";
import { isStoredName, parseStoredName, publicUrlOf, readStoredFile, storedImageType, StoreUnavailableError } from "~/server/media/storage.server";
import { log } from "../observability/log.server";

const notFound = () =>
  new Response("Image not found.", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });

/** The stored image the address names, kept a year by browsers and proxies (its name is its content's hash). */
export async function loadUploadPage(name: string) {
  if (!isStoredName(name)) return notFound();

  const publicUrl = publicUrlOf(name);
  if (publicUrl) {
    // 301, not 308: the two mean the same for GET and HEAD (the only methods a loader answers),
    // and 301 is the one every browser, proxy and crawler has always cached and followed. Kept a
    // day, not a year: the name's content never changes, but S3_PUBLIC_URL may (a new CDN address).
    // Not looked up first: the CDN answers 404 for a name the bucket does not hold.
    return new Response(null, {
      status: 301,
      headers: { Location: publicUrl, "Cache-Control": "public, max-age=86400" },
    });
  }

  let bytes: Buffer | null;
  try {
    bytes = await readStoredFile(name);
    // A copy that a photo stored before copies existed lacks (`npm run images:variants` makes them
    // all): made once from the photo, stored, then served like the rest.
    const stored = parseStoredName(name);
    if (!bytes && stored?.copy) bytes = (await makeMissingCopies(stored.hash, [stored.copy])).get(stored.copy) ?? null;
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    log.warn(error.message);
    return new Response("The image cannot be loaded right now. Please try again.", {
      status: 503,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Retry-After": "5" },
    });
  }
  if (!bytes) return notFound();
  // Buffered, not streamed: stored images are at most 0.5 MB.
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      "Content-Type": storedImageType(bytes),
      "Content-Length": String(bytes.byteLength),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'",
    },
  });
}
