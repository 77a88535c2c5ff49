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
