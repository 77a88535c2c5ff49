// Home (/ReciPals/Home): the feed's cards, `Load more` appending pages in place with JavaScript.
// What a page of it holds is app/server/pages/home-page.server.ts.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useState } from "react";

import { EmptyState } from "~/components/empty-state";
import { Link } from "~/components/link";
import { PostCard } from "~/components/post-card";
import { RemotePostCard } from "~/components/remote-post-card";
import { useChangeEffect } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadHomePage } from "~/server/pages/home-page.server";
import type { PostCardData } from "~/server/queries/feed.server";
import feedStyles from "~/styles/feed.css";

export const meta: MetaFunction = () => [{ title: "Home · ReciPals" }];
export const handle: StyledRoute = { styles: [feedStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export { shuffledCopies } from "~/server/pages/home-page.server";

export const loader = ({ request, context }: LoaderFunctionArgs) => loadHomePage(request, context);

// Liking or opening the likes dialog must not re-read the feed page: the cards settle from
// their own fetchers, and a fresh read could move posts under the reader's thumb.
export function shouldRevalidate({
  currentUrl,
  nextUrl,
  formAction,
  formData,
  defaultShouldRevalidate,
}: {
  currentUrl: URL;
  nextUrl: URL;
  formAction?: string;
  formData?: FormData;
  defaultShouldRevalidate: boolean;
}) {
  if (formAction?.includes("/Posts/")) return false;
  // A like of a post from elsewhere settles from its own fetcher; a reply to one is read back with the page.
  if (formAction?.endsWith("/Account/RemotePosts") && formData?.get("intent") !== "reply") return false;
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
      {first.signedIn ? null : (
        <section className="welcome" aria-label="Welcome">
          <p>ReciPals is where home cooks share their recipes, follow each other and keep what they want to cook next.</p>
          <p className="welcome__actions">
            <Link to={paths.signup()} className="button">
              Sign up
            </Link>
            <Link to={paths.login(paths.home())} className="button button--ghost">
              Sign in
            </Link>
          </p>
        </section>
      )}
      {first.remote.length > 0 ? (
        <section className="remote-feed" aria-labelledby="remote-feed-title">
          <h2 id="remote-feed-title">From other servers</h2>
          <ol className="feed">
            {first.remote.map((post, index) => (
              <li key={post.id}>
                <RemotePostCard post={post} index={index} replyMax={first.replyMax} />
              </li>
            ))}
          </ol>
        </section>
      ) : null}
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
