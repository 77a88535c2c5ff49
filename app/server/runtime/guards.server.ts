import type { NextFunction, Request, RequestHandler, Response } from "express";

import { earlyRefusal, log, type BodyLimit } from "../facade.server";
import { closeAfterAnswer } from "./remix-adapter.server";

// What the server checks before any route runs (docs/architecture.md#the-server): security
// headers on every answer, the cross-site guard, request bodies capped at their route's limit,
// photo uploads let in a few at a time, addresses holding NUL. A refusal is written by the app for
// whoever asked (`Refuse`): JSON for the API, Remix's data format for its browser client, a page
// otherwise; its connection is closed once the answer is out, the rest of the body read away
// (closeAfterAnswer).

/** Answers a request refused before any route ran, with `status` and the message a person reads. */
export type Refuse = (req: Request, res: Response, status: number, message: string) => void;

/** The body limit of the route a request will reach (route-rules.server.ts). */
export type LimitFor = (pathname: string, search: string, contentType: string) => BodyLimit;

const hasNoBody = (req: Request) => req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS";

/** Headers every answer carries; HSTS in production only (a developer's http://localhost stays reachable). */
export function securityHeaders(production: boolean): RequestHandler {
  return (_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
    res.setHeader("X-Frame-Options", "DENY");
    if (production) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    next();
  };
}

/**
 * The refusals, in the asker's language (app/server/http/early-answers.server.ts). API answers
 * carry CORS for an allowed origin, as the app's own do. Each says `Connection: close`: the body
 * behind it is unread (or read only in part), so the connection cannot carry another request.
 */
export function earlyRefusals(allowedOrigins: ReadonlySet<string>): Refuse {
  return (req, res, status, message) => {
    closeAfterAnswer(req, res);
    earlyRefusal({ method: req.method, pathname: req.path, status, message })
      .then((answer) => {
        res.status(answer.status);
        for (const [name, value] of Object.entries(answer.headers)) res.set(name, value);
        const origin = req.get("origin");
        if (req.path.startsWith("/api/") && origin && allowedOrigins.has(origin)) {
          res.set("Access-Control-Allow-Origin", origin).set("Access-Control-Allow-Credentials", "true");
        }
        res.end(Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength));
      })
      .catch((error: unknown) => {
        log.error({ err: error, reqId: res.getHeader("X-Request-Id") }, "refusing a request failed");
        if (!res.headersSent) res.status(500).end();
      });
  };
}

/**
 * Cross-site guard (docs/rules.md#cross-site-requests): a state-changing request from a page on
 * another origin is refused before any route sees it. Requests without Origin (curl, old clients)
 * pass; the SameSite=Lax session cookie is not sent cross-site anyway.
 */
export function crossSiteGuard(allowedOrigins: ReadonlySet<string>, refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (hasNoBody(req)) return next();
    const origin = req.get("origin");
    if (!origin) return next();
    const own = [`http://${req.get("host")}`, `https://${req.get("host")}`];
    if (own.includes(origin) || allowedOrigins.has(origin)) return next();
    refuse(req, res, 403, "Cross-site requests are not allowed.");
  };
}

/** NUL is never text (docs/rules.md#input-limits): an address holding one (%00) names nothing here. */
export function refuseNulAddresses(refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (!/%00/i.test(req.originalUrl)) return next();
    refuse(req, res, 400, "Addresses may not contain NUL characters.");
  };
}

/** The query string of a request ("?index" picks an index route's action). */
function searchOf(req: Request): string {
  const at = req.originalUrl.indexOf("?");
  return at < 0 ? "" : req.originalUrl.slice(at);
}

function limitOf(req: Request, limitFor: LimitFor): BodyLimit {
  return limitFor(req.path, searchOf(req), req.headers["content-type"] ?? "");
}

/**
 * Request bodies are capped before they are held, at the limit of the route the request will
 * reach: a body whose declared length is over it is refused at once, unread; one sent without a
 * length (chunked) is read here, counted, and refused as soon as it passes the limit (what was read
 * goes on to the app in `res.locals.body`). Node's parser never delivers more than a declared
 * length, so a body that passes here cannot grow later. The app counts again as it reads, for
 * requests that do not come through this server; the photo forms, which answer an overflow with
 * their own page, are left to it.
 */
export function capBodies(limitFor: LimitFor, refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (hasNoBody(req)) return next();
    const limit = limitOf(req, limitFor);
    if (limit.pageAnswers) return next();
    const declared = req.headers["content-length"];
    if (declared !== undefined) return Number(declared) > limit.bytes ? refuse(req, res, 413, limit.message) : next();
    if (req.headers["transfer-encoding"] === undefined) return next();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onData = (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= limit.bytes) return void chunks.push(chunk);
      settled = true;
      chunks.length = 0;
      req.off("data", onData);
      refuse(req, res, 413, limit.message);
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

interface Waiting {
  gone: boolean;
  start(): void;
}

/**
 * Requests that may bring photos (their limit is `heavy`) hold megabytes each while they are read
 * and processed: at most `concurrent` of them are let in at a time per process. The rest wait with
 * their bodies unread (the connection simply stops being read, so they cost no memory); past
 * `queue` waiting, a request is answered 503 with Retry-After. A slot is given back when its answer
 * has been sent or its client has gone.
 */
export function gateHeavyBodies(
  limitFor: LimitFor,
  refuse: Refuse,
  { concurrent = 4, queue = 64 } = {},
): RequestHandler & { readonly running: number; readonly waiting: number } {
  let running = 0;
  const waiting: Waiting[] = [];
  const admitNext = () => {
    running -= 1;
    while (waiting.length > 0 && running < concurrent) {
      const next = waiting.shift();
      if (!next || next.gone) continue;
      running += 1;
      next.start();
    }
  };
  const gate: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (hasNoBody(req) || !limitOf(req, limitFor).heavy) return next();
    const entry: Waiting = {
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
  // How busy it is, for the metrics.
  return Object.defineProperties(gate, {
    running: { get: () => running },
    waiting: { get: () => waiting.length },
  }) as typeof gate & { readonly running: number; readonly waiting: number };
}
