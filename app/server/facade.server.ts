import type { RequestHandler } from "express";

import { closeDatabaseHandle, db, openChangeFeed, readsMayUseReplicas, type ChangeFeed } from "./db/connection.server";
import { env } from "./env.server";
import { isPersonalRequest, wroteAtOf, wroteCookie } from "./http/cookies.server";
import { sweepExpiredEntries } from "./federation/federation-store.server";
import { federationQueueDepth } from "./federation/federation.server";
import { federationEnabled } from "./federation/handles.server";
import { imageDecodes } from "./media/images.server";
import { sweepOrphanUploads } from "./media/uploads.server";
import { counterReadAtScrape, gaugeReadAtScrape } from "./observability/metrics.server";

// What the production server (app/server/runtime/) asks of the rest of the server, and all it
// may import of it (a lint rule holds it to that): the rules of each request from the route it
// reaches (body limits, shuffled copies), the answers given before a route runs, what makes a
// request personal, which cached pages a commit changed, the upload sweep, the site-wide
// stylesheet pages write inline, and closing the database on shutdown.

export type { ChangeFeed, ScopeChanges } from "./db/connection.server";
export type { SharedCacheHandle } from "./cache/shared-cache.server";
export type { BodyLimit } from "./http/body.server";
export { earlyRefusal } from "./http/early-answers.server";
export { isPersonalRequest };
export { requestRules } from "./http/route-rules.server";
export { readStylesheets } from "./document/document-styles.server";
export { readinessProblems, type ReadyProblem } from "./readiness.server";
export { warnWithoutPublicUrl } from "./mail/mailer.server";
export { startFederationQueue } from "./federation/federation.server";
export { log } from "./observability/log.server";
export { metrics, requestSeconds, requestsServed } from "./observability/metrics.server";
export { clusterMetricsText, gatherWorkerMetrics, joinWorkerMetrics } from "./observability/cluster-metrics.server";
export { withRequestNotes, type RequestNotes } from "./observability/request-notes.server";

/** What the server's parts report at each scrape of /metrics besides what is counted where it happens. */
export function registerServerMetrics({
  pageCache,
  uploads,
}: {
  pageCache: { hits: number; misses: number } | null;
  uploads: { readonly running: number; readonly waiting: number };
}): void {
  if (pageCache) {
    counterReadAtScrape("recipals_page_cache_requests_total", "Visitors' requests the shared page cache answered (hit) or passed on (miss).", "result", () => ({
      hit: pageCache.hits,
      miss: pageCache.misses,
    }));
  }
  gaugeReadAtScrape("recipals_upload_requests", "Requests bringing photos being read and processed, and waiting their turn.", "state", () => ({
    running: uploads.running,
    waiting: uploads.waiting,
  }));
  gaugeReadAtScrape("recipals_image_decodes", "Photos being decoded and resized, and waiting their turn.", "state", () => ({
    running: imageDecodes.running,
    waiting: imageDecodes.waiting,
  }));
  if (federationEnabled()) {
    // The queue is the database's, the same for every worker and server: added up it would count many times.
    gaugeReadAtScrape("recipals_federation_queue", "Deliveries to other servers and inbox work in the queue, due or not (federation).", "state", async () => ({ queued: await federationQueueDepth() }), "max");
  }
  const poolSize: Record<string, number> = env.DATABASE_URL ? { postgres: env.DATABASE_POOL_SIZE } : { sqlite: 1 };
  gaugeReadAtScrape("recipals_db_pool_size", "Database connections this process may open (SQLite: its one connection).", "engine", () => poolSize);
}

/**
 * For the shared page cache: its `version` and `changes` (which page-cache scopes commits
 * changed since it last asked; app/server/cache/scopes.server.ts). One per cache.
 */
export function pageCacheChanges(): ChangeFeed {
  return openChangeFeed(db);
}

/**
 * Removes stored photos nothing uses any more (what abandoned forms left, a day old) and the
 * federation's expired entries: the server runs it every few hours.
 */
export async function sweepUnusedUploads(): Promise<void> {
  await sweepOrphanUploads();
  // And what the federation library kept past its time (docs/federation.md).
  await sweepExpiredEntries(db);
}

/** Called on SIGTERM, after the last request has finished. */
export async function closeDatabase(): Promise<void> {
  await closeDatabaseHandle(db);
}

/**
 * With read replicas (DATABASE_REPLICA_URLS; docs/scaling.md, "Read replicas"): a signed-in
 * person's GET reads from a replica that holds their last write; a write's answer says when it
 * was made (the `recipals_wrote` cookie). Visitors read from the primary: their pages go into the
 * page cache, whose freshness is the primary's change notices. Null without replicas.
 */
export function replicaReadRouting(): RequestHandler | null {
  if (env.DATABASE_REPLICA_URLS.length === 0) return null;
  return (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") {
      if (!isPersonalRequest(req.headers.cookie, req.headers.authorization)) return next();
      return readsMayUseReplicas(wroteAtOf(req.headers.cookie), next);
    }
    // Set as the answer's headers go out, after the write committed. Every write, a sign-in too:
    // the session it starts must be read from where it is.
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      res.appendHeader("Set-Cookie", wroteCookie());
      return writeHead.apply(this, args);
    } as typeof writeHead;
    next();
  };
}