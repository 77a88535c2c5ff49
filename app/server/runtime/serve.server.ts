import cluster, { type Worker } from "node:cluster";
import fs from "node:fs";
import type { Server } from "node:http";
import { availableParallelism } from "node:os";
import path from "node:path";
import zlib from "node:zlib";

import { broadcastDevReady, installGlobals, type ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";

import { env } from "../env.server";
import {
  closeDatabase,
  gatherWorkerMetrics,
  isPersonalRequest,
  joinWorkerMetrics,
  log,
  pageCacheChanges,
  readStylesheets,
  registerServerMetrics,
  replicaReadRouting,
  requestRules,
  startFederationQueue,
  sweepUnusedUploads,
  warnWithoutPublicUrl,
  type SharedCacheHandle,
} from "../facade.server";
import { precompressedAssets } from "./assets.server";
import { healthRoutes } from "./health.server";
import { metricsRoute, observeRequests } from "./observe.server";
import { capBodies, crossSiteGuard, earlyRefusals, gateHeavyBodies, refuseNulAddresses, securityHeaders } from "./guards.server";
import { createPageCache } from "./page-cache.server";
import { coalesceWrites, remixHandler } from "./remix-adapter.server";

// The production server (docs/architecture.md#the-server): Express in front of Remix's request
// handler, started by scripts/server.js with the server build. It replaces remix-serve because the
// app needs what remix-serve cannot give: the client address in the load context (sign-in
// throttling), guards before any route runs, a page cache for visitors, answers written as fast as
// the client reads, and a graceful stop that closes the database. It is part of the app (its
// settings are the app's, app/server/env.server.ts) and reaches the rest of the server only
// through app/server/facade.server.ts.

export interface ServeOptions {
  /** The script cluster workers run (scripts/server.js): each starts the server again. */
  workerScript: string;
  /** Where public/ is (the project's root folder). */
  root: string;
}

/** How many processes serve: WEB_CONCURRENCY, "auto" meaning one per CPU. */
export function workerCount(setting: number | "auto" = env.WEB_CONCURRENCY): number {
  return setting === "auto" ? Math.min(64, availableParallelism()) : setting;
}

/** One server process: listens on PORT (HOST) until SIGTERM/SIGINT. */
export async function startServer(build: ServerBuild, { root }: Pick<ServeOptions, "root">): Promise<Server> {
  installGlobals({ nativeFetch: build.future.v3_singleFetch });
  const production = env.NODE_ENV === "production";
  const allowedOrigins = new Set(env.ALLOWED_ORIGINS);

  const app = express();
  app.disable("x-powered-by");
  // Behind a proxy, TRUST_PROXY (e.g. "loopback" or 1) lets req.ip be the real client.
  if (env.TRUST_PROXY !== undefined) app.set("trust proxy", env.TRUST_PROXY);
  // Health for the balancer and metrics for the operator (docs/operator-guide.md): before
  // sessions, the page cache and the guards, and without a log line each.
  app.use(healthRoutes());
  app.get("/metrics", metricsRoute());
  if (cluster.isWorker) joinWorkerMetrics();

  // What is decided before a route runs comes from the route a request reaches (Remix's own route
  // matching over the build's routes): body limits here, shuffled copies in the page cache, the
  // route named in the log and the metrics.
  const rules = requestRules(build.routes);
  const publicDir = path.join(root, "public");
  const publicNames = new Set(fs.readdirSync(publicDir));
  app.use(
    observeRequests((req) => {
      if (req.path.startsWith(build.publicPath)) return "assets";
      if (publicNames.has(req.path.split("/")[1] ?? "")) return "public";
      return rules.routeIdOf(req.method, req.path, req.url.slice(req.path.length)) ?? "unmatched";
    }),
  );
  app.use(securityHeaders(production));

  const refuse = earlyRefusals(allowedOrigins);
  app.use(crossSiteGuard(allowedOrigins, refuse));
  const uploads = gateHeavyBodies(rules.bodyLimitFor, refuse);
  app.use(uploads);
  app.use(capBodies(rules.bodyLimitFor, refuse));
  // After the body limits, so an oversized body is a 413 whatever its address.
  app.use(refuseNulAddresses(refuse));

  // Brotli as compression sets it up (quality 4) but with a 256 KB window instead of 4 MB: our
  // pages are far smaller, and allocating (and collecting) the large window for every response
  // cost compression time for the same bytes.
  app.use(compression({ brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_LGWIN]: 18 } } }));
  // Scripts and stylesheets compressed once at startup (assets.server.ts); the rest as they are.
  app.use(build.publicPath, precompressedAssets(build.assetsBuildDirectory));
  // The stylesheets pages write inline (app/server/document/document-styles.server.ts).
  readStylesheets(build);
  app.use(build.publicPath, express.static(build.assetsBuildDirectory, { immutable: true, maxAge: "1y" }));
  // public/ holds a handful of files and folders: look there only for those names, so page and
  // API requests do not each cost a failed stat() on the disk.
  const servePublic = express.static(publicDir, { maxAge: "1h" });
  app.use((req, res, next) => (publicNames.has(req.path.split("/")[1] ?? "") ? servePublic(req, res, next) : next()));
  // The JSON API is resource routes only: Remix's single-fetch `.data` URLs under /api would run
  // parent loaders (whole lists) for nothing. They are not part of the API.
  app.use("/api", (req, res, next) => {
    if (!req.path.endsWith(".data")) return next();
    res.status(404).json({ message: "Not found." });
  });
  app.all("*", coalesceWrites);
  // Pages and API reads without cookies, kept until what they show changes (page-cache.server.ts).
  let pageCacheStats: { hits: number; misses: number } | null = null;
  if (env.PAGE_CACHE_SECONDS > 0) {
    // Which scopes commits changed (docs/scaling.md): a write drops only the pages showing them.
    const feed = pageCacheChanges();
    const cache = createPageCache({
      version: () => feed.version(),
      changes: () => feed.changes(),
      isPersonal: isPersonalRequest,
      variantsOf: rules.shuffledVariants,
      ttlMs: env.PAGE_CACHE_SECONDS * 1000,
    });
    app.all("*", cache.middleware);
    pageCacheStats = cache.stats;
  }
  registerServerMetrics({ pageCache: pageCacheStats, uploads });
  // Signed-in reads from read replicas, when there are any (docs/scaling.md, "Read replicas").
  const replicaReads = replicaReadRouting();
  if (replicaReads) app.all("*", replicaReads);
  app.all(
    "*",
    // Remix's mode as NODE_ENV says it (unset: the build's production mode, details of errors hidden).
    remixHandler(build, process.env.NODE_ENV, (req, res) => ({
      clientAddress: req.ip ?? req.socket.remoteAddress ?? null,
      sharedCache: (res.locals.sharedCache as SharedCacheHandle | undefined) ?? null,
    })),
  );

  const server = await new Promise<Server>((resolve) => {
    const listening: Server = env.HOST ? app.listen(env.PORT, env.HOST, () => resolve(listening)) : app.listen(env.PORT, () => resolve(listening));
  });
  const shownHost = env.HOST && env.HOST !== "0.0.0.0" && env.HOST !== "::" ? env.HOST : "localhost";
  log.info(`ReciPals listening on http://${shownHost}:${env.PORT}/ReciPals/Home`);
  warnWithoutPublicUrl();
  // Deliveries to other servers and inbox work (docs/federation.md), until the server stops.
  const federationWork = new AbortController();
  startFederationQueue(federationWork.signal);
  // Photos nothing uses any more (abandoned forms'), a minute after start and every 6 hours.
  const sweep = () => sweepUnusedUploads().catch((error: unknown) => log.warn({ err: error }, "sweeping unused uploads failed"));
  setTimeout(sweep, 60_000).unref();
  setInterval(sweep, 6 * 60 * 60 * 1000).unref();
  // Under `npm run dev` (remix dev restarts this server after every rebuild and waits for this).
  if (process.env.NODE_ENV === "development") await broadcastDevReady(build);

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the database.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: finishing in-flight requests…`);
    setTimeout(() => process.exit(1), 10_000).unref();
    federationWork.abort();
    server.close(() => {
      closeDatabase().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, "closing the database failed");
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
  };
  // `on`, not `once`: a worker of a cluster gets Ctrl-C twice (from the terminal and from the
  // primary), and a second signal without a listener would kill it mid-request.
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return server;
}

/**
 * Serves with WEB_CONCURRENCY processes. One (the default) is startServer() itself. More are
 * node:cluster workers sharing the port: each a whole server with its own database handle
 * (SQLite in WAL mode takes several; writes queue on its lock, sessions and sign-in throttling
 * live in the database, and each worker's page cache sees the others' commits through
 * data_version). The primary only keeps the workers running — a worker that dies is replaced,
 * unless workers keep dying right after starting — and on SIGTERM/SIGINT passes the signal on
 * and exits once every worker has finished its requests.
 */
export async function serve(build: ServerBuild, options: ServeOptions): Promise<void> {
  const workers = workerCount();
  if (workers === 1 || cluster.isWorker) {
    await startServer(build, options);
    return;
  }
  if (env.DATABASE_PATH === ":memory:" && !env.DATABASE_URL) {
    throw new Error("WEB_CONCURRENCY above 1 needs a database file: each worker would get its own :memory: database.");
  }
  cluster.setupPrimary({ exec: options.workerScript, args: [] });
  gatherWorkerMetrics();
  const startedAt = new WeakMap<Worker, number>();
  let stopping = false;
  let stopFailed = false;
  let quickDeaths = 0;
  const fork = () => startedAt.set(cluster.fork(), Date.now());
  const running = () => Object.keys(cluster.workers ?? {}).length;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => process.exit(1), 12_000).unref();
  };
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) stopFailed = true;
      if (running() === 0) process.exit(stopFailed ? 1 : 0);
      return;
    }
    quickDeaths = Date.now() - (startedAt.get(worker) ?? 0) < 5_000 ? quickDeaths + 1 : 0;
    if (quickDeaths >= 3) {
      log.error(`Workers keep exiting right after they start (last: ${signal ?? `exit ${code}`}); stopping.`);
      stopFailed = true;
      stop("SIGTERM");
      if (running() === 0) process.exit(1);
      return;
    }
    log.error(`Worker ${worker.process.pid} exited (${signal ?? `exit ${code}`}); starting another.`);
    fork();
  });
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  for (let i = 0; i < workers; i++) fork();
  log.info(`ReciPals: ${workers} worker processes (WEB_CONCURRENCY).`);
}
