import fs from "node:fs";
import net from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { keepReadingAfterWriteErrors, request, seededDatabase, SEEDED_2, signIn, startServer, stopAllServers, tempDir, type RunningServer } from "../support/server/server";

// A body refused before it was read (docs/rules.md#early-refusals) must not cost its sender the
// answer. The client here is a keep-alive client writing its body in pieces, as a phone posting a
// photo does: it goes on sending while the answer arrives, and reuses the connection unless the
// answer says `Connection: close`. The server must say so, read away the rest of the body (up to
// its bounds) and only then close: a close while the client is still sending makes its kernel
// answer with a reset, and the sender gets EPIPE or ECONNRESET instead of the answer. The client
// here keeps reading after a failed write (so the tests can say what happened), but a body within
// the bounds must go out whole, without one.

const MB = 1024 * 1024;
const TRIES = 10;

let dir: string;
let server: RunningServer;
let cookie: string;
/** A client that sends 1 MB of a declared 20 and then a byte every 250 ms: started first, its 5 s run while the other tests do. */
let trickling: Promise<Exchange>;

beforeAll(async () => {
  dir = tempDir("early-close");
  server = await startServer({ databasePath: await seededDatabase(dir) });
  cookie = await signIn(server, SEEDED_2.username, SEEDED_2.password);
  trickling = exchange({ head: [`PUT /api/users/${SEEDED_2.id} HTTP/1.1`, "Content-Type: application/json"], total: 20 * MB, trickleAfter: MB });
}, 300_000);

afterAll(async () => {
  await stopAllServers();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

interface Exchange {
  /** The whole answer, when it was read. */
  answer: Answer | null;
  /** Why no whole answer was read (a reset, the connection closed, a timeout). */
  lost: string | null;
  /** A write of the body that failed, even after the answer was read. */
  writeError: string | null;
  /** Body bytes written. */
  sent: number;
  /** When the server ended the connection (its FIN), in milliseconds from the start. */
  endedAfterMs: number | null;
  /** When a write first failed or the connection was reset. */
  cutOffAfterMs: number | null;
  /** A keep-alive answer: what the next request on the same connection got. */
  reused: string | null;
}

/** Splits `bytes` into an answer's head and body once both are whole (Content-Length or chunked). */
function parseAnswer(bytes: Buffer): Answer | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const lines = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = bytes.subarray(end + 4);
  const length = headers.get("content-length");
  if (length !== undefined) return rest.length >= Number(length) ? { status, headers, body: rest.subarray(0, Number(length)).toString("utf8") } : null;
  if (!/chunked/i.test(headers.get("transfer-encoding") ?? "")) return null;
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n", at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) return rest.length >= lineEnd + 4 ? { status, headers, body: Buffer.concat(parts).toString("utf8") } : null;
    if (rest.length < lineEnd + 2 + size + 2) return null;
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends `head` and a body of `total` bytes (declared, or chunked) in 64 KB pieces on a keep-alive
 * connection, reading the answer as it comes. The whole body is sent whatever the answer (as a
 * browser's upload goes on); a write that fails stops the sending but not the reading. Once the
 * answer is read and the body sent: after a keep-alive answer the next request goes out on the
 * same connection, as a keep-alive client sends it; after `Connection: close` the server must end
 * the connection. With `trickleAfter`, the client sends that much and then a byte every 250 ms
 * until a write fails (a client holding the connection on purpose).
 */
function exchange({ head, total, chunked = false, trickleAfter }: { head: string[]; total: number; chunked?: boolean; trickleAfter?: number }): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
    const result: Exchange = { answer: null, lost: null, writeError: null, sent: 0, endedAfterMs: null, cutOffAfterMs: null, reused: null };
    let received = Buffer.alloc(0);
    let sending = true;
    let reusing = false;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => {
      if (!result.answer) result.lost ??= "no answer within 15 s";
      else if (reusing) result.reused ??= "no answer within 15 s";
      else result.lost ??= "the connection was not ended within 15 s";
      settle();
    }, 15_000);
    const check = () => {
      if (settled || sending || !result.answer || reusing) return;
      if (/close/i.test(result.answer.headers.get("connection") ?? "") || result.writeError) {
        if (result.endedAfterMs !== null || result.writeError) settle();
        return;
      }
      // A keep-alive client's next request goes out on this connection.
      reusing = true;
      received = Buffer.alloc(0);
      socket.write(`GET /ReciPals/Info HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`);
    };
    const failed = (why: string) => {
      if (!result.answer) result.lost ??= why;
      else if (reusing) result.reused ??= why;
      else result.writeError ??= why;
    };

    // A failed write must not destroy the socket (Node's default): what the server sent is still to be read.
    keepReadingAfterWriteErrors(socket, (error) => {
      result.cutOffAfterMs ??= performance.now() - started;
      if (reusing) result.reused ??= (error as NodeJS.ErrnoException).code ?? error.message;
      else result.writeError ??= (error as NodeJS.ErrnoException).code ?? error.message;
    });

    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parseAnswer(received);
      if (!answer) return;
      if (reusing) {
        result.reused = String(answer.status);
        return settle();
      }
      result.answer ??= answer;
      check();
    });
    socket.on("end", () => {
      result.endedAfterMs ??= performance.now() - started;
      if (!result.answer) {
        result.lost ??= "ended without an answer";
        return settle();
      }
      if (reusing) {
        result.reused ??= "ended without an answer";
        return settle();
      }
      check();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      result.cutOffAfterMs ??= performance.now() - started;
      failed(error.code ?? error.message);
    });
    socket.on("close", () => {
      failed("closed");
      settle();
    });

    const lines = [...head, `Host: 127.0.0.1:${server.port}`, "Connection: keep-alive", chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${total}`];
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const goingOn = () => !result.writeError && !settled && !socket.destroyed;
    void (async () => {
      const upTo = trickleAfter ?? total;
      while (result.sent < upTo && goingOn()) {
        const size = Math.min(piece.length, upTo - result.sent);
        const data = piece.subarray(0, size);
        const flowing = socket.write(chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), data, Buffer.from("\r\n")]) : data);
        result.sent += size;
        // Let the answer, or a failed write, be seen before more is written.
        if (flowing) await new Promise((resume) => setImmediate(resume));
        else {
          await new Promise<void>((resume) => {
            const go = () => {
              socket.off("drain", go).off("close", go);
              resume();
            };
            socket.on("drain", go).on("close", go);
          });
        }
      }
      while (trickleAfter !== undefined && result.sent < total && goingOn()) {
        socket.write(piece.subarray(0, 1));
        result.sent += 1;
        await new Promise((resume) => setTimeout(resume, 250));
      }
      if (chunked && goingOn()) socket.write("0\r\n\r\n");
      sending = false;
      check();
    })();
  });
}

/** What went wrong with one try, or null: the whole answer read with `Connection: close`, the body sent without a reset, the connection ended. */
function problemOf(exchange: Exchange, status: number, message: string): string | null {
  if (!exchange.answer) return `no answer (${exchange.lost}; ${exchange.sent} bytes sent)`;
  const { answer } = exchange;
  const problems: string[] = [];
  if (answer.status !== status) problems.push(`status ${answer.status}`);
  if (!answer.body.includes(message)) problems.push(`the message is missing: ${answer.body.slice(0, 120)}`);
  const connection = answer.headers.get("connection") ?? "(none)";
  if (connection.toLowerCase() !== "close") problems.push(`Connection: ${connection}${exchange.reused && exchange.reused !== "200" ? `, the next request on it: ${exchange.reused}` : ""}`);
  if (exchange.writeError) problems.push(`${exchange.writeError} after ${exchange.sent} bytes sent, ${Math.round(exchange.cutOffAfterMs ?? 0)} ms`);
  if (exchange.lost) problems.push(exchange.lost);
  return problems.length > 0 ? problems.join("; ") : null;
}

async function tries(make: () => Promise<Exchange>, status: number, message: string, count = TRIES): Promise<string[]> {
  const problems: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const problem = problemOf(await make(), status, message);
    if (problem) problems.push(`try ${i + 1}: ${problem}`);
    // A fresh connection works at once.
    const fresh = await request(server, "GET", "/ReciPals/Info", { timeoutMs: 2_000 }).catch((error: Error) => ({ status: error.message }));
    if (fresh.status !== 200) problems.push(`try ${i + 1}: the fresh connection's GET got ${fresh.status}`);
  }
  return problems;
}

const TOO_LARGE_JSON = "The request is too large (12 MB at most).";

describe("a body refused early reaches its sender's answer", () => {
  it(`20 MB to PUT /api/users/{id}, ${TRIES} times: each sender reads the 413 and its message, then the connection closes`, async () => {
    const head = [`PUT /api/users/${SEEDED_2.id} HTTP/1.1`, "Content-Type: application/json", `Cookie: ${cookie}`];
    const problems = await tries(() => exchange({ head, total: 20 * MB }), 413, TOO_LARGE_JSON);
    expect(problems, `${problems.length} of ${TRIES} tries went wrong`).toEqual([]);
   }, 60_000);

  it("the same body sent chunked (refused once it passes the limit)", async () => {
    const head = [`PUT /api/users/${SEEDED_2.id} HTTP/1.1`, "Content-Type: application/json", `Cookie: ${cookie}`];
    const problems = await tries(() => exchange({ head, total: 20 * MB, chunked: true }), 413, TOO_LARGE_JSON, 3);
    expect(problems).toEqual([]);
  });

  it(`a 25 MB photo form posted without JavaScript, ${TRIES} times: the profile editor's own 413 page`, async () => {
    const head = [
      `POST /ReciPals/Account/Profile/${SEEDED_2.id}/Edit HTTP/1.1`,
      "Content-Type: multipart/form-data; boundary=----x",
      "Accept: text/html",
      `Origin: ${server.origin}`,
      `Cookie: ${cookie}`,
    ];
    const problems = await tries(() => exchange({ head, total: 25 * MB }), 413, "The image is too large (10 MB at most).");
    expect(problems, `${problems.length} of ${TRIES} tries went wrong`).toEqual([]);
  }, 60_000);

  it("a cross-site write is answered 403 with Connection: close, its body read away", async () => {
    const head = [`POST /ReciPals/Account/Profile/${SEEDED_2.id}/Edit HTTP/1.1`, "Content-Type: multipart/form-data; boundary=----x", "Origin: https://elsewhere.example", `Cookie: ${cookie}`];
    const problems = await tries(() => exchange({ head, total: 5 * MB }), 403, "Cross-site requests are not allowed.", 3);
    expect(problems).toEqual([]);
  });

  it("an address holding NUL is answered 400 with Connection: close, with or without a body", async () => {
    const post = await tries(
      () => exchange({ head: ["POST /ReciPals/Home%00 HTTP/1.1", "Content-Type: application/x-www-form-urlencoded", `Origin: ${server.origin}`], total: 32 * 1024 }),
      400,
      "Addresses may not contain NUL characters.",
      2,
    );
    const get = await tries(() => exchange({ head: ["GET /ReciPals/%00 HTTP/1.1"], total: 0 }), 400, "Addresses may not contain NUL characters.", 2);
    expect([...post, ...get]).toEqual([]);
  });

  it("the upload queue full: 503 with Retry-After and Connection: close, its body read away", async () => {
    // 4 photo requests let in (waiting for bodies that never come) and 64 waiting: the next is refused.
    const holders: net.Socket[] = [];
    try {
      for (let i = 0; i < 4 + 64; i += 1) {
        const socket = net.connect({ port: server.port, host: "127.0.0.1" });
        socket.on("error", () => undefined);
        socket.write(
          [`PUT /api/users/${SEEDED_2.id} HTTP/1.1`, `Host: 127.0.0.1:${server.port}`, "Content-Type: application/json", `Cookie: ${cookie}`, `Content-Length: ${MB}`, "", ""].join("\r\n"),
        );
        holders.push(socket);
      }
      // Every holder's request has reached the server (its headers read) once a plain GET is answered after them.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await request(server, "GET", "/ReciPals/Info")).status).toBe(200);
      const head = [`PUT /api/users/${SEEDED_2.id} HTTP/1.1`, "Content-Type: application/json", `Cookie: ${cookie}`];
      const refused = await exchange({ head, total: 5 * MB });
      expect(problemOf(refused, 503, "The server is busy with other uploads. Please try again in a moment.")).toBeNull();
      expect(refused.answer?.headers.get("retry-after")).toBe("5");
    } finally {
      for (const socket of holders) socket.destroy();
    }
  });

  it("what is read away is bounded: a client sending on and on is cut off after 32 MB, one that trickles after 5 s", async () => {
    const endless = await exchange({ head: [`PUT /api/users/${SEEDED_2.id} HTTP/1.1`, "Content-Type: application/json"], total: 200 * MB });
    const trickled = await trickling;
    for (const cutOff of [endless, trickled]) {
      expect(cutOff.answer?.status).toBe(413);
      expect(cutOff.answer?.body).toContain(TOO_LARGE_JSON);
      expect(cutOff.answer?.headers.get("connection")).toBe("close");
      // The server stopped reading: a write failed.
      expect(cutOff.writeError).not.toBeNull();
    }
    expect(endless.sent).toBeLessThan(100 * MB);
    expect(trickled.sent).toBeLessThan(2 * MB);
    expect(trickled.cutOffAfterMs).toBeGreaterThan(4_500);
    expect(trickled.cutOffAfterMs).toBeLessThan(9_000);
  });
});
