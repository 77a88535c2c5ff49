import type { Socket } from "node:net";

import { createRequestHandler, type AppLoadContext, type ServerBuild } from "@remix-run/node";
import type { NextFunction, Request, RequestHandler, Response } from "express";

// Our Express adapter for Remix (docs/architecture.md#the-server). The one @remix-run/express
// ships reads the body from `req` always (capBodies may already have read it), writes an answer as
// fast as the app yields it (a client that reads nothing made the server hold a whole list), and
// closes the connection under a client still sending a photo it refused.

/** The most of a body still arriving after its answer that is read and thrown away before the connection is closed. */
const DISCARD_BYTES = 32 * 1024 * 1024;
/** How long that reading may last. */
const DISCARD_MS = 5_000;

const closing = new WeakSet<Socket>();

/**
 * Ends the connection after this answer, without losing the answer on the way
 * (docs/rules.md#early-refusals). Called before the answer's head is written: it says
 * `Connection: close`, so the client sends nothing more on this connection. Node then destroys the
 * socket as soon as the answer is written (`socket.destroySoon()`), even while the client is still
 * sending the body: the kernel answers what arrives after with a reset, the client's send fails
 * (EPIPE, ECONNRESET) and it often never reads the answer. So, while the body has not all
 * arrived, only the server's side is ended once the answer is flushed (the answer, then FIN), and
 * the rest of the body is read and thrown away from now on: the socket is destroyed once the body
 * has ended and the answer is out, or after 32 MB or 5 s of it, whichever comes first (a client
 * sending on and on holds nothing).
 */
export function closeAfterAnswer(req: Request, res: Response): void {
  if (!res.headersSent) res.set("Connection", "close");
  const socket = req.socket;
  if (req.complete || closing.has(socket)) return;
  closing.add(socket);
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => (req.complete ? destroySoon() : void socket.end());
  const close = () => socket.destroy();
  const timer = setTimeout(close, DISCARD_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  let discarded = 0;
  // Whoever was reading the body (Remix's body stream) gets no more of it: nothing is kept. Reading
  // it here also keeps Node from dumping it uncounted once the answer is written.
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) close();
  });
  // The whole body is in: once the answer is out too, nothing is left to wait for (before that, Node
  // closes the connection itself when the answer is written, as the request is complete).
  req.once("end", () => {
    if (res.writableFinished) close();
  });
  req.resume();
}

/**
 * The request body as a web stream, read as the app asks for it. When the app stops reading
 * before the end (a form over its limit), the rest is let through unread instead of the connection
 * being destroyed: the app's answer must still reach the client (see closeAfterAnswer).
 */
function bodyStreamOf(req: Request): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
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
 * The request as a Fetch Request, with the body as it arrives or as capBodies read it
 * (`res.locals.body`), aborted when the client goes away before the answer is sent.
 */
function remixRequestOf(req: Request, res: Response): globalThis.Request {
  const port = (value: string | undefined) => {
    const parsed = Number.parseInt(value?.split(":")[1] ?? "", 10);
    return Number.isSafeInteger(parsed) ? parsed : null;
  };
  // A forwarded host (and its port) is believed only behind a trusted proxy (TRUST_PROXY), as
  // req.hostname and req.protocol believe it; the app's absolute links use PUBLIC_URL when set.
  const trustsProxy = req.app.get("trust proxy fn") as ((address: string | undefined, hop: number) => boolean) | undefined;
  const trusted = Boolean(trustsProxy?.(req.socket.remoteAddress, 0));
  const chosenPort = (trusted ? port(req.get("X-Forwarded-Host")) : null) ?? port(req.get("host"));
  const url = `${req.protocol}://${req.hostname}${chosenPort ? `:${chosenPort}` : ""}${req.originalUrl}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value) headers.set(name, value);
  }
  let controller: AbortController | null = new AbortController();
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers, signal: controller.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = (res.locals.body as Buffer<ArrayBuffer> | undefined) ?? bodyStreamOf(req);
    init.duplex = "half";
  }
  res.on("finish", () => (controller = null));
  res.on("close", () => controller?.abort());
  return new Request(url, init);
}

/**
 * Writes an answer's body as the client reads it: when the response says to wait (its buffers are
 * full), the next piece is not even read from the answer's stream until 'drain'. A client that
 * goes away stops the stream (no more rows are read).
 */
export async function pipeBody(body: ReadableStream<Uint8Array>, res: Response): Promise<void> {
  const reader = body.getReader();
  const drained = () =>
    new Promise<void>((resolve) => {
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
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Answers whose whole body the app already holds as bytes, with those bytes. */
const heldBodies = new WeakMap<globalThis.Response, Buffer>();

/**
 * An answer whose body is already all here (a rendered page): it is still a Fetch Response with
 * that body for whoever reads it (tests, Remix), but the server writes the bytes it holds in one
 * end() instead of reading them back out of the Response's stream piece by piece.
 */
export function answerWithBytes(body: Buffer<ArrayBuffer>, init: ResponseInit): globalThis.Response {
  const response = new globalThis.Response(body, init);
  heldBodies.set(response, body);
  return response;
}

export async function sendResponse(req: Request, res: Response, response: globalThis.Response): Promise<void> {
  res.statusMessage = response.statusText;
  res.status(response.status);
  // Answered before the body was all read (a page refused it over its limit, or answered without
  // reading it): the connection closes after this answer, the rest read away (closeAfterAnswer).
  if (!req.complete && req.method !== "GET" && req.method !== "HEAD") closeAfterAnswer(req, res);
  for (const [name, value] of response.headers.entries()) res.append(name, value);
  const held = heldBodies.get(response);
  if (held && response.body && !response.bodyUsed) {
    response.body.cancel().catch(() => undefined);
    res.end(held);
  } else if (response.body) await pipeBody(response.body, res);
  else res.end();
}

/** Remix's request handler as an Express one, with the load context `loadContextOf` makes per request. */
export function remixHandler(build: ServerBuild, mode: string | undefined, loadContextOf: (req: Request, res: Response) => AppLoadContext): RequestHandler {
  const handle = createRequestHandler(build, mode);
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      await sendResponse(req, res, await handle(remixRequestOf(req, res), loadContextOf(req, res)));
    } catch (error) {
      next(error);
    }
  };
}

type WriteCallback = (error?: Error | null) => void;

/**
 * Remix writes a page to the response piece by piece as React renders it, and calls res.flush()
 * (compression's) after every piece. Each write was a zlib round trip through the thread pool and
 * each flush closed a compressed block, so pages cost more and compressed worse. Here the pieces
 * written in one turn of the event loop are joined and handed on, then flushed, once the render
 * pauses: a page rendered in one go reaches compression as one piece with end(), and a response
 * that really streams still goes out as it comes.
 * Backpressure is kept: at most COALESCE_BYTES wait here (more is handed on at once), and write()
 * says false while compression or the socket is full, until their 'drain'. A client that reads
 * slowly then holds the server to a few buffers, not to the whole answer (pipeBody waits).
 */
const COALESCE_BYTES = 16 * 1024;

export const coalesceWrites: RequestHandler = (_req, res, next) => {
  // The originals, called with the shapes Node accepts; ours below take every shape write/end take.
  const write = res.write as (chunk: Buffer, callback?: WriteCallback) => boolean;
  const end = res.end as (...args: unknown[]) => Response;
  const withFlush = res as Response & { flush?: () => void };
  const flush = typeof withFlush.flush === "function" ? withFlush.flush : null;
  let pieces: Buffer[] = [];
  let pending = 0;
  let callbacks: WriteCallback[] = [];
  let scheduled = false;
  // True while what is downstream (compression, the socket) said to wait; its 'drain' clears it.
  let blocked = false;
  res.on("drain", () => {
    blocked = false;
  });
  const drain = () => {
    if (pieces.length === 0) return !blocked;
    const chunk = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    const done = callbacks;
    pieces = [];
    pending = 0;
    callbacks = [];
    const ok = write.call(res, chunk, done.length > 0 ? (error) => done.forEach((callback) => callback(error)) : undefined);
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
  const toBuffer = (chunk: string | Uint8Array, encoding: unknown): Buffer => {
    if (Buffer.isBuffer(chunk)) return chunk;
    if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength); // Remix's chunks: no copy
    return Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
  };
  type Chunk = string | Uint8Array | null | undefined;
  res.write = ((chunk: Chunk, encoding?: BufferEncoding | WriteCallback, callback?: WriteCallback): boolean => {
    if (typeof encoding === "function") [callback, encoding] = [encoding, undefined];
    if (chunk == null || chunk.length === 0) return !blocked;
    const piece = toBuffer(chunk, encoding);
    pieces.push(piece);
    pending += piece.length;
    if (callback) callbacks.push(callback);
    if (pending >= COALESCE_BYTES) return drain();
    schedule();
    return !blocked;
  }) as Response["write"];
  withFlush.flush = schedule;
  res.end = ((chunk?: Chunk | (() => void), encoding?: BufferEncoding | (() => void), callback?: () => void): Response => {
    if (typeof chunk === "function") [callback, chunk, encoding] = [chunk, undefined, undefined];
    if (typeof encoding === "function") [callback, encoding] = [encoding, undefined];
    if (chunk != null && chunk.length > 0) pieces.push(toBuffer(chunk, encoding));
    if (callbacks.length > 0) {
      drain();
      return end.call(res, callback);
    }
    // Usually the whole body: handed over with end(), so compression sees its size (small
    // answers stay uncompressed) and compresses it in one pass.
    const body = pieces.length === 0 ? null : pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    pieces = [];
    if (body) return callback ? end.call(res, body, callback) : end.call(res, body);
    return callback ? end.call(res, callback) : end.call(res);
  }) as Response["end"];
  next();
};
