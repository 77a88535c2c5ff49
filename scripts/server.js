// The production server: Express + Remix's request handler. It replaces remix-serve because
// the app needs what remix-serve cannot give: the client address in the load context (sign-in
// throttling), a cross-site guard for every non-GET request, security headers on every
// answer, and a graceful stop that closes the database.
import cluster from "node:cluster";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

import { broadcastDevReady, createRequestHandler, installGlobals } from "@remix-run/node";
import compression from "compression";
import express from "express";

import { createPageCache } from "./page-cache.js";
import { precompressedAssets } from "./precompressed-assets.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const buildFile = path.join(root, process.env.RECIPALS_BUILD_DIR ?? "build", "index.js");

/**
 * Remix writes a page to the response piece by piece as React renders it, and calls res.flush()
 * (compression's) after every piece. Each write was a zlib round trip through the thread pool
 * (about a millisecond a page) and each flush closed a compressed block: a 35 KB page went out
 * as 12 KB of gzip instead of 5 KB. Here the pieces written in one turn of the event loop are
 * joined and handed on, then flushed, once the render pauses: a page rendered in one go reaches
 * compression as one piece with end(), and a response that really streams still goes out as it
 * comes.
 * Backpressure is kept: at most COALESCE_BYTES wait here (more is handed on at once), and write()
 * says false while compression or the socket is full, until their 'drain'. A client that reads
 * slowly then holds the server to a few buffers, not to the whole answer (sendResponse waits).
 */
const COALESCE_BYTES = 16 * 1024;

function coalesceWrites(req, res, next) {
  const write = res.write;
  const end = res.end;
  const flush = typeof res.flush === "function" ? res.flush : null;
  let pieces = [];
  let pending = 0;
  let callbacks = [];
  let scheduled = false;
  // True while what is downstream (compression, the socket) said to wait; its 'drain' clears it.
  let blocked = false;
  res.on("drain", () => {
    blocked = false;
  });
  const drain = () => {
    if (pieces.length === 0) return !blocked;
    const chunk = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
    const done = callbacks;
    pieces = [];
    pending = 0;
    callbacks = [];
    const ok = write.call(res, chunk, done.length > 0 ? (error) => done.forEach((cb) => cb(error)) : undefined);
    if (ok === false) blocked = true;
    return ok !== false;
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (res.writableEnded) return;
      drain();
      flush?.call(res);
    });
  };
  const toBuffer = (chunk, encoding) => {
    if (Buffer.isBuffer(chunk)) return chunk;
    if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength); // Remix's chunks: no copy
    return Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8");
  };
  res.write = (chunk, encoding, callback) => {
    if (typeof encoding === "function") [callback, encoding] = [encoding, undefined];
    if (chunk == null || chunk.length === 0) return !blocked;
    const piece = toBuffer(chunk, encoding);
    pieces.push(piece);
    pending += piece.length;
    if (callback) callbacks.push(callback);
    if (pending >= COALESCE_BYTES) return drain();
    schedule();
    return !blocked;
  };
  res.flush = schedule;
  res.end = (chunk, encoding, callback) => {
    if (typeof chunk === "function") [callback, chunk, encoding] = [chunk, undefined, undefined];
    if (typeof encoding === "function") [callback, encoding] = [encoding, undefined];
    if (chunk != null && chunk.length > 0) pieces.push(toBuffer(chunk, encoding));
    if (callbacks.length > 0) {
      drain();
      return end.call(res, callback);
    }
    // Usually the whole body: handed over with end(), so compression sees its size (small
    // answers stay uncompressed) and compresses it in one pass.
    const body = pieces.length === 0 ? null : pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
    pieces = [];
    if (body) return callback ? end.call(res, body, callback) : end.call(res, body);
    return callback ? end.call(res, callback) : end.call(res);
  };
  next();
}

/**
 * Request bodies are capped before they are held, at the limit of the route the request will reach
 * (`limitFor`, made by the app from the build's routes: app/server/http/body.server.ts): a body whose
 * declared length is over it is refused at once, unread; one sent without a length (chunked) is
 * read here, counted, and refused as soon as it passes the limit. Node's parser never delivers
 * more than a declared length, so a body that passes here cannot grow later. The app counts again
 * as it reads, for requests that do not come through this server; the photo forms, which answer
 * an overflow with their own page, are left to it.
 */
function capBodies(limitFor, refuse) {
  return (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
    const limit = limitFor(req.path, searchOf(req), req.headers["content-type"] ?? "");
    // The photo forms count their own bodies as they stream in and answer with the editor page.
    if (limit.pageAnswers) return next();
    const declared = req.headers["content-length"];
    if (declared !== undefined) return Number(declared) > limit.bytes ? refuseTooLarge(req, res, limit, refuse) : next();
    if (req.headers["transfer-encoding"] === undefined) return next();
    const chunks = [];
    let size = 0;
    let settled = false;
    const onData = (chunk) => {
      if (settled) return;
      size += chunk.length;
      if (size <= limit.bytes) return void chunks.push(chunk);
      settled = true;
      chunks.length = 0;
      req.off("data", onData);
      refuseTooLarge(req, res, limit, refuse);
    };
    req.on("data", onData);
    req.on("end", () => {
      if (settled) return;
      settled = true;
      res.locals.body = Buffer.concat(chunks, size);
      next();
    });
    req.on("error", () => {
      settled = true;
    });
  };
}

/**
 * Requests that may bring photos (the app marks their limit `heavy`) hold megabytes each while
 * they are read and processed: at most `concurrent` of them are let in at a time per process. The
 * rest wait with their bodies unread (the connection simply stops being read, so they cost no
 * memory); past `queue` waiting, a request is answered 503 with Retry-After. A slot is given back
 * when its answer has been sent or its client has gone.
 */
function gateHeavyBodies(limitFor, refuse, { concurrent = 4, queue = 64 } = {}) {
  let running = 0;
  const waiting = [];
  const admitNext = () => {
    running -= 1;
    while (waiting.length > 0 && running < concurrent) {
      const next = waiting.shift();
      if (next.gone) continue;
      running += 1;
      next.start();
    }
  };
  return (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
    const limit = limitFor(req.path, searchOf(req), req.headers["content-type"] ?? "");
    if (!limit.heavy) return next();
    const entry = {
      gone: false,
      start: () => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          admitNext();
        };
        res.on("finish", release);
        res.on("close", release);
        next();
      },
    };
    if (running < concurrent) {
      running += 1;
      return entry.start();
    }
    if (waiting.length >= queue) {
      res.set("Retry-After", "5");
      return refuse(req, res, 503, "The server is busy with other uploads. Please try again in a moment.");
    }
    waiting.push(entry);
    // A client that gives up while waiting leaves the queue (its place is not held for nobody).
    res.on("close", () => {
      entry.gone = true;
      const at = waiting.indexOf(entry);
      if (at >= 0) waiting.splice(at, 1);
    });
  };
}

/** 413 in the asker's language (app/server/http/early-answers.server.ts); the rest of the body is not kept. */
function refuseTooLarge(req, res, limit, refuse) {
  // Not "Connection: close", even when the client asked for it: Node would then close the
  // connection as soon as the answer is written, while the client is still sending (see lingerThenClose).
  res.set("Connection", "keep-alive");
  refuse(req, res, 413, limit.message);
  lingerThenClose(req, res);
}

/** The query string of a request ("?index" picks an index route's action). */
function searchOf(req) {
  const at = req.originalUrl.indexOf("?");
  return at < 0 ? "" : req.originalUrl.slice(at);
}

/**
 * Sends an answer given before any route runs, written by the app for whoever asked: JSON for the
 * API, Remix's data format for its browser client (so the page shows the message on its form),
 * a small page otherwise. API answers carry CORS for an allowed origin, as the app's own do.
 */
function earlyRefusals(build, allowedOrigins) {
  return (req, res, status, message) => {
    build.entry.module
      .earlyRefusal({ method: req.method, pathname: req.path, status, message })
      .then((answer) => {
        res.status(answer.status);
        for (const [name, value] of Object.entries(answer.headers)) res.set(name, value);
        const origin = req.get("origin");
        if (req.path.startsWith("/api/") && origin && allowedOrigins.has(origin)) {
          res.set("Access-Control-Allow-Origin", origin).set("Access-Control-Allow-Credentials", "true");
        }
        res.end(Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength));
      })
      .catch((error) => {
        console.error(error);
        if (!res.headersSent) res.status(500).end();
      });
  };
}

/**
 * After an early answer to a request whose body is still arriving: the rest of the body is read
 * and thrown away for a short while before the connection is closed. Closing at once makes many
 * clients (browsers uploading a photo, Node's own) fail with a reset while still sending, and never
 * show the 413 page; reading forever would let a client keep the server busy. So: at most 5 s or
 * 32 MB, whichever comes first.
 */
function lingerThenClose(req, res) {
  res.on("finish", () => {
    const socket = req.socket;
    if (!socket || req.complete) return;
    let discarded = 0;
    const close = () => socket.destroy();
    const timer = setTimeout(close, 5_000);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    req.on("data", (chunk) => {
      discarded += chunk.length;
      if (discarded > 32 * 1024 * 1024) close();
    });
    req.on("end", () => {
      clearTimeout(timer);
      close();
    });
    req.resume();
  });
}

/**
 * The request body as a web stream, read as the app asks for it. When the app stops reading
 * before the end (a form over its limit), the rest is let through unread instead of the connection
 * being destroyed: the app's answer must still reach the client (see lingerThenClose).
 */
function bodyStreamOf(req) {
  let open = true;
  return new ReadableStream(
    {
      start(controller) {
        req.on("data", (chunk) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (controller.desiredSize <= 0) req.pause();
        });
        req.on("end", () => {
          if (open) controller.close();
          open = false;
        });
        req.on("error", (error) => {
          if (open) controller.error(error);
          open = false;
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.resume();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/**
 * Our Express adapter for Remix (the one @remix-run/express ships always reads the body from
 * `req`, which capBodies may already have read): the request as a Fetch Request, with the body as
 * it arrives or as capBodies read it, aborted when the client goes away before the answer is sent.
 */
function remixRequestOf(req, res) {
  const port = (value) => {
    const parsed = Number.parseInt(value?.split(":")[1] ?? "", 10);
    return Number.isSafeInteger(parsed) ? parsed : null;
  };
  // A forwarded host (and its port) is believed only behind a trusted proxy (TRUST_PROXY), as
  // req.hostname and req.protocol believe it; the app's absolute links use PUBLIC_URL when set.
  const trusted = Boolean(req.app.get("trust proxy fn")?.(req.socket.remoteAddress, 0));
  const chosenPort = (trusted ? port(req.get("X-Forwarded-Host")) : null) ?? port(req.get("host"));
  const url = `${req.protocol}://${req.hostname}${chosenPort ? `:${chosenPort}` : ""}${req.originalUrl}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value) headers.set(name, value);
  }
  let controller = new AbortController();
  const init = { method: req.method, headers, signal: controller.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = res.locals.body ?? bodyStreamOf(req);
    init.duplex = "half";
  }
  res.on("finish", () => (controller = null));
  res.on("close", () => controller?.abort());
  return new Request(url, init);
}

async function sendResponse(req, res, response) {
  res.statusMessage = response.statusText;
  res.status(response.status);
  // Answered before the body was all read (a guard refused it unread, or a page stopped counting):
  // read the rest away before closing, so the client sees this answer (lingerThenClose).
  if (!req.complete && req.method !== "GET" && req.method !== "HEAD") {
    res.set("Connection", "keep-alive");
    lingerThenClose(req, res);
  }
  for (const [name, value] of response.headers.entries()) res.append(name, value);
  if (response.body) await pipeBody(response.body, res);
  else res.end();
}

/**
 * Writes an answer's body as the client reads it: when the response says to wait (its buffers are
 * full), the next piece is not even read from the answer's stream until 'drain'. Remix's own helper
 * writes as fast as the stream yields, so a client that reads nothing made the server hold a whole
 * streamed list per connection. A client that goes away stops the stream (no more rows are read).
 */
async function pipeBody(body, res) {
  const reader = body.getReader();
  const drained = () =>
    new Promise((resolve) => {
      const settle = () => {
        res.off("drain", settle);
        res.off("close", settle);
        resolve();
      };
      res.on("drain", settle);
      res.on("close", settle);
    });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        await reader.cancel().catch(() => undefined);
        return;
      }
      if (!res.write(value)) await drained();
    }
    res.end();
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    res.destroy(error);
  }
}

function remixHandler({ build, mode, getLoadContext }) {
  const handle = createRequestHandler(build, mode);
  return async (req, res, next) => {
    try {
      await sendResponse(req, res, await handle(remixRequestOf(req, res), getLoadContext(req, res)));
    } catch (error) {
      next(error);
    }
  };
}

/** TRUST_PROXY as Express wants it: hop counts and booleans as such, anything else as given. */
export function trustProxySetting(value) {
  if (/^\d+$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return value;
}

export async function startServer() {
  const build = await import(pathToFileURL(buildFile).href);
  installGlobals({ nativeFetch: build.future.v3_singleFetch });
  const production = process.env.NODE_ENV === "production";
  const allowedOrigins = new Set(
    (process.env.ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean),
  );

  const app = express();
  app.disable("x-powered-by");
  // Behind a proxy, TRUST_PROXY (e.g. "loopback" or 1) lets req.ip be the real client.
  // A number counts hops ("1": the balancer in front); other values are Express's (addresses,
  // "loopback", "uniquelocal", "true"). Express would read "1" as an address, trusting nobody.
  if (process.env.TRUST_PROXY) app.set("trust proxy", trustProxySetting(process.env.TRUST_PROXY));

  app.use((req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
    res.setHeader("X-Frame-Options", "DENY");
    if (production) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    next();
  });

  // Cross-site guard (docs/rules.md#cross-site-requests): a state-changing request from a page on another origin is
  // refused before any route sees it. Requests without Origin (curl, old clients) pass; the
  // SameSite=Lax session cookie is not sent cross-site anyway.
  const refuse = earlyRefusals(build, allowedOrigins);
  app.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return next();
    const origin = req.get("origin");
    if (!origin) return next();
    const own = [`http://${req.get("host")}`, `https://${req.get("host")}`];
    if (own.includes(origin) || allowedOrigins.has(origin)) return next();
    refuse(req, res, 403, "Cross-site requests are not allowed.");
  });
  // What is decided before a route runs comes from the route a request reaches (Remix's own route
  // matching over the build's routes): body limits here, shuffled copies in the page cache.
  const rules = build.entry.module.requestRules(build.routes);
  const limitFor = rules.bodyLimitFor;
  app.use(gateHeavyBodies(limitFor, refuse));
  app.use(capBodies(limitFor, refuse));

  // NUL is never text (docs/rules.md#input-limits): an address holding one (%00) names nothing here.
  // After the body limits, so an oversized body is a 413 whatever its address.
  app.use((req, res, next) => {
    if (!/%00/i.test(req.originalUrl)) return next();
    refuse(req, res, 400, "Addresses may not contain NUL characters.");
  });

  // Brotli as compression sets it up (quality 4) but with a 256 KB window instead of 4 MB: our
  // pages are far smaller, and every response allocated (and the GC reclaimed) the large window,
  // costing about a quarter of the compression time for the same bytes.
  app.use(
    compression({
      brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_LGWIN]: 18 } },
    }),
  );
  // Scripts and stylesheets compressed once at startup (scripts/precompressed-assets.js); the rest as they are.
  app.use(build.publicPath, precompressedAssets(build.assetsBuildDirectory));
  app.use(build.publicPath, express.static(build.assetsBuildDirectory, { immutable: true, maxAge: "1y" }));
  // public/ holds a handful of files and folders: look there only for those names, so page and
  // API requests do not each cost a failed stat() on the disk.
  const publicDir = path.join(root, "public");
  const publicNames = new Set(fs.readdirSync(publicDir));
  const servePublic = express.static(publicDir, { maxAge: "1h" });
  app.use((req, res, next) => (publicNames.has(req.path.split("/")[1] ?? "") ? servePublic(req, res, next) : next()));
  // The JSON API is resource routes only: Remix's single-fetch `.data` URLs under /api would run
  // parent loaders (whole lists) for nothing. They are not part of the API.
  app.use("/api", (req, res, next) => {
    if (!req.path.endsWith(".data")) return next();
    res.status(404).json({ message: "Not found." });
  });
  app.all("*", coalesceWrites);
  // Pages and API reads without cookies, kept until what they show changes (scripts/page-cache.js).
  // PAGE_CACHE_SECONDS=0 turns it off.
  const cacheSeconds = Number(process.env.PAGE_CACHE_SECONDS || 10);
  if (!(cacheSeconds >= 0 && cacheSeconds <= 3600)) throw new Error("PAGE_CACHE_SECONDS must be a number of seconds from 0 to 3600.");
  const dataVersion = build.entry.module.dataVersion;
  if (cacheSeconds > 0 && typeof dataVersion === "function") {
    // Which scopes commits changed (docs/scaling.md): a write drops only the pages showing them.
    const feed = build.entry.module.pageCacheChanges?.();
    app.all(
      "*",
      createPageCache({
        version: feed ? feed.version : dataVersion,
        changes: feed?.changes,
        isPersonal: build.entry.module.isPersonalRequest,
        variantsOf: rules.shuffledVariants,
        ttlMs: cacheSeconds * 1000,
      }).middleware,
    );
  }
  app.all(
    "*",
    remixHandler({
      build,
      mode: process.env.NODE_ENV,
      getLoadContext: (req, res) => ({
        clientAddress: req.ip ?? req.socket.remoteAddress ?? null,
        sharedCache: res.locals.sharedCache ?? null,
      }),
    }),
  );

  const port = Number(process.env.PORT ?? 4000);
  const host = process.env.HOST;
  const server = await new Promise((resolve) => {
    const listening = host ? app.listen(port, host, () => resolve(listening)) : app.listen(port, () => resolve(listening));
  });
  console.log(`ReciPals listening on http://${host && host !== "0.0.0.0" && host !== "::" ? host : "localhost"}:${port}/ReciPals/Home`);
  // Photos nothing uses any more (abandoned forms'), a minute after start and every 6 hours.
  const sweep = () => build.entry.module.sweepUnusedUploads().catch((error) => console.warn("Sweeping unused uploads failed:", error));
  setTimeout(sweep, 60_000).unref();
  setInterval(sweep, 6 * 60 * 60 * 1000).unref();
  // Under `npm run dev` (remix dev restarts this server after every rebuild and waits for this).
  if (process.env.NODE_ENV === "development") await broadcastDevReady(build);

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the database.
  let stopping = false;
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests…`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(async () => {
      await build.entry.module.closeDatabase?.();
      process.exit(0);
    });
    server.closeIdleConnections?.();
  };
  // `on`, not `once`: a worker of a cluster gets Ctrl-C twice (from the terminal and from the
  // primary), and a second signal without a listener would kill it mid-request.
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return server;
}

/** WEB_CONCURRENCY: how many processes serve (default 1); "auto" means one per CPU. */
export function workerCount(value = process.env.WEB_CONCURRENCY) {
  if (value === undefined || value === "") return 1;
  const count = value === "auto" ? availableParallelism() : Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new Error('WEB_CONCURRENCY must be a whole number from 1 to 64, or "auto".');
  return count;
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
export async function serve() {
  const workers = workerCount();
  if (workers === 1 || cluster.isWorker) return startServer();
  if ((process.env.DATABASE_PATH ?? "") === ":memory:") throw new Error("WEB_CONCURRENCY above 1 needs a database file: each worker would get its own :memory: database.");
  cluster.setupPrimary({ exec: fileURLToPath(import.meta.url), args: [] });
  let stopping = false;
  let stopFailed = false;
  let quickDeaths = 0;
  const fork = () => {
    const worker = cluster.fork();
    worker.startedAt = Date.now();
  };
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) stopFailed = true;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(stopFailed ? 1 : 0);
      return;
    }
    quickDeaths = Date.now() - worker.startedAt < 5_000 ? quickDeaths + 1 : 0;
    if (quickDeaths >= 3) {
      console.error(`Workers keep exiting right after they start (last: ${signal ?? `exit ${code}`}); stopping.`);
      stopFailed = true;
      stop("SIGTERM");
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
      return;
    }
    console.error(`Worker ${worker.process.pid} exited (${signal ?? `exit ${code}`}); starting another.`);
    fork();
  });
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    setTimeout(() => process.exit(1), 12_000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  for (let i = 0; i < workers; i++) fork();
  console.log(`ReciPals: ${workers} worker processes (WEB_CONCURRENCY).`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await serve();
