import { BASE } from "./paths";

// The texts and the address of docs/rules.md#blocking-and-muting that pages and the server both
// use. Kept out of paths.ts so pages without these buttons (the recipe page above all) do not
// download them.

/** Block, unblock, mute and unmute someone: posted here. */
export function personPath(uid: string): string {
  return `${BASE}/Account/People/${encodeURIComponent(uid)}`;
}

/** What a page or the API says of someone hidden from the viewer, whichever of the two blocked. */
export const UNAVAILABLE_ACCOUNT = "This account is not available.";

export const UNAVAILABLE_RECIPE = "This recipe is not available.";
