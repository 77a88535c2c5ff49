import { parse } from "cookie";
import { z } from "zod";

import { THEME_MESSAGES, THEMES, type Theme } from "~/lib/theme";

// What makes a request personal, in one place: any cookie of ours (the session, the sign-up
// draft, a chosen theme) or an Authorization header. Such a request is answered for that person
// alone: never from or into the server's shared page cache, never with the visitors' ETag. Cookie
// names are read with the same parser Remix uses to read our cookies, so a header that signs
// someone in (`recipals_session =…` with a space, odd separators) is always recognised as personal.

export const COOKIE_NAMES = {
  session: "recipals_session",
  signupDraft: "recipals_signup",
  wrote: "recipals_wrote",
  theme: "recipals_theme",
} as const;

const APP_COOKIE_PREFIX = "recipals_";

export function isPersonalRequest(cookieHeader: string | null | undefined, authorization?: string | null): boolean {
  if (authorization) return true;
  if (!cookieHeader || !cookieHeader.includes(APP_COOKIE_PREFIX)) return false;
  return Object.keys(parse(cookieHeader)).some((name) => name.startsWith(APP_COOKIE_PREFIX));
}

// Read your own writes with replicas (docs/scaling.md, "Read replicas"): a response to a write
// carries when it was answered, and the person's next reads go to the primary until a replica
// holds it. Longer than the most a replica may lag and still serve (30 s).
const WROTE_MAX_AGE_S = 60;

/** When the request's person last wrote (ms since the epoch), from their cookie; 0 when not lately. */
export function wroteAtOf(cookieHeader: string | null | undefined): number {
  if (!cookieHeader || !cookieHeader.includes(COOKIE_NAMES.wrote)) return 0;
  const value = Number(parse(cookieHeader)[COOKIE_NAMES.wrote]);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** The Set-Cookie of a write answered at `now`. */
export function wroteCookie(now = Date.now()): string {
  return `${COOKIE_NAMES.wrote}=${now}; Path=/; Max-Age=${WROTE_MAX_AGE_S}; HttpOnly; SameSite=Lax`;
}

// The theme choice (docs/rules.md#theme). A page is rendered in the chosen theme, so the theme is
// part of what the page is: a request carrying the cookie is personal by the rule above, and the
// shared page cache, which keeps only pages rendered without our cookies (always in the System
// theme), never answers it or keeps its page. Choosing System removes the cookie rather than
// storing "system", so those visitors are answered from the shared cache again.
const THEME_MAX_AGE_S = 365 * 24 * 60 * 60;

/** The theme the request's cookie chose; System without one, or for a value we never set. */
export function themeOf(cookieHeader: string | null | undefined): Theme {
  if (!cookieHeader || !cookieHeader.includes(COOKIE_NAMES.theme)) return "system";
  const value = parse(cookieHeader)[COOKIE_NAMES.theme];
  return value === "light" || value === "dark" ? value : "system";
}

/** The Set-Cookie that remembers `theme` for a year (System: forgets the choice). */
export function themeCookie(theme: Theme): string {
  if (theme === "system") return `${COOKIE_NAMES.theme}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
  return `${COOKIE_NAMES.theme}=${theme}; Path=/; Max-Age=${THEME_MAX_AGE_S}; HttpOnly; SameSite=Lax`;
}

/** The Theme page's form: one of the three choices, nothing else. */
export const ThemeFormSchema = z.object({
  theme: z.enum(THEMES, { error: THEME_MESSAGES.invalid }),
});
