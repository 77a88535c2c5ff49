/**
 * Differently shuffled copies the shared cache keeps of a page that shows visitors a random order
 * not fixed by its address (Home and an empty Search without a `seed`): its route says so with
 * `export const shuffledCopies` (route-rules.server.ts), so each visitor still sees one of several orders.
 */
export const SHUFFLED_COPIES = 8;

/**
 * The production server (app/server/runtime/page-cache.server.ts) gives each GET without our cookies a
 * `sharedCache` in the load context. Offering an answer to it says: this answer depends only on
 * the URL (and the database), so it may be answered to the next visitors without cookies until
 * what it shows changes (see scopeSharedCache). Only pages and endpoints that read nothing else
 * may offer.
 */
export function offerToSharedCache(context: unknown): void {
  sharedCacheOf(context)?.offer?.();
}

/** This answer must not be shared, whatever else offers it (a page reporting a failure). */
export function withholdFromSharedCache(context: unknown): void {
  sharedCacheOf(context)?.withhold?.();
}

/**
 * Names the scopes (cache/scopes.server.ts, `CacheScope`) of what this loader put in the answer:
 * the kept answer is dropped when a commit changes one of them, and stays when others change.
 * Every loader of a page that reads data must name what it read — an answer for which nothing
 * was named depends on everything (dropped by any write) — and a loader that reads nothing calls
 * it with no scopes. tests/unit/page-cache-scopes.test.ts checks each page against each write.
 */
export function scopeSharedCache(context: unknown, scopes: Iterable<string | null | undefined> = []): void {
  const cache = sharedCacheOf(context);
  if (!cache?.scope) return;
  cache.scope(...[...scopes].filter((scope): scope is string => Boolean(scope)));
}

/** What the production server's page cache hands each shareable request (app/server/runtime/page-cache.server.ts). */
export interface SharedCacheHandle {
  offer?: () => void;
  withhold?: () => void;
  scope?: (...scopes: string[]) => void;
}

function sharedCacheOf(context: unknown): SharedCacheHandle | null {
  const cache = (context as { sharedCache?: unknown } | null | undefined)?.sharedCache;
  return typeof cache === "object" && cache !== null ? (cache as SharedCacheHandle) : null;
}
