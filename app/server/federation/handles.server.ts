import { env } from "../env.server";

// Whether this server federates, and the handles people have (docs/federation.md). Apart from the
// federation itself (federation.server.ts), so pages can show a handle without loading the
// ActivityPub library.

/** Whether this server federates: FEDERATION=on, or unset with PUBLIC_URL set (the address actors live at). */
export function federationEnabled(): boolean {
  if (!env.PUBLIC_URL) return false;
  return env.FEDERATION !== "off";
}

/** The host of handles: PUBLIC_URL's host, with its port if it has one. */
export function handleHost(): string | null {
  return env.PUBLIC_URL ? new URL(env.PUBLIC_URL).host : null;
}

/** A person's handle here, `@username@host` (null when the server does not federate). */
export function handleOf(username: string): string | null {
  const host = handleHost();
  return federationEnabled() && host ? `@${username}@${host}` : null;
}
