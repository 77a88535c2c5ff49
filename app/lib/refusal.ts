// A form submission the server refused before its page's action ran (a body over the route's
// limit, the upload queue full, a post from another site: app/server/http/early-answers.server.ts).
// With JavaScript it arrives as the submission's data, in this one shape whatever the page: page
// forms show `formError`, fetcher forms `error`; `early` tells it from the page's own answers.

export interface SubmissionRefusal {
  early: true;
  formError: string;
  error: string;
}

export function isEarlyRefusal(data: unknown): data is SubmissionRefusal {
  return typeof data === "object" && data !== null && "early" in data && data.early === true && "formError" in data && typeof data.formError === "string";
}

/** The message of such a refusal, or null for anything else (no answer yet, the page's own answer). */
export function earlyRefusalMessage(data: unknown): string | null {
  return isEarlyRefusal(data) ? data.formError : null;
}
