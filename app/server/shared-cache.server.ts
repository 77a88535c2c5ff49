/**
 * The production server (scripts/page-cache.js) gives each GET without our cookies a
 * `sharedCache` in the load context. Offering an answer to it says: this answer depends only on
 * the URL (and the database), so it may be answered to the next visitors without cookies until
 * the database changes. Only pages and endpoints that read nothing else may offer.
 */
export function offerToSharedCache(context: unknown): void {
  const offer = (context as { sharedCache?: { offer?: unknown } } | null | undefined)?.sharedCache?.offer;
  if (typeof offer === "function") offer();
}
