import { closeDatabaseHandle, db, openChangeFeed, type ChangeFeed } from "./db/connection.server";
import { sweepOrphanUploads } from "./media/uploads.server";

// What the production server (app/server/runtime/) asks of the rest of the server, and all it
// may import of it (a lint rule holds it to that): the rules of each request from the route it
// reaches (body limits, shuffled copies), the answers given before a route runs, what makes a
// request personal, which cached pages a commit changed, the upload sweep, and closing the
// database on shutdown.

export type { ChangeFeed, ScopeChanges } from "./db/connection.server";
export type { SharedCacheHandle } from "./cache/shared-cache.server";
export type { BodyLimit } from "./http/body.server";
export { earlyRefusal } from "./http/early-answers.server";
export { isPersonalRequest } from "./http/cookies.server";
export { requestRules } from "./http/route-rules.server";

/**
 * For the shared page cache: its `version` and `changes` (which page-cache scopes commits
 * changed since it last asked; app/server/cache/scopes.server.ts). One per cache.
 */
export function pageCacheChanges(): ChangeFeed {
  return openChangeFeed(db);
}

/**
 * Removes stored photos nothing uses any more (what abandoned forms left, a day old): the server
 * runs it every few hours.
 */
export async function sweepUnusedUploads(): Promise<void> {
  await sweepOrphanUploads();
}

/** Called on SIGTERM, after the last request has finished. */
export async function closeDatabase(): Promise<void> {
  await closeDatabaseHandle(db);
}
