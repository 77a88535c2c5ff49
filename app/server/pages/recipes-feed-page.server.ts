// A user's recipes as an Atom feed (/ReciPals/Users/{uid}/recipes.atom, docs/rules.md#atom-feeds):
// the whole answer, with the caching its reader allows. Public: feed readers do not sign in.
import { recipesFeedPath } from "~/lib/feeds";
import { paths } from "~/lib/paths";
import { absoluteUrl } from "~/lib/structured-data";
import { getLens, getUser } from "~/server/auth/session.server";
import { renderRecipesAtom } from "~/server/document/atom.server";
import { siteOrigin } from "~/server/http/site.server";
import { getRecipesFeed } from "~/server/queries/recipe-feed.server";
import { isHidden } from "~/server/queries/visibility.server";

/** The feed's XML, or a plain 404 for an unknown user or one a block hides from the reader. */
export async function loadRecipesFeedPage(request: Request, uid: string) {
  // A reader signed in as someone blocked either way gets no feed (docs/rules.md#blocking-and-muting).
  const feed = (await isHidden(await getLens(request), uid)) ? undefined : await getRecipesFeed(uid);
  // What a signed-in reader is answered depends on who they are (a block hides the feed, an ADMIN
  // still reads a suspended author's): kept by no cache (docs/rules.md#personal-answers). A
  // visitor's answer is the same for every visitor, kept five minutes by any cache. The session
  // was read by getLens already (once per request).
  const signedIn = (await getUser(request)) !== null;
  const cacheControl = signedIn ? "private, no-store" : "public, max-age=300";
  if (!feed) {
    const headers: Record<string, string> = { "Content-Type": "text/plain; charset=utf-8" };
    if (signedIn) headers["Cache-Control"] = cacheControl;
    return new Response("User not found.", { status: 404, headers });
  }
  const origin = siteOrigin(request);
  const body = renderRecipesAtom(feed, {
    self: absoluteUrl(origin, recipesFeedPath(uid)),
    profile: absoluteUrl(origin, paths.profile(uid)),
    recipe: (rid) => absoluteUrl(origin, paths.recipe(rid)),
    absolute: (pathOrUrl) => absoluteUrl(origin, pathOrUrl),
  });
  return new Response(body, {
    headers: {
      "Content-Type": "application/atom+xml; charset=utf-8",
      "Cache-Control": cacheControl,
    },
  });
}
