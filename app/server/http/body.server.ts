import { UPLOAD_LIMITS, UPLOAD_MESSAGES } from "~/lib/upload-limits";

import { FormReadError, readMultipartFormLenient } from "./multipart.server";

// Request bodies are capped before they are held in memory, twice:
// - the server (app/server/runtime/guards.server.ts) refuses a body over the limit of the route the request will
//   reach (route-rules.server.ts: Remix's own route matching over the build's routes, `.data`
//   and `?index` understood as Remix understands them) before any route runs, answering 413;
// - every page action reads its form through `readForm` below (the two photo forms through the
//   image module's reader), and every API call its JSON through `readJsonObject`, which count the
//   bytes again as they stream in within the same route's limit: unit tests call actions without
//   the server in front.
// A route says what its requests may carry with one export, `requestBody` (a RequestBodyKind);
// without one, a page takes a small form and an /api route a small JSON body. There is no second
// list of URL patterns to keep in step with the routes.
// A body is read once: nothing clones a request to read it a second time.

export const BODY_LIMITS = {
  /** A form without files (sign-in, comment, like, follow, admin forms): far more than any of them needs. */
  formBytes: 64 * 1024,
  /** The admin's ingredient and instruction text (200 lines of up to 2,000 characters, percent-encoded). */
  longTextFormBytes: 1024 * 1024,
  /** A form with photos (recipe editor, profile editor). */
  multipartBytes: UPLOAD_LIMITS.formBytes,
  /** A JSON body of the API that may carry photos as data URLs (two per recipe). */
  photoJsonBytes: 12 * 1024 * 1024,
  /** Any other JSON body of the API (sign-in, comments, saves, follows). */
  jsonBytes: 64 * 1024,
} as const;

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

export const BODY_MESSAGES = {
  formTooLarge: (bytes: number) => `What you sent is too large for this form (${sizeText(bytes)} at most). Please shorten it and try again.`,
  uploadTooLarge: "What you sent is too large (22 MB at most, 10 MB a photo). Please choose smaller photos.",
  jsonTooLarge: (bytes: number) => `The request is too large (${sizeText(bytes)} at most).`,
  unreadable: "The form could not be read. Please try again.",
  nul: UPLOAD_MESSAGES.nul,
} as const;

/**
 * What a route's requests may carry, declared by the route module as `export const requestBody`:
 * - `form`: a form without files (the default for pages);
 * - `long-text-form`: a form of long text (the admin's ingredient and step text);
 * - `photo-form`: a multipart form with photos; the page reads it itself, counting, and answers an
 *   overflow with its own page (a photo form posted urlencoded gets the `form` limit);
 * - `json`: a small JSON body (the default for /api routes);
 * - `photo-json`: JSON that may carry photos as data URLs.
 */
export const REQUEST_BODY_KINDS = ["form", "long-text-form", "photo-form", "json", "photo-json"] as const;
export type RequestBodyKind = (typeof REQUEST_BODY_KINDS)[number];

export interface BodyLimit {
  bytes: number;
  message: string;
  /** Answer a refusal as JSON (the API) rather than as a page. */
  json: boolean;
  /**
   * A body that may bring photos (megabytes, then image processing): the server lets only a few
   * such requests in at a time, so many at once queue instead of filling memory.
   */
  heavy: boolean;
  /**
   * The page reads the body itself, streaming and counting within this same limit, and answers an
   * overflow with its own page (the editor with the photo's message): the server lets it through
   * rather than answer first.
   */
  pageAnswers: boolean;
}

const KIND_LIMITS: Record<RequestBodyKind, BodyLimit> = {
  form: { bytes: BODY_LIMITS.formBytes, message: BODY_MESSAGES.formTooLarge(BODY_LIMITS.formBytes), json: false, heavy: false, pageAnswers: false },
  "long-text-form": {
    bytes: BODY_LIMITS.longTextFormBytes,
    message: BODY_MESSAGES.formTooLarge(BODY_LIMITS.longTextFormBytes),
    json: false,
    heavy: false,
    pageAnswers: false,
  },
  "photo-form": { bytes: BODY_LIMITS.multipartBytes, message: BODY_MESSAGES.uploadTooLarge, json: false, heavy: true, pageAnswers: true },
  json: { bytes: BODY_LIMITS.jsonBytes, message: BODY_MESSAGES.jsonTooLarge(BODY_LIMITS.jsonBytes), json: true, heavy: false, pageAnswers: false },
  "photo-json": {
    bytes: BODY_LIMITS.photoJsonBytes,
    message: BODY_MESSAGES.jsonTooLarge(BODY_LIMITS.photoJsonBytes),
    json: true,
    heavy: true,
    pageAnswers: false,
  },
};

/** The limit of a kind, for the Content-Type a request came with. */
export function bodyLimitOf(kind: RequestBodyKind, contentType = ""): BodyLimit {
  // Only a multipart body can carry a file: a photo form sent urlencoded is a small form.
  if (kind === "photo-form" && !/^\s*multipart\/form-data\b/i.test(contentType)) return KIND_LIMITS.form;
  return KIND_LIMITS[kind];
}

/** The kind a route module declares (`export const requestBody`); a module that declares something else stops the server at start. */
export function declaredBodyKind(id: string, module: object): RequestBodyKind {
  const declared = (module as { requestBody?: unknown }).requestBody;
  if (declared === undefined) return id.startsWith("routes/api.") ? "json" : "form";
  if (typeof declared === "string" && (REQUEST_BODY_KINDS as readonly string[]).includes(declared)) return declared as RequestBodyKind;
  throw new Error(`${id}: requestBody must be one of ${REQUEST_BODY_KINDS.join(", ")}`);
}

/**
 * NUL is never text (docs/rules.md#input-limits): no field may hold one, and no engine stores one
 * alike (PostgreSQL refuses it), so a form, a JSON body or an address that holds one is refused
 * with 400 before anything reads it.
 */
export function holdsNul(text: string): boolean {
  return text.includes("\u0000");
}

/** Text from an address's query (a search box): NUL characters dropped, as other control characters are by search. */
export function queryText(searchParams: URLSearchParams, name: string): string {
  return (searchParams.get(name) ?? "").replaceAll("\u0000", "");
}

/**
 * The form of a page action that takes no file: urlencoded or multipart, within the limit of the
 * route's kind (`form` unless the route declares `long-text-form`), counted while it streams in.
 * A larger or malformed body is refused with a 413 or 400 page before more than the limit is held.
 */
export async function readForm(request: Request, kind: "form" | "long-text-form" = "form"): Promise<FormData> {
  const limit = KIND_LIMITS[kind].bytes;
  try {
    // The reader refuses a name or value holding NUL (400, BODY_MESSAGES.nul) as it reads.
    const { formData } = await readMultipartFormLenient(request, { maxBodyBytes: limit, maxFileBytes: limit, maxFieldBytes: limit });
    return formData;
  } catch (error) {
    if (!(error instanceof FormReadError)) throw error;
    const message =
      error.status === 413 ? BODY_MESSAGES.formTooLarge(limit) : error.status === 415 || error.textField !== null ? error.message : BODY_MESSAGES.unreadable;
    throw new Response(message, { status: error.status === 413 || error.status === 415 ? error.status : 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}
