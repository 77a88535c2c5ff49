// The Likes dialogs: who liked a post, over the post viewer
// (/ReciPals/Account/Profile/{uid}/Posts/{pid}/Likes), over Home (/ReciPals/Home/Likes/{pid}) and
// over a recipe page (/ReciPals/Recipes/{rid}/Likes).
// Both leave out the people the viewer's lens hides.
import type { AppLoadContext } from "@remix-run/node";

import { getLens, requireUser } from "~/server/auth/session.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { invariantResponse } from "~/server/http/responses.server";
import { listLikers } from "~/server/queries/likes.server";
import { federationEnabled } from "~/server/federation/handles.server";
import { remoteLikersOf } from "~/server/federation/remote-store.server";

/** Who liked a post: people here (less those the lens hides) and, over federation, people elsewhere by their handle. */
async function likersOf(postId: string, hidden: readonly string[]) {
  const [likers, remote] = await Promise.all([listLikers(postId, { without: hidden }), federationEnabled() ? remoteLikersOf(postId) : Promise.resolve([])]);
  return { likers, remote };
}
import { getPostForRecipe, getPostOwnership } from "~/server/queries/posts.server";
import { isHidden, UNAVAILABLE_ACCOUNT } from "~/server/queries/visibility.server";

/** Who liked a post of a profile (signed in only): the post must be that profile's. */
export async function loadPostLikesPage(request: Request, uid: string, pid: string) {
  await requireUser(request);
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, uid)), UNAVAILABLE_ACCOUNT, 404);
  // The post must be this profile's, so the profile's check above covers its author.
  const post = await getPostOwnership(pid);
  invariantResponse(post && post.created_by === uid, "Post not found.", 404);
  return likersOf(pid, lens.hidden);
}

/** Who liked a post of the feed (visitors too), kept by the shared cache with the post's recipe. */
export async function loadHomeLikesPage(request: Request, pid: string, context: AppLoadContext) {
  const post = await getPostOwnership(pid);
  const lens = await getLens(request);
  invariantResponse(post && !(await isHidden(lens, post.created_by)), "Post not found.", 404);
  scopeSharedCache(context, [CacheScope.recipe(post.recipe_id)]);
  return likersOf(pid, lens.hidden);
}

/** Who liked a recipe's post (visitors too), kept by the shared cache with the recipe. */
export async function loadRecipeLikesPage(request: Request, rid: string, context: AppLoadContext) {
  // Its post is all it needs (a post's author is its recipe's creator), not the whole recipe.
  const post = await getPostForRecipe(rid);
  const lens = await getLens(request);
  invariantResponse(post && !(await isHidden(lens, post.created_by)), "Recipe not found.", 404);
  scopeSharedCache(context, [CacheScope.recipe(post.recipe_id)]);
  return likersOf(post.id, lens.hidden);
}
