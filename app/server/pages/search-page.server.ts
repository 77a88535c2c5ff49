// The Search page (/ReciPals/Search?q=, docs/rules.md#search-screen): what its loader finds.
import type { AppLoadContext } from "@remix-run/node";

import { SEARCH_MESSAGES } from "~/lib/search-navigation";
import { reportPath } from "~/lib/reports";
import { getLens, getUser } from "~/server/auth/session.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache, SHUFFLED_COPIES, withholdFromSharedCache } from "~/server/cache/shared-cache.server";
import { withPlaceholders } from "~/server/media/placeholders.server";
import { searchRecipes, searchUsers, type RecipeCard, type RecipePage, type UserCard } from "~/server/queries/search.server";
import { parseSearchParams } from "~/server/validation/search-schema.server";
import { lookUpRemotePerson, type FoundRemotePerson } from "~/server/services/federation-service.server";
import { parseRemoteHandle } from "~/server/federation/remote-actions.server";
import { log } from "../observability/log.server";
import { currentRequestId } from "../observability/request-notes.server";

// An empty search shows recipes in a fresh shuffle unless the address fixes it (`seed`): the shared
// cache keeps several orders of it (app/server/http/route-rules.server.ts).
export const shuffledCopies = (search: URLSearchParams) => (search.has("seed") || (search.get("q") ?? "").trim() !== "" ? 1 : SHUFFLED_COPIES);

/** A result card with its photo's inline placeholder (app/server/media/placeholders.server.ts). */
export type ShownRecipe = RecipeCard & { placeholder: string | null };

/** A page of recipes (a shuffle, or what matches `q`) and the people `q` names; a failing half is said, not thrown. */
export async function loadSearchPage(request: Request, context: AppLoadContext) {
  const { q, page, seed } = parseSearchParams(new URL(request.url).searchParams);
  const { hidden } = await getLens(request);
  let recipes: RecipePage<ShownRecipe> = { items: [], page, hasMore: false };
  let people: UserCard[] = [];
  let error: string | null = null;
  // `@name@host` names a person: no recipe is searched for it (the page shows no recipe half).
  const handle = q !== "" && parseRemoteHandle(q) !== null;
  // A failing half is reported on the page, not as an error page: the other half still shows.
  if (!handle) {
    try {
      const found = await searchRecipes({ q, page, seed, without: hidden });
      recipes = { ...found, items: await withPlaceholders(found.items, (recipe) => recipe.photo) };
    } catch (cause) {
      log.error({ err: cause, reqId: currentRequestId() }, "search failed");
      error = q ? SEARCH_MESSAGES.recipes : SEARCH_MESSAGES.list;
    }
  }
  if (q) {
    try {
      people = await searchUsers({ q, without: hidden });
    } catch (cause) {
      log.error({ err: cause, reqId: currentRequestId() }, "search failed");
      error ??= SEARCH_MESSAGES.failed;
    }
  }
  // `@name@host`: a signed-in searcher is shown that person on their server, asked of it now
  // (docs/federation.md); an answer for one person is never kept for the next visitors.
  let remote: (FoundRemotePerson & { reportHref: string }) | null = null;
  if (handle) {
    withholdFromSharedCache(context);
    try {
      const found = await lookUpRemotePerson({ actor: await getUser(request), q });
      remote = found && { ...found, reportHref: reportPath("remote_user", found.id) };
    } catch (cause) {
      log.warn({ err: cause, reqId: currentRequestId() }, "search: a remote handle could not be looked up");
    }
  }
  // A failure is this moment's, not the page's: never kept for the next visitors.
  if (error) withholdFromSharedCache(context);
  scopeSharedCache(context, [CacheScope.search, q ? CacheScope.people : null]);
  return { q, page, seed, recipes, people, remote, handle, error };
}
