import { parse } from "cookie";

// What makes a request personal, in one place: any cookie of ours (the session, the sign-up
// draft) or an Authorization header. Such a request is answered for that person alone: never
// from or into the server's shared page cache, never with the visitors' ETag. Cookie names are
// read with the same parser Remix uses to read our cookies, so a header that signs someone in
// (`recipals_session =…` with a space, odd separators) is always recognised as personal.

export const COOKIE_NAMES = {
  session: "recipals_session",
  signupDraft: "recipals_signup",
  wrote: "recipals_wrote",
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
