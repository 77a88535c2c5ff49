import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useState } from "react";

import { PostCard } from "~/components/post-card";
import { useChangeEffect } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { getFeedPage, parseFeedSeed, parsePage, type PostCardData } from "~/server/queries/feed.server";
import { withPlaceholders } from "~/server/http/photos.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { getLens } from "~/server/auth/session.server";
import { scopeSharedCache, SHUFFLED_COPIES } from "~/server/cache/shared-cache.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import feedStyles from "~/styles/feed.css";
import { EmptyState } from "~/components/empty-state";
import { Link } from "~/components/link";

export const meta: MetaFunction = () => [{ title: "Home · ReciPals" }];
export const handle: StyledRoute = { styles: [feedStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

// A visitor's feed is shuffled afresh unless the address fixes the order (`seed`): the shared
// cache keeps several orders of it (app/server/http/route-rules.server.ts).
export const shuffledCopies = (search: URLSearchParams) => (search.has("seed") ? 1 : SHUFFLED_COPIES);

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const { viewerId, quiet } = await getLens(request);
  const seed = parseFeedSeed(url.searchParams.get("seed"));
  const page = parsePage(url.searchParams.get("page"));
  const { posts, hasMore } = await getFeedPage({ viewerId, seed, page, without: quiet });
  // Which posts there are, and each card's recipe with its post (counts included).
  scopeSharedCache(context, [CacheScope.feed, ...posts.map((post) => CacheScope.recipe(post.recipe_id))]);
  return { posts: await withPlaceholders(posts, (post) => post.photo), hasMore, seed, page, signedIn: viewerId !== null };
}

// Liking or opening the likes dialog must not re-read the feed page: the cards settle from
// their own fetchers, and a fresh read could move posts under the reader's thumb.
export function shouldRevalidate({
  currentUrl,
  nextUrl,
  formAction,
  defaultShouldRevalidate,
}: {
  currentUrl: URL;
  nextUrl: URL;
  formAction?: string;
  defaultShouldRevalidate: boolean;
}) {
  if (formAction?.includes("/Posts/")) return false;
  if (currentUrl.search === nextUrl.search && currentUrl.pathname !== nextUrl.pathname) return false;
  return defaultShouldRevalidate;
}

export default function HomeRoute() {
  const first = useLoaderData<typeof loader>();
  const { search } = useLocation();
  const more = useFetcher<typeof loader>();
  // Pages appended in place with JavaScript; a new first page (new seed or URL) starts over.
  const [appended, setAppended] = useState<{ posts: PostCardData[]; page: number; hasMore: boolean }[]>([]);
  // Keeping the same empty list on the first render lets React skip a second render of every
  // card right after hydration.
  useChangeEffect(first, () => setAppended((pages) => (pages.length === 0 ? pages : [])));
  useChangeEffect(more.data, (next) => {
    if (!next) return;
    setAppended((pages) => (pages.some((p) => p.page === next.page) ? pages : [...pages, next]));
  });

  const last = appended.at(-1) ?? first;
  const nextPage = last.page + 1;
  const moreHref = `${paths.home()}?page=${nextPage}&seed=${first.seed}`;
  const returnTo = `${paths.home()}${search || `?seed=${first.seed}`}`;
  const posts = [...first.posts, ...appended.flatMap((p) => p.posts)];

  return (
    <section className="feed-page">
      <h1 className="page-title">Home</h1>
      {posts.length === 0 ? (
        <EmptyState title="No posts yet." text="Recipes people share show up here." action={{ to: paths.create(), label: "Share a recipe" }} />
      ) : (
        <ol className="feed" aria-label="Posts">
          {posts.map((post, index) => (
            <li key={post.post_id}>
              <PostCard
                post={post}
                signedIn={first.signedIn}
                returnTo={`${returnTo}#post-${post.post_id}`}
                likesHref={`${paths.homeLikes(post.post_id)}${search || `?seed=${first.seed}`}`}
                // Only the first card's photo loads at once, alone on a slow line: it is the page's
                // largest paint. The next card's, at the foot of a phone's screen, follows when the
                // browser has laid it out.
                first={index === 0 && first.page === 1}
              />
            </li>
          ))}
        </ol>
      )}
      {last.hasMore ? (
        <p className="load-more">
          <Link
            to={moreHref}
            className="button button--ghost"
            onClick={(event) => {
              // With JavaScript the next page is appended in place; without it, the link opens it.
              event.preventDefault();
              if (more.state === "idle") more.load(moreHref);
            }}
            aria-busy={more.state !== "idle"}
          >
            {more.state === "idle" ? "Load more" : "Loading…"}
          </Link>
        </p>
      ) : null}
      <Outlet />
    </section>
  );
}
