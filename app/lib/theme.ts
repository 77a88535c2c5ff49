import { BASE, paths, safeRedirect } from "./paths";

// The colour theme (docs/rules.md#theme): System follows the device's light or dark setting; Light
// and Dark are a choice this browser remembers. The server reads the choice and renders the page
// in it, so nothing here runs in the browser to pick colours.

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

/** The choices in the order the Theme page lists them. */
export const THEME_CHOICES: readonly { value: Theme; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

export const THEME_MESSAGES = {
  invalid: "Choose System, Light or Dark.",
  intro: "How ReciPals looks in this browser. System follows your device's light or dark setting.",
} as const;

/** The Theme page's address (kept out of app/lib/paths.ts, which every page's JavaScript carries). */
export const THEME_PATH = `${BASE}/Theme`;

/** The Theme page, coming back to `here` (a path with its search) once saved; on the Theme page itself, that page unchanged. */
export function themeHref(here: string): string {
  return /^\/recipals\/theme\/?(?:\?|$)/i.test(here) ? here : `${THEME_PATH}?returnTo=${encodeURIComponent(here)}`;
}

/** Where saving goes back to: a page of this site under /ReciPals/, else Home. */
export function themeReturnTo(to: FormDataEntryValue | string | null | undefined): string {
  const safe = safeRedirect(to, paths.home());
  return safe.startsWith(`${BASE}/`) ? safe : paths.home();
}
