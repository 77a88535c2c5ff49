import cluster from "node:cluster";
import crypto from "node:crypto";

import type { NextFunction, Request, RequestHandler, Response } from "express";

import { env } from "../env.server";
import { clusterMetricsText, log, metrics, requestSeconds, requestsServed, withRequestNotes, type RequestNotes } from "../facade.server";

// What the operator sees of the server (docs/operator-guide.md, "Logs" and "Metrics"): a JSON log
// line and the request metrics for every request, and the metrics at GET /metrics.

/** An id a balancer in front may have given the request (nginx's $request_id): kept when it is plain. */
const FORWARDED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives each request an id (X-Request-Id, the balancer's when it sent one), opens its notes (who
 * is signed in, written by the session code) and, when its answer has gone, counts it and writes
 * its log line: time, id, route, method, status, duration, user id. Nothing of the address (a
 * reset link's token is in it), the headers or the body.
 */
export function observeRequests(routeOf: (req: Request) => string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const given = req.headers["x-request-id"];
    const id = typeof given === "string" && FORWARDED_ID.test(given) ? given : crypto.randomUUID();
    res.setHeader("X-Request-Id", id);
    const notes: RequestNotes = { id, userId: null };
    res.once("close", () => {
      const seconds = (performance.now() - started) / 1000;
      const route = routeOf(req);
      // A client that left before the whole answer was sent: what was meant to go, marked.
      const status = res.statusCode;
      requestsServed.inc({ route, method: req.method, status: String(status) });
      requestSeconds.observe({ route }, seconds);
      const line = { reqId: id, route, method: req.method, status, ms: Math.round(seconds * 10_000) / 10, userId: notes.userId ?? undefined, aborted: res.writableFinished ? undefined : true };
      if (status >= 500) log.warn(line, "request");
      else log.info(line, "request");
    });
    withRequestNotes(notes, next);
  };
}

/** Whether the request came to this machine directly (not through a proxy that says whom for). */
function fromThisMachine(req: Request): boolean {
  const address = req.socket.remoteAddress ?? "";
  const loopback = address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
  return loopback && req.headers["x-forwarded-for"] === undefined && req.headers.forwarded === undefined;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : "");
  const expected = Buffer.from(token);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/**
 * GET /metrics (mounted there by the server): Prometheus' text format. With METRICS_TOKEN it asks for that bearer token (a
 * wrong or missing one: 401 and nothing else); without, it answers only requests made on this
 * machine (403 otherwise). Under several worker processes the answer adds up all of them.
 */
export function metricsRoute(): RequestHandler {
  return (req: Request, res: Response) => {
    res.set("Cache-Control", "no-store");
    if (env.METRICS_TOKEN ? !tokenMatches(req.headers.authorization, env.METRICS_TOKEN) : !fromThisMachine(req)) {
      res.status(env.METRICS_TOKEN ? 401 : 403).end();
      return;
    }
    (cluster.isWorker ? clusterMetricsText() : metrics.metrics()).then(
      (text) => res.setHeader("Content-Type", metrics.contentType).end(text),
      (error: unknown) => {
        log.error({ err: error }, "collecting the metrics failed");
        res.status(500).end();
      },
    );
  };
}
