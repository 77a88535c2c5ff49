import { encode } from "turbo-stream";

import type { SubmissionRefusal } from "~/lib/refusal";
import { escapeHtml } from "./html-text.server";

// Answers the server gives before any route runs (docs/rules.md#early-refusals): a body over its
// route's limit (413), the upload queue full (503), a write from another site (403), NUL in an
// address (400). Each is written in the language of whoever asked:
// - the JSON API gets `{ message }`;
// - Remix's browser client (a `….data` request, made by a form or a link once JavaScript runs)
//   gets single-fetch data it can decode: a refused form submission comes back as the action's
//   data, so the page shows the message on the form being filled in and keeps what was typed,
//   and a refused page load as the page's error;
// - a browser without JavaScript gets a small page saying what happened.

export interface EarlyAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer>;
}

const TITLES: Record<number, string> = {
  400: "Not understood",
  403: "Not allowed",
  413: "Too large",
  429: "Too many attempts",
  503: "Busy",
};

/** Remix's error response as its client rebuilds it (the "ErrorResponse" entry of its wire format). */
class RouteErrorResponse {
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly data: string,
  ) {}
}

/** The bytes of Remix's single-fetch format (turbo-stream, with the one plugin Remix's client reads here). */
async function singleFetchBytes(value: unknown): Promise<Uint8Array<ArrayBuffer>> {
  const stream = encode(value, {
    plugins: [(item: unknown) => (item instanceof RouteErrorResponse ? ["ErrorResponse", item.data, item.status, item.statusText] : undefined)],
  });
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Whether Remix's browser client asked (a single-fetch data address). */
export function isRemixDataRequest(pathname: string): boolean {
  return pathname.endsWith(".data");
}

/**
 * The answer to a request refused before any route ran, in its asker's language. Every answer
 * says `no-store`: it is about this request only.
 */
export async function earlyRefusal({
  method,
  pathname,
  status,
  message,
}: {
  method: string;
  pathname: string;
  status: number;
  message: string;
}): Promise<EarlyAnswer> {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  const title = TITLES[status] ?? "Refused";
  if (pathname.startsWith("/api/")) {
    headers["Content-Type"] = "application/json; charset=utf-8";
    return { status, headers, body: new TextEncoder().encode(JSON.stringify({ message })) };
  }
  if (isRemixDataRequest(pathname)) {
    headers["Content-Type"] = "text/x-script";
    headers["X-Remix-Response"] = "yes";
    const refusal: SubmissionRefusal = { early: true, formError: message, error: message };
    const value = method === "GET" || method === "HEAD" ? { root: { error: new RouteErrorResponse(status, title, message) } } : { data: refusal };
    return { status, headers, body: await singleFetchBytes(value) };
  }
  headers["Content-Type"] = "text/html; charset=utf-8";
  headers["Content-Security-Policy"] = "default-src 'none'";
  const page =
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)} · ReciPals</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` +
    `<p><a href="/ReciPals/Home">Back to ReciPals</a></p></main></body></html>`;
  return { status, headers, body: new TextEncoder().encode(page) };
}
