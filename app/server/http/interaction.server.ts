import { data, redirect } from "@remix-run/node";

import { FETCHER_FIELD } from "~/lib/interaction";
import { safeRedirect } from "~/lib/paths";

// Small interactions (like, save, comment, follow) post to one action from many pages
// (app/lib/interaction.ts): the page's script says `_fetcher=1` and gets data back; a plain form
// post gets redirected to the page it came from (POST/redirect/GET), anchored to the item.

export function isFetcherSubmission(formData: FormData): boolean {
  return formData.get(FETCHER_FIELD) === "1";
}

export function redirectBack(formData: FormData, fallback: string): Response {
  return redirect(safeRedirect(formData.get("redirectTo"), fallback));
}

/**
 * Refuses an interaction: a fetcher gets `{ error }` (or the `payload` its page reads) with the
 * status to show beside its button; a plain post gets a real error page with that status.
 */
export function refuseInteraction<Payload = { error: string }>(formData: FormData, error: string, status: number, payload?: Payload) {
  if (isFetcherSubmission(formData)) return data<Payload>(payload ?? ({ error } as Payload), { status });
  throw new Response(error, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
