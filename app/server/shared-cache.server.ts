/**
 * The production server (scripts/page-cache.js) gives each GET without our cookies a
 * `sharedCache` in the load context. Offering an answer to it says: this answer depends only on
 * the URL (and the database), so it may be answered to the next visitors without cookies until
 * the database changes. Only pages and endpoints that read nothing else may offer.
 */
export function offerToSharedCache(context: unknown): void {
  sharedCacheOf(context)?.offer?.();
}

/** This answer must not be shared, whatever else offers it (a page reporting a failure). */
export function withholdFromSharedCache(context: unknown): void {
  sharedCacheOf(context)?.withhold?.();
}

function sharedCacheOf(context: unknown): { offer?: () => void; withhold?: () => void } | null {
  const cache = (context as { sharedCache?: unknown } | null | undefined)?.sharedCache;
  return typeof cache === "object" && cache !== null ? (cache as { offer?: () => void; withhold?: () => void }) : null;
}
