import type { LoaderFunctionArgs } from "@remix-run/node";

import { recipesFeedPath } from "~/lib/feeds";
import { paths } from "~/lib/paths";
import { absoluteUrl } from "~/lib/structured-data";
import { renderRecipesAtom } from "~/server/http/atom.server";
import { getRecipesFeed } from "~/server/queries/recipe-feed.server";
import { siteOrigin } from "~/server/http/site.server";
import { getLens, getUser } from "~/server/auth/session.server";
import { isHidden } from "~/server/queries/visibility.server";

// /ReciPals/Users/{uid}/recipes.atom: a public Atom feed of a user's recipes (docs/rules.md#atom-feeds). It is
// deliberately outside /ReciPals/Account/ (sign-in only, docs/rules.md#pages-that-need-sign-in): feed readers do not sign in,
// and the feed carries nothing a visitor cannot already read on the recipe pages.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const uid = params.uid ?? "";
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
