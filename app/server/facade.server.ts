import { changeCounter, closeDatabaseHandle, db, openChangeFeed, type ChangeFeed } from "./db/connection.server";
import { sweepOrphanUploads } from "./media/uploads.server";

// What scripts/server.js asks of the app, through the server build (app/entry.server.tsx exports
// these): the rules of each request from the route it reaches (body limits, shuffled copies), the
// answers given before a route runs, what makes a request personal, when the database changed,
// and closing it on shutdown.

export { earlyRefusal } from "./http/early-answers.server";
export { isPersonalRequest } from "./http/cookies.server";
export { requestRules } from "./http/route-rules.server";

/** For the shared page cache: changes whenever the database may have changed. */
export function dataVersion(): string {
  return changeCounter(db);
}

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
