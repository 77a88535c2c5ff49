import { IMAGE_LIMITS, ImageError, readMultipartFormLenient } from "./images.server";

// Request bodies are capped before they are held in memory, twice:
// - scripts/server.js refuses a body over `bodyLimitFor` its path (by its declared length, or by
//   counting one sent without a length) before any route runs, answering 413;
// - every page action reads its form through `readForm` below (the two photo forms through the
//   image module's reader), which counts the bytes again as they stream in: unit tests call
//   actions without the server in front, and this is where a route's own limit is applied.
// A body is read once: nothing clones a request to read it a second time.

export const BODY_LIMITS = {
  /** A form without files (sign-in, comment, like, follow, admin forms): far more than any of them needs. */
  formBytes: 64 * 1024,
  /** The admin's ingredient and instruction text (200 lines of up to 2,000 characters, percent-encoded). */
  longTextFormBytes: 1024 * 1024,
  /** A form with photos (recipe editor, profile editor). */
  multipartBytes: IMAGE_LIMITS.maxFormBytes,
  /** A JSON body of the API that may carry photos as data URLs (two per recipe). */
  photoJsonBytes: 12 * 1024 * 1024,
  /** Any other JSON body of the API (sign-in, comments, saves, follows). */
  jsonBytes: 64 * 1024,
} as const;

export const BODY_MESSAGES = {
  formTooLarge: (bytes: number) =>
    `What you sent is too large for this form (${Math.round(bytes / 1024)} KB at most). Please shorten it and try again.`,
  uploadTooLarge: "What you sent is too large (22 MB at most, 10 MB a photo). Please choose smaller photos.",
  jsonTooLarge: (bytes: number) =>
    `The request is too large (${bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`} at most).`,
  unreadable: "The form could not be read. Please try again.",
  nul: "Text may not contain NUL characters. Please remove them and try again.",
} as const;

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

// The pages whose forms carry photos, and the one whose form carries long text. Route paths match
// in any letter case, as Remix matches them.
const PHOTO_FORMS = [/^\/ReciPals\/Editor\/[^/]+\/?$/i, /^\/ReciPals\/Account\/Profile\/[^/]+\/Edit\/?$/i];
const LONG_TEXT_FORMS = [/^\/ReciPals\/Account\/Admin\/Recipes\/[^/]+\/?$/i];
// The API calls whose JSON may carry photos (a recipe, a post, a user's picture): creating and
// updating recipes, posts and users. Every other call, the anonymous sign-in and sign-up included,
// gets the small limit; a new call gets it too until it is listed here.
const API_PHOTO_CALLS = [
  /^\/api\/(?:recipes|posts)\/?$/i,
  /^\/api\/recipes\/(?!search\/?$)[^/]+\/?$/i,
  /^\/api\/posts\/[^/]+\/?$/i,
  /^\/api\/users\/?$/i,
  /^\/api\/users\/(?!(?:signin|signup|signout|profile)\/?$)[^/]+\/?$/i,
];

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
   * rather than answer first with a bare page.
   */
  pageAnswers: boolean;
}

/** The most an API call's JSON body may hold. */
export function jsonLimitFor(pathname: string): number {
  return API_PHOTO_CALLS.some((call) => call.test(pathname)) ? BODY_LIMITS.photoJsonBytes : BODY_LIMITS.jsonBytes;
}

function formLimitFor(pathname: string): number {
  return LONG_TEXT_FORMS.some((form) => form.test(pathname)) ? BODY_LIMITS.longTextFormBytes : BODY_LIMITS.formBytes;
}

/** The most a request to `pathname` with this Content-Type may send (scripts/server.js enforces it). */
export function bodyLimitFor(pathname: string, contentType: string): BodyLimit {
  if (pathname.startsWith("/api/")) {
    const bytes = jsonLimitFor(pathname);
    return { bytes, message: BODY_MESSAGES.jsonTooLarge(bytes), json: true, heavy: bytes === BODY_LIMITS.photoJsonBytes, pageAnswers: false };
  }
  if (/^\s*multipart\/form-data\b/i.test(contentType) && PHOTO_FORMS.some((form) => form.test(pathname))) {
    return { bytes: BODY_LIMITS.multipartBytes, message: BODY_MESSAGES.uploadTooLarge, json: false, heavy: true, pageAnswers: true };
  }
  const bytes = formLimitFor(pathname);
  return { bytes, message: BODY_MESSAGES.formTooLarge(bytes), json: false, heavy: false, pageAnswers: false };
}

/**
 * The form of a page action that takes no file: urlencoded or multipart, within its path's form
 * limit, counted while it streams in. A larger or malformed body is refused with a 413 or 400
 * page before more than the limit is held.
 */
export async function readForm(request: Request): Promise<FormData> {
  const limit = formLimitFor(new URL(request.url).pathname);
  try {
    const { formData } = await readMultipartFormLenient(request, { maxBodyBytes: limit, maxFileBytes: limit, maxFieldBytes: limit });
    for (const [name, value] of formData) {
      if (holdsNul(name) || (typeof value === "string" && holdsNul(value))) {
        throw new Response(BODY_MESSAGES.nul, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
      }
    }
    return formData;
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    const message = error.status === 413 ? BODY_MESSAGES.formTooLarge(limit) : error.status === 415 ? error.message : BODY_MESSAGES.unreadable;
    throw new Response(message, { status: error.status === 413 || error.status === 415 ? error.status : 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}
