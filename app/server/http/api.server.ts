import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

import { BODY_MESSAGES, bodyLimitOf, holdsNul, type RequestBodyKind } from "./body.server";
import { isPersonalRequest } from "./cookies.server";
import { isUnavailable, UNAVAILABLE_MESSAGE } from "../db/connection.server";
import { env } from "../env.server";
import type { SessionUser } from "../queries/users.server";
import { getUser } from "../auth/session.server";
import { offerToSharedCache } from "../cache/shared-cache.server";
import { log } from "../observability/log.server";
import { currentRequestId } from "../observability/request-notes.server";

// The plumbing every /api resource route shares (docs/rules.md#json-api): JSON answers, `{message}` errors
// (plus `errors` per field on 400), CORS for ALLOWED_ORIGINS on every answer, preflights, a
// capped JSON body reader, and one wrapper that turns anything thrown into JSON — nothing an
// API route does ever reaches Remix's HTML error boundary.
//
// Choices where the texts are silent:
// - A body that is not JSON (`Content-Type` other than application/json or *+json) is refused
//   with 415. It is also a CSRF guard: the only bodies a foreign page can send without a CORS
//   preflight are form and text/plain bodies, and those never reach a handler.
// - Bodies are capped (app/server/http/body.server.ts: 12 MB where photos may come as data URLs, 64 KB
//   for every other call): a larger Content-Length is refused at once, and the bytes are counted
//   while reading too (a lying or missing length) → 413.
// - Every answer carries `Cache-Control: no-store` (answers depend on the session) and
//   `Vary: Origin`.

export const API_MESSAGES = {
  signIn: "Please sign in first.",
  notJson: "Please send JSON (Content-Type: application/json).",
  malformed: "The request body is not valid JSON.",
  notObject: "The request body must be a JSON object.",
  noBody: "This call takes no body: send none, or an empty JSON object.",
  empty: "The request body is empty; please send a JSON object.",
  invalid: "Some fields are not valid.",
  unexpected: "Something went wrong. Please try again.",
  notFound: "There is no such API endpoint.",
  method: (method: string) => `${method} is not supported here.`,
} as const;

/** A refusal with its status; `extra` joins `message` in the JSON body (e.g. `errors`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** 400 with one message per field (`errors`), the first field's message as `message`. */
export function invalid(errors: Record<string, string>, message?: string): ApiError {
  return new ApiError(400, message ?? Object.values(errors)[0] ?? API_MESSAGES.invalid, { errors });
}

export function json(data: unknown, init: ResponseInit = {}): Response {
  return Response.json(data, init);
}

export function errorResponse(error: ApiError): Response {
  return json({ ...error.extra, message: error.message }, { status: error.status, headers: error.headers });
}

// ---------------------------------------------------------------------------------------------
// CORS

/** The origins whose pages may call the API with credentials (ALLOWED_ORIGINS). */
export function allowedOrigins(): readonly string[] {
  return env.ALLOWED_ORIGINS;
}

function allowedOrigin(request: Request): string | null {
  const origin = request.headers.get("Origin");
  return origin && allowedOrigins().includes(origin) ? origin : null;
}

/** Adds the CORS and caching headers every API answer carries (errors and 401s included). */
export function withApiHeaders(request: Request, response: Response): Response {
  let headers: Headers;
  try {
    headers = response.headers;
    headers.append("Vary", "Origin");
  } catch {
    // Immutable headers (a fetched Response): copy it.
    response = new Response(response.body, response);
    headers = response.headers;
    headers.append("Vary", "Origin");
  }
  // Answers depend on the session: kept by no cache, and a signed-in person's by no shared one.
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", isPersonalRequest(request.headers.get("Cookie"), request.headers.get("Authorization")) ? "private, no-store" : "no-store");
  const origin = allowedOrigin(request);
  if (origin) {
    headers.set("Access-Control-Allow-Origin", origin);
    headers.set("Access-Control-Allow-Credentials", "true");
    headers.set("Access-Control-Expose-Headers", "Retry-After");
  }
  return response;
}

const PREFLIGHT_HEADERS = ["content-type", "accept", "x-requested-with"];

/**
 * The answer to a CORS preflight: 204 either way; only an allowed origin gets the
 * Access-Control-Allow-* headers (a foreign origin gets none, so the browser stops there).
 */
export function preflight(request: Request, methods: readonly string[]): Response {
  const headers = new Headers({ Allow: [...methods, "OPTIONS"].join(", ") });
  headers.append("Vary", "Access-Control-Request-Method");
  headers.append("Vary", "Access-Control-Request-Headers");
  if (allowedOrigin(request)) {
    headers.set("Access-Control-Allow-Methods", [...methods, "OPTIONS"].join(", "));
    const requested = (request.headers.get("Access-Control-Request-Headers") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => PREFLIGHT_HEADERS.includes(name));
    headers.set("Access-Control-Allow-Headers", [...new Set(["content-type", ...requested])].join(", "));
    headers.set("Access-Control-Max-Age", "600");
  }
  return withApiHeaders(request, new Response(null, { status: 204, headers }));
}

// ---------------------------------------------------------------------------------------------
// Request bodies

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** What each request's route declared it may carry (apiRoute records it; a request it never saw carries `json`). */
const bodyKinds = new WeakMap<Request, "json" | "photo-json">();

/**
 * Reads a JSON object body: 415 for another content type, 413 beyond the call's limit (declared or
 * counted; the route's `requestBody` unless given), 400 for an empty body, malformed JSON or anything but an object.
 */
export function readJsonObject(request: Request, maxBytes: number = bodyLimitOf(bodyKinds.get(request) ?? "json").bytes): Promise<Record<string, unknown>> {
  // A body can be read once: apiRoute may already have read it, and a handler then gets the same object.
  let read = bodiesRead.get(request);
  if (!read) {
    read = readJsonObjectNow(request, maxBytes);
    bodiesRead.set(request, read);
  }
  return read;
}

const bodiesRead = new WeakMap<Request, Promise<Record<string, unknown>>>();

const takesPhotos = (request: Request) => bodyKinds.get(request) === "photo-json";

/** True when the request carries a body (a length above zero, or one sent in chunks). */
function carriesBody(request: Request): boolean {
  const length = request.headers.get("Content-Length");
  if (length !== null) return Number(length) !== 0;
  return request.headers.has("Transfer-Encoding") || (request.body !== null && request.headers.has("Content-Type"));
}

async function readJsonObjectNow(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  if (!JSON_TYPE.test(request.headers.get("Content-Type") ?? "")) throw new ApiError(415, API_MESSAGES.notJson);
  const tooLarge = () => new ApiError(413, BODY_MESSAGES.jsonTooLarge(maxBytes));
  const declared = Number(request.headers.get("Content-Length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  if (size === 0) throw new ApiError(400, API_MESSAGES.empty);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks, size));
  } catch {
    throw new ApiError(400, API_MESSAGES.malformed);
  }
  let value: unknown;
  let nul = false;
  try {
    value = JSON.parse(text, (key, item: unknown) => {
      if (holdsNul(key) || (typeof item === "string" && holdsNul(item))) nul = true;
      return item;
    });
  } catch {
    throw new ApiError(400, API_MESSAGES.malformed);
  }
  if (nul) throw new ApiError(400, BODY_MESSAGES.nul);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new ApiError(400, API_MESSAGES.notObject);
  return value as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Sessions

/** The session user, or 401 JSON. */
export async function requireApiUser(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) throw new ApiError(401, API_MESSAGES.signIn);
  return user;
}

// ---------------------------------------------------------------------------------------------
// The route wrapper

export type ApiMethod = "GET" | "POST" | "PUT" | "DELETE";
export type ApiArgs = LoaderFunctionArgs | ActionFunctionArgs;
export type ApiHandler = (args: ApiArgs) => Promise<Response>;

/**
 * One function for a resource route's `loader` and `action`: OPTIONS gets the preflight, HEAD
 * runs GET, a method the route lacks gets 405, and whatever a handler throws becomes a JSON
 * error (unexpected ones a logged 500). CORS headers go on every answer. `body` is what the
 * route declares as its `requestBody` (the server caps bodies by the same export).
 */
export function apiRoute(
  handlers: Partial<Record<ApiMethod, ApiHandler>>,
  body: Extract<RequestBodyKind, "json" | "photo-json"> = "json",
): (args: ApiArgs) => Promise<Response> {
  const methods = Object.keys(handlers) as ApiMethod[];
  return async (args) => {
    const { request } = args;
    bodyKinds.set(request, body);
    const method = request.method.toUpperCase();
    if (method === "OPTIONS") return preflight(request, methods);
    const handler = handlers[(method === "HEAD" ? "GET" : method) as ApiMethod];
    let response: Response;
    if (!handler) {
      response = errorResponse(new ApiError(405, API_MESSAGES.method(method), {}, { Allow: [...methods, "OPTIONS"].join(", ") }));
    } else {
      try {
        // Whatever a write call carries must be a JSON object: anything else is refused before the
        // call runs. A DELETE takes no body at all (see noBody). The calls that may carry photos
        // read theirs after their own guards. A path parameter holding NUL names nothing.
        if (Object.values(args.params).some((value) => value !== undefined && holdsNul(value))) throw new ApiError(400, BODY_MESSAGES.nul);
        if (method === "DELETE") await expectNoBody(request);
        else if (carriesBody(request) && method !== "GET" && method !== "HEAD" && !takesPhotos(request)) await readJsonObject(request).catch(unlessEmpty);
        response = await handler(args);
        // A read without a session answers the same to everyone: the server may share it.
        if (method === "GET" && response.status === 200) offerToSharedCache(args.context);
      } catch (error) {
        response = await toErrorResponse(error);
      }
    }
    return withApiHeaders(request, response);
  };
}

async function toErrorResponse(error: unknown): Promise<Response> {
  if (error instanceof ApiError) return errorResponse(error);
  if (isUnavailable(error)) {
    log.warn({ reqId: currentRequestId() }, `API request failed: ${(error as Error).message}`);
    return errorResponse(new ApiError(503, UNAVAILABLE_MESSAGE, {}, { "Retry-After": "5" }));
  }
  if (error instanceof Response) {
    // A helper shared with the pages threw a plain Response (404, 403 …): same status, as JSON.
    if (error.status >= 300 && error.status < 400) return errorResponse(new ApiError(401, API_MESSAGES.signIn));
    const text = await error.text().catch(() => "");
    return errorResponse(new ApiError(error.status, text.trim() || API_MESSAGES.unexpected));
  }
  log.error({ err: error, reqId: currentRequestId() }, "API request failed");
  return errorResponse(new ApiError(500, API_MESSAGES.unexpected));
}

/** An empty body is for the call to judge (a call that takes none accepts it). */
function unlessEmpty(error: unknown): void {
  if (!(error instanceof ApiError && error.message === API_MESSAGES.empty)) throw error;
}

/** Refuses a body on a call that takes none: nothing, or an empty JSON object, is the only thing it accepts. */
async function expectNoBody(request: Request): Promise<void> {
  if (!carriesBody(request)) return;
  // An empty body, or `{}`: both mean "nothing".
  const body = await readJsonObject(request).catch((error: unknown) => (unlessEmpty(error), {}));
  if (Object.keys(body).length > 0) throw new ApiError(400, API_MESSAGES.noBody);
}

/**
 * A call that takes no body (follow, unfollow, sign-out): whatever else arrives is refused with
 * 400 before it runs, so a body meant for something else never rides along.
 */
export function noBody(handler: ApiHandler): ApiHandler {
  return async (args) => {
    await expectNoBody(args.request);
    return handler(args);
  };
}

/** Route params are untrusted text too: a missing one reads as "". */
/** A path parameter (apiRoute has refused any holding NUL: docs/rules.md#input-limits). */
export function param(args: ApiArgs, name: string): string {
  return args.params[name] ?? "";
}
