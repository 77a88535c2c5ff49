import { AsyncLocalStorage } from "node:async_hooks";

// Scopes of the shared page cache (docs/scaling.md, "What a write drops from the page cache").
// A kept page names the scopes of what it shows (shared-cache.server.ts, `scopeSharedCache`); a
// write names the scopes it changes (`changing`, around the work of a service), and the
// database driver records them in `cache_versions` inside the write's own transaction
// (app/server/db/engines/). Every server's cache then drops only the pages naming a changed scope.
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

const declared = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * Runs `work`, whose writes change what `scopes` name (falsy items are skipped): every
 * transaction it commits records them, and only them, for the page cache. A write outside
 * `changing` (or with no scope left) records `*`, so a forgotten scope costs speed, never
 * freshness. Nested calls add up.
 */
export function changing<T>(scopes: Iterable<string | null | undefined | false>, work: () => Promise<T>): Promise<T> {
  const named = new Set(declared.getStore());
  for (const scope of scopes) if (scope) named.add(scope);
  return declared.run(named, work);
}

/** The scopes the running write named (read by the database drivers when a transaction begins), if any. */
export function declaredScopes(): ReadonlySet<string> | undefined {
  const scopes = declared.getStore();
  return scopes && scopes.size > 0 ? scopes : undefined;
}
