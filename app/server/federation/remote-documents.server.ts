import { env } from "../env.server";
import { isPrivateAddress } from "../import/addresses.server";
import { decodeBody, guardedGet } from "../import/fetch.server";

// How this server reads other servers' documents (actors, notes, keys): through the same guard as
// a recipe import (app/server/import/fetch.server.ts) — no private or loopback address, the DNS
// answer checked on connect, one deadline, a byte cap, few redirects — never the library's plain
// fetch. JSON-LD contexts the library carries with it are read from memory.

/** A remote document's largest size: an actor or a note is a few kilobytes. */
export const REMOTE_DOCUMENT_MAX_BYTES = 512 * 1024;
export const REMOTE_DOCUMENT_TIMEOUT_MS = 10_000;

const ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams";q=0.9, application/json;q=0.5';

export interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: unknown;
}

/** Reads one JSON(-LD) document under the guard; `FEDERATION_ALLOW_PRIVATE=1` (tests) lets loopback through. */
export async function loadRemoteDocument(address: string): Promise<RemoteDocument> {
  const url = new URL(address);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && env.FEDERATION_ALLOW_PRIVATE === "1")) {
    throw new Error(`Only https addresses are fetched (${url.protocol}).`);
  }
  const allows = env.FEDERATION_ALLOW_PRIVATE === "1" ? () => true : (address: string) => !isPrivateAddress(address);
  const fetched = await guardedGet(url, { allows, timeoutMs: REMOTE_DOCUMENT_TIMEOUT_MS, maxRedirects: 3 }, { maxBytes: REMOTE_DOCUMENT_MAX_BYTES, accept: ACCEPT });
  return { contextUrl: null, documentUrl: fetched.url.href, document: JSON.parse(decodeBody(fetched)) as unknown };
}

/**
 * The actor address WebFinger gives for `name@host`, asked of that server under the same guard.
 * Over https; plain http only with `FEDERATION_ALLOW_PRIVATE=1` (two test instances on one machine).
 */
export async function webFingerActor(name: string, host: string): Promise<URL | null> {
  const scheme = env.FEDERATION_ALLOW_PRIVATE === "1" ? "http" : "https";
  const address = new URL(`${scheme}://${host}/.well-known/webfinger`);
  address.searchParams.set("resource", `acct:${name}@${host}`);
  const { document } = await loadRemoteDocument(address.href);
  const links = (document as { links?: unknown } | null)?.links;
  if (!Array.isArray(links)) return null;
  for (const link of links as { rel?: unknown; type?: unknown; href?: unknown }[]) {
    if (link?.rel !== "self" || typeof link.href !== "string") continue;
    if (typeof link.type === "string" && !/activity\+json|ld\+json/.test(link.type)) continue;
    try {
      const url = new URL(link.href);
      if (url.protocol === "https:" || (url.protocol === "http:" && env.FEDERATION_ALLOW_PRIVATE === "1")) return url;
    } catch {
      // Not an address: the next link, if any.
    }
  }
  return null;
}
