import type { Transaction } from "kysely";

import { db as appDatabase, engineOf, tellCommitted, writeTransaction, type DB } from "../db/connection.server";
import type { Database } from "../db/schema.server";

// Scopes of the shared page cache (docs/scaling.md, "What a write drops from the page cache").
// A kept page names the scopes of what it shows (shared-cache.server.ts, `scopeSharedCache`); a
// write names the scopes it changes (`changing`, the transaction of a service), recorded in the
// same commit (SQLite: `cache_versions`; PostgreSQL: the notice sent with the commit). Every
// server's cache then drops only the pages naming a changed scope.
//
// A page names the data it shows, not the writes that may touch it; a write names the data it
// changes. Both sides use these names:
//
// - `recipe:<id>`: a recipe and its post, which are one unit (created, changed and deleted
//   together): the recipe's content, the post's title, caption and photo, its likes and comments.
// - `user:<id>`: what the JSON API shows of a user beyond name and picture — bio, tags, role,
//   followers, following, saved recipes, posts.
// - `feed`: which posts exist (the Home feed's membership and order).
// - `search`: what recipe search finds and shows (recipe cards, the random listing).
// - `people`: what people search finds (who is there; their names change everything anyway).
// - `*`: everything. A person's name, username or picture shows on every page where they
//   posted, commented or liked, so changing one of those (or deleting someone) names `*`.
export const CacheScope = {
  everything: "*",
  feed: "feed",
  search: "search",
  people: "people",
  recipe: (recipeId: string) => `recipe:${recipeId}`,
  user: (userId: string) => `user:${userId}`,
} as const;

export type Trx = Transaction<Database>;

/**
 * The one seam between writes and the page cache: a write transaction that changes what `scopes`
 * name (falsy items are skipped). `work` writes through `trx`; the scopes are recorded in the
 * same commit, and this process's caches hear of it as soon as it commits. A write made any other
 * way (a tool, a forgotten scope) is recorded as `*` by the content tables' triggers, so it costs
 * speed, never freshness.
 */
export async function changing<T>(scopes: Iterable<string | null | undefined | false>, work: (trx: Trx) => Promise<T>, database: DB = appDatabase): Promise<T> {
  const named = new Set<string>();
  for (const scope of scopes) if (scope) named.add(scope);
  if (named.size === 0) return writeTransaction(database, work);
  const pageCache = engineOf(database).pageCache;
  const result = await writeTransaction(database, async (trx) => {
    await pageCache.mark(trx);
    const value = await work(trx);
    await pageCache.record(trx, named);
    return value;
  });
  tellCommitted(database, named);
  return result;
}
