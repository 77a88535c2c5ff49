// The texts of docs/rules.md#blocking-and-muting that pages and the server both use.

/** What a page or the API says of someone hidden from the viewer, whichever of the two blocked. */
export const UNAVAILABLE_ACCOUNT = "This account is not available.";

export const UNAVAILABLE_RECIPE = "This recipe is not available.";
