import { db, type DB } from "../db/connection.server";

// Servers an admin blocked (docs/federation.md, "Safety"): a blocked domain's subdomains are
// blocked with it. Read on every inbox POST and every delivery to followers: the list is short.

/** A host name as kept: lower case, without a port or a final dot. */
export function domainOf(host: string): string {
  return host.toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
}

/** The blocked domains, newest first. */
export function blockedDomains(database: DB = db): Promise<{ domain: string; created_at: number }[]> {
  return database.selectFrom("blocked_domains").select(["domain", "created_at"]).orderBy("created_at", "desc").orderBy("domain").execute();
}

/** Whether `host` (a host name, with or without a port) is a blocked domain or under one. */
export function isBlockedHost(host: string, blocked: readonly string[]): boolean {
  const name = domainOf(host);
  return blocked.some((domain) => name === domain || name.endsWith(`.${domain}`));
}

/** Whether `host` is blocked, read from the database. */
export async function hostIsBlocked(host: string, database: DB = db): Promise<boolean> {
  return isBlockedHost(host, (await blockedDomains(database)).map((row) => row.domain));
}

/**
 * Blocks `domain` (already in its kept form) in the caller's transaction; false when it was blocked
 * already. Nothing more is sent to it and nothing of it is shown: the follows both ways of its
 * people (and of its subdomains') end, and their posts, likes and replies here go.
 */
export async function storeDomainBlock({ domain, blockedBy }: { domain: string; blockedBy: string | null }, database: DB): Promise<boolean> {
  const inserted = await database.insertInto("blocked_domains").values({ domain, blocked_by: blockedBy, created_at: Date.now() }).onConflict((c) => c.column("domain").doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  // The hosts that hold the name are read, and the same rule as every other check decides (isBlockedHost).
  const candidates = await database.selectFrom("remote_actors").select(["id", "host"]).where("host", "like", `%${domain}%`).execute();
  const there = candidates.filter((actor) => isBlockedHost(actor.host, [domain])).map((actor) => actor.id);
  if (there.length > 0) {
    for (const table of ["remote_followers", "remote_follows", "remote_posts", "remote_likes", "remote_comments"] as const) {
      await database.deleteFrom(table).where("actor_id", "in", there).execute();
    }
  }
  return true;
}
