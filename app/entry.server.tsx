import crypto from "node:crypto";
import { Writable } from "node:stream";

import type { ActionFunctionArgs, AppLoadContext, EntryContext, LoaderFunctionArgs } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { renderToPipeableStream, renderToString } from "react-dom/server";

import { NonceContext } from "./lib/nonce";
import { InlineStylesContext } from "./root";
import { isPersonalRequest } from "./server/http/cookies.server";
import { databaseLooksDown, isUnavailable, UNAVAILABLE_MESSAGE } from "./server/db/connection.server";
import { earlyRefusal } from "./server/http/early-answers.server";
import { offerToSharedCache } from "./server/cache/shared-cache.server";
import { inlineStylesheet, inlineStyleSources } from "./server/document/document-styles.server";
import { hydrateAfterFirstPhoto } from "./server/document/hydrate-after-photo.server";
import { log } from "./server/observability/log.server";
import { currentRequestId } from "./server/observability/request-notes.server";
import { answerWithBytes } from "./server/runtime/remix-adapter.server";

const ABORT_DELAY = 5_000;

// The production server, started by scripts/server.js with this build (app/server/runtime/).
export { serve } from "./server/runtime/serve.server";

/**
 * Only our own scripts run: Remix's inline scripts carry this request's nonce. Images may
 * come from other https hosts (the sample recipes' photos); nothing else may. Each response
 * puts its nonce in (and the hashes of the page's inline stylesheets, the same for the server's life).
 */
const CSP_BEFORE_NONCE = "default-src 'self'; script-src 'self' 'nonce-";
const CSP_AFTER_STYLES = [
  "img-src 'self' data: blob: https:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Styles come from our stylesheets and the inline copies of the page's own (the site-wide one and
 * its routes'), each allowed by its hash (document-styles.server.ts): no inline style attribute,
 * no other <style> element.
 */
function contentSecurityPolicy(nonce: string, context: EntryContext): string {
  return `${CSP_BEFORE_NONCE}${nonce}'; style-src 'self'${inlineStyleSources(context)}; ${CSP_AFTER_STYLES}`;
}

const NONCE_BYTES = 16;
const nonceBytes = Buffer.alloc(NONCE_BYTES * 256);
let nonceAt = nonceBytes.length;

/**
 * A fresh nonce for each page: 16 bytes of the system's cryptographic randomness, never used
 * twice. They are drawn 256 nonces at a time (as Node's randomUUID does): one call into the
 * random generator per page was about 1% of a signed-in page's CPU.
 */
function freshNonce(): string {
  if (nonceAt + NONCE_BYTES > nonceBytes.length) {
    crypto.randomFillSync(nonceBytes);
    nonceAt = 0;
  }
  const nonce = nonceBytes.toString("base64", nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

const isPersonal = (request: Request) => isPersonalRequest(request.headers.get("Cookie"), request.headers.get("Authorization"));

/**
 * ETag → 304 for pages that are the same for every visitor (a GET without a session: recipe
 * pages, Info, Search, a Home link with its seed). The HTML itself cannot be the tag's source:
 * its CSP nonce differs on every response. What the page is made of can: the build, the URL and
 * the loaders' data (for a visitor, everything a page renders comes from those), so the tag is a
 * hash of them, weak because equal pages are equivalent rather than byte-identical. A 304 carries
 * no Content-Security-Policy, so the browser keeps the stored page's header, whose nonce matches
 * the stored page's scripts. Signed-in pages are left alone (per-user, and rarely revisited).
 * The same pages are offered to the server's shared cache (app/server/runtime/page-cache.server.ts).
 */
function revalidate(
  request: Request,
  status: number,
  headers: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
): Response | null {
  if ((request.method !== "GET" && request.method !== "HEAD") || status !== 200) return null;
  if (isPersonal(request) || headers.has("Set-Cookie")) return null;
  const { loaderData, actionData, errors } = remixContext.staticHandlerContext;
  if (actionData || errors) return null;
  const etag = `W/"${crypto
    .createHash("sha256")
    .update(`${remixContext.manifest.version}\n${request.url}\n${JSON.stringify(loaderData)}`)
    .digest("base64url")
    .slice(0, 27)}"`;
  headers.set("ETag", etag);
  // Stored, but checked with the server before every reuse; the page differs once signed in.
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-cache");
  headers.append("Vary", "Cookie");
  offerToSharedCache(loadContext);
  const wanted = (request.headers.get("If-None-Match") ?? "").split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (!wanted.includes(etag.slice(2)) && !wanted.includes("*")) return null;
  const notModified = new Headers();
  for (const name of ["ETag", "Cache-Control", "Vary"]) notModified.set(name, headers.get(name)!);
  return new Response(null, { status: 304, headers: notModified });
}

/**
 * Single-fetch data (`….data`: a visitor's client-side navigation or `Load more`) is, like the
 * visitor's pages, the same for every visitor: offered to the server's shared cache.
 */
export async function handleDataRequest(response: Response, { request, context }: LoaderFunctionArgs | ActionFunctionArgs): Promise<Response> {
  // A data request that failed for want of the database: Remix reports only a 500. A form's
  // submission gets the message as its data, so the page shows it on the form and keeps what was
  // typed (the write's transaction changed nothing); a page load gets the page's error.
  if (response.status === 500 && databaseLooksDown()) {
    if (request.method === "GET" || request.method === "HEAD") return unavailable(response);
    await response.body?.cancel();
    const answer = await earlyRefusal({ method: request.method, pathname: new URL(request.url).pathname, status: 503, message: UNAVAILABLE_MESSAGE });
    return new Response(answer.body, { status: 503, headers: { ...answer.headers, "Retry-After": "5" } });
  }
  if (isPersonal(request)) return withPersonalCaching(response);
  if (request.method === "GET" && response.status === 200 && !response.headers.has("Set-Cookie")) {
    offerToSharedCache(context);
  }
  return response;
}

/**
 * Errors Remix reports. A refusal an action or loader answered on purpose (a 4xx Response it
 * threw, such as a form that is too large or not a form) is not an error of the server: logging
 * each one would let any visitor fill the log. Aborted requests are not either.
 */
export function handleError(error: unknown, { request }: LoaderFunctionArgs | ActionFunctionArgs): void {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  // An error without a stack, for a request whose error was logged already: Remix's sanitized copy
  // of it (outside development), reported again when a boundary rethrows it.
  if (error instanceof Error && error.stack === undefined && erred.has(request)) return;
  erred.add(request);
  // One line, not a stack per request, while the database is away (the answer is a 503).
  if (isUnavailable(error)) return void log.warn({ reqId: currentRequestId() }, (error as Error).message);
  log.error({ err: error, reqId: currentRequestId() }, "request failed");
}

/** Requests an error was logged for. */
const erred = new WeakSet<Request>();

/**
 * An answer for one person (docs/rules.md#personal-answers): kept by no cache — not the browser's
 * (a shared computer's next user), not a proxy's.
 */
const PERSONAL_CACHE_CONTROL = "private, no-store";

function withPersonalCaching(response: Response): Response {
  try {
    response.headers.set("Cache-Control", PERSONAL_CACHE_CONTROL);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("Cache-Control", PERSONAL_CACHE_CONTROL);
    return copy;
  }
}

/** The same answer as 503 Service Unavailable, to come back in a few seconds. */
function unavailable(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set("Retry-After", "5");
  headers.set("Cache-Control", "no-store");
  return new Response(response.body, { status: 503, statusText: "Service Unavailable", headers });
}

/**
 * Reads the page's serialized loader data (the single-fetch handoff stream) to its end and puts
 * every chunk where Remix's <StreamTransfer> looks for it (context.renderMeta.streamCache: a
 * settled promise carrying its result): then nothing in the render waits, and the page renders
 * to a string in one synchronous pass. False when the context has no stream or no place for it
 * (another Remix version): the caller streams then.
 */
async function settleHandoff(context: EntryContext): Promise<boolean> {
  const { serverHandoffStream, renderMeta } = context;
  if (!serverHandoffStream || !renderMeta) return false;
  const reader = serverHandoffStream.getReader();
  const decoder = new TextDecoder();
  const cache: NonNullable<typeof renderMeta.streamCache> = {};
  for (let identifier = 0; ; identifier++) {
    const { done, value } = await reader.read();
    cache[identifier] = Object.assign(Promise.resolve(), { result: { done, value: decoder.decode(value, { stream: true }) } });
    if (done) break;
  }
  reader.releaseLock();
  renderMeta.streamCache = cache;
  return true;
}

/**
 * The document as one string, rendered without streams: React's string renderer writes text,
 * where the stream renderer encoded every piece into 2 KB byte arrays, a large share of a
 * signed-in page's CPU (bench/README.md). Null when it cannot be used: the caller streams.
 */
const DOCUMENT_END = "</body></html>";

async function renderAtOnce(context: EntryContext, request: Request, nonce: string): Promise<string | null> {
  if (!(await settleHandoff(context))) return null;
  const html = renderToString(
    <NonceContext.Provider value={nonce}>
      <InlineStylesContext.Provider value={inlineStylesheet}>
        <RemixServer context={context} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </InlineStylesContext.Provider>
    </NonceContext.Provider>,
  );
  // The data's scripts follow the <html> element (RemixServer renders them after the router):
  // the stream renderer held </body></html> back to the very end, and so do we. The last chunk
  // closes the data stream in the browser; without it (something suspended after all) the page
  // would hydrate without its data.
  const end = html.lastIndexOf(DOCUMENT_END);
  if (end < 0 || html.lastIndexOf("streamController.close()") < end) return null;
  return hydrateAfterFirstPhoto(`<!DOCTYPE html>${html.slice(0, end)}${html.slice(end + DOCUMENT_END.length)}${DOCUMENT_END}`, nonce);
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  // A page that failed for want of the database is a 503, to try again shortly. Outside
  // development Remix hands this function sanitized errors ("Unexpected Server Error"), so a 500
  // while the last query found no database counts too (as in handleDataRequest).
  const errors = Object.values(remixContext.staticHandlerContext.errors ?? {});
  if (errors.some(isUnavailable) || (responseStatusCode === 500 && errors.length > 0 && databaseLooksDown())) {
    responseStatusCode = 503;
    responseHeaders.set("Retry-After", "5");
    responseHeaders.set("Cache-Control", "no-store");
  }
  // Revalidation first: a visitor who already holds this page gets a 304 and nothing is rendered.
  const revalidation = revalidate(request, responseStatusCode, responseHeaders, remixContext, loadContext);
  if (revalidation) return revalidation;
  if (isPersonal(request)) responseHeaders.set("Cache-Control", PERSONAL_CACHE_CONTROL);
  // The whole document is rendered before it is sent, in one piece: the loaders have all
  // answered by now and no page defers data, so streaming bought nothing but a chain of small
  // writes through a Node stream, a web stream and back (bots and browsers are answered alike).
  const nonce = freshNonce();
  responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce, remixContext));
  const document = await renderAtOnce(remixContext, request, nonce);
  if (document !== null) {
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    // As bytes: a string body is first checked for lone surrogates, then encoded, two passes over
    // a document of 50-140 KB; Buffer.from encodes once, writing any lone surrogate as U+FFFD as they do.
    // The server then writes those bytes at once (answerWithBytes).
    return answerWithBytes(Buffer.from(document, "utf8"), { headers: responseHeaders, status: responseStatusCode });
  }
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const chunks: Buffer[] = [];
    const collected = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <InlineStylesContext.Provider value={inlineStylesheet}>
          <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
        </InlineStylesContext.Provider>
      </NonceContext.Provider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          collected.on("finish", () => {
            clearTimeout(timeout);
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status: responseStatusCode }));
          });
          pipe(collected);
        },
        onShellError(error: unknown) {
          clearTimeout(timeout);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) log.error({ err: error, reqId: currentRequestId() }, "rendering a page failed");
        },
      },
    );
    // A render that hangs is cut off; one that ends clears this, so no timer outlives its request.
    const timeout = setTimeout(abort, ABORT_DELAY);
  });
}
