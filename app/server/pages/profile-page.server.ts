// A person's profile (/ReciPals/Account/Profile/{id}, docs/rules.md#profile-screen): what its
// loader shows. Signed-in people only; across a block, only that the account is not available.
import { data, redirect } from "@remix-run/node";

import { recipesFeedPath } from "~/lib/feeds";
import { DEFAULT_PROFILE_IMAGE, paths } from "~/lib/paths";
import { absoluteUrl } from "~/lib/structured-data";
import { getLens, requireUser } from "~/server/auth/session.server";
import { handleOf } from "~/server/federation/handles.server";
import { siteOrigin } from "~/server/http/site.server";
import { PLACEHOLDERS_PER_PAGE, placeholdersOf } from "~/server/media/placeholders.server";
import { parsePage } from "~/server/queries/feed.server";
import { getProfilePage, type ProfileTab } from "~/server/queries/profiles.server";
import { contains, isHidden } from "~/server/queries/visibility.server";

/** A person's profile: their counts, the open tab's page and the viewer's relation to them; or, across a block, only that. */
export async function loadProfilePage(request: Request, userId: string) {
  const viewer = await requireUser(request);
  const lens = await getLens(request);
  if (await isHidden(lens, userId)) {
    // Blocked either way (docs/rules.md#blocking-and-muting): nothing of the person, and Unblock for whoever blocked.
    return data({ unavailable: true as const, userId, canUnblock: await contains(lens.blocking, userId) }, { status: 404 });
  }
  const url = new URL(request.url);
  const asked = url.searchParams.get("tab");
  const tab: ProfileTab = asked === "saved" || asked === "cooked" ? asked : "recipes";
  const page = await getProfilePage({ userId, viewerId: viewer.id, tab, page: parsePage(url.searchParams.get("page")), without: lens.hidden });
  if (!page) throw new Response("User not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  // A page past the last (a post deleted since, a made-up number) is the first page, not an empty grid.
  if (tab === "recipes" && page.posts.length === 0 && page.postsPage.page > 1) throw redirect(paths.profile(userId));
  const origin = siteOrigin(request);
  const { profile, counts } = page;
  // The open tab's first rows (the others' lists are empty): each placeholder costs bytes twice.
  const first = <T,>(items: T[]) => items.slice(0, PLACEHOLDERS_PER_PAGE);
  const placeholders = await placeholdersOf([
    ...first(page.posts).map((post) => post.photo),
    ...first(page.saved).map((item) => item.photo),
    ...first(page.cooked).map((item) => item.photo ?? item.recipe.photo),
  ]);
  return {
    ...page,
    placeholders,
    isOwn: viewer.id === profile.id,
    viewerMutes: await contains(lens.muting, profile.id),
    handle: handleOf(profile.username),
    // Share previews (docs/rules.md#share-previews): absolute URLs; the canonical URL drops ?tab.
    share: {
      url: absoluteUrl(origin, paths.profile(profile.id)),
      image: absoluteUrl(origin, profile.profile || DEFAULT_PROFILE_IMAGE),
      description: profile.bio || `${profile.name} (@${profile.username}) shares ${counts.posts} ${counts.posts === 1 ? "recipe" : "recipes"} on ReciPals.`,
      feed: absoluteUrl(origin, recipesFeedPath(profile.id)),
    },
  };
}
