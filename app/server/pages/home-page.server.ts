// Home (/ReciPals/Home): the feed, a page at a time. A visitor's feed is shuffled afresh unless
// the address fixes the order (`seed`): the shared cache keeps several orders of it
// (app/server/http/route-rules.server.ts); a signed-in person's follows come first.
import type { AppLoadContext } from "@remix-run/node";

import { reportPath } from "~/lib/reports";
import { getLens } from "~/server/auth/session.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { scopeSharedCache, SHUFFLED_COPIES } from "~/server/cache/shared-cache.server";
import { withPlaceholders } from "~/server/media/placeholders.server";
import { getFeedPage, parseFeedSeed, parsePage } from "~/server/queries/feed.server";
import { federationEnabled } from "~/server/federation/handles.server";
import { remotePostsFor } from "~/server/federation/remote-store.server";
import { COMMENT_MAX } from "~/server/validation/comment-schema.server";

/** Posts from people on other servers shown above the first page of a signed-in person's feed. */
const REMOTE_POSTS_SHOWN = 5;

export const shuffledCopies = (search: URLSearchParams) => (search.has("seed") ? 1 : SHUFFLED_COPIES);

/** A page of the feed, each card with its photo's inline placeholder. */
export async function loadHomePage(request: Request, context: AppLoadContext) {
  const url = new URL(request.url);
  const { viewerId, quiet } = await getLens(request);
  const seed = parseFeedSeed(url.searchParams.get("seed"));
  const page = parsePage(url.searchParams.get("page"));
  const [{ posts, hasMore }, remote] = await Promise.all([
    getFeedPage({ viewerId, seed, page, without: quiet }),
    // The newest posts of the people on other servers they follow (docs/federation.md), on the first page.
    viewerId && page === 1 && federationEnabled() ? remotePostsFor(viewerId, { limit: REMOTE_POSTS_SHOWN }) : Promise.resolve([]),
  ]);
  // Which posts there are, and each card's recipe with its post (counts included).
  scopeSharedCache(context, [CacheScope.feed, ...posts.map((post) => CacheScope.recipe(post.recipe_id))]);
  return { posts: await withPlaceholders(posts, (post) => post.photo), hasMore, seed, page, signedIn: viewerId !== null, remote: remote.map((post) => ({ ...post, reportHref: reportPath("remote_post", post.id) })), replyMax: COMMENT_MAX };
}
