import { parse } from "cookie";

// What makes a request personal, in one place: any cookie of ours (the session, the sign-up
// draft) or an Authorization header. Such a request is answered for that person alone: never
// from or into the server's shared page cache, never with the visitors' ETag. Cookie names are
// read with the same parser Remix uses to read our cookies, so a header that signs someone in
// (`recipals_session =…` with a space, odd separators) is always recognised as personal.

export const COOKIE_NAMES = {
  session: "recipals_session",
  signupDraft: "recipals_signup",
} as const;

const APP_COOKIE_PREFIX = "recipals_";

export function isPersonalRequest(cookieHeader: string | null | undefined, authorization?: string | null): boolean {
  if (authorization) return true;
  if (!cookieHeader || !cookieHeader.includes(APP_COOKIE_PREFIX)) return false;
  return Object.keys(parse(cookieHeader)).some((name) => name.startsWith(APP_COOKIE_PREFIX));
}
