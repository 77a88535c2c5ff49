// A person's profile (/ReciPals/Account/Profile/{id}): the address's contract and the component
// tree; what it shows is app/server/pages/profile-page.server.ts.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction, SerializeFrom } from "@remix-run/node";
import { Outlet, isRouteErrorResponse, useLoaderData, useRouteError, useSearchParams } from "@remix-run/react";

import { ErrorPage } from "~/components/error-page";
import { LoadMore, useMorePages, type ListPage } from "~/components/load-more";
import { UnblockButton } from "~/components/person-actions";
import { ProfileHeader } from "~/components/profile-header";
import { CookedGrid, PostGrid, ProfileTabs, SavedGrid } from "~/components/profile-view";
import { UNAVAILABLE_ACCOUNT } from "~/lib/blocking";
import { recipesFeedLink } from "~/lib/feeds";
import { paths } from "~/lib/paths";
import { shareMeta } from "~/lib/structured-data";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadProfilePage } from "~/server/pages/profile-page.server";
import type { PostThumb } from "~/server/queries/posts.server";
import profileStyles from "~/styles/profile.css";

export const handle: StyledRoute = { styles: [profileStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: "User not found · ReciPals" }];
  if ("unavailable" in data) return [{ title: "Not available · ReciPals" }];
  const { profile, share } = data;
  return [
    { title: `${profile.username} · ReciPals` },
    { name: "description", content: share.description },
    ...shareMeta({ title: `${profile.username} on ReciPals`, description: share.description, image: share.image, url: share.url, type: "profile" }),
    { property: "profile:username", content: profile.username },
    recipesFeedLink(share.feed, profile.username),
  ];
};

export const loader = ({ request, params }: LoaderFunctionArgs) => loadProfilePage(request, params.uid ?? "");


export default function ProfileRoute() {
  const loaded = useLoaderData<typeof loader>();
  if ("unavailable" in loaded) return <UnavailableProfile userId={loaded.userId} canUnblock={loaded.canUnblock} />;
  return <Profile {...loaded} />;
}

function UnavailableProfile({ userId, canUnblock }: { userId: string; canUnblock: boolean }) {
  return (
    <section className="profile profile--unavailable" aria-labelledby="profile-unavailable">
      <h1 id="profile-unavailable">{UNAVAILABLE_ACCOUNT}</h1>
      {canUnblock ? (
        <>
          <p>You blocked this account.</p>
          <UnblockButton userId={userId} returnTo={paths.profile(userId)} />
        </>
      ) : null}
    </section>
  );
}

type ProfileData = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { unavailable: true }>;
type PostsPage = ListPage<PostThumb> & { placeholders: ProfileData["placeholders"] };

function Profile({ profile, counts, viewerFollows, viewerMutes, isOwn, tab, posts, postsPage, saved, cooked, placeholders, handle }: ProfileData) {
  const [searchParams] = useSearchParams();
  // The recipes grid is paged (docs/rules.md#profile-screen); `Load more` appends the next page in place.
  const more = useMorePages<SerializeFrom<typeof loader>, PostThumb, PostsPage>({
    list: `${profile.id} ${tab} ${postsPage.page}`,
    first: { items: posts, ...postsPage, placeholders },
    hrefOf: (page) => `${paths.profile(profile.id)}?page=${page}`,
    pageOf: (answer) =>
      "posts" in answer && answer.profile.id === profile.id && answer.tab === "recipes"
        ? { items: answer.posts, ...answer.postsPage, placeholders: answer.placeholders }
        : null,
    idOf: (post) => post.post_id,
  });
  // Set by the editor after a right admin password; shown only when it is true.
  const adminGranted = isOwn && profile.role === "ADMIN" && searchParams.get("admin") === "granted";
  return (
    <section className="profile" aria-labelledby="profile-username">
      {adminGranted ? (
        <p className="notice profile__notice" role="status">
          Admin access granted!
        </p>
      ) : null}
      <ProfileHeader profile={profile} counts={counts} viewerFollows={viewerFollows} viewerMutes={viewerMutes} isOwn={isOwn} tab={tab} handle={handle} />
      <ProfileTabs uid={profile.id} tab={tab} isOwn={isOwn} />
      {tab === "saved" ? (
        <SavedGrid saved={saved} isOwn={isOwn} placeholders={placeholders} />
      ) : tab === "cooked" ? (
        <CookedGrid cooked={cooked} isOwn={isOwn} placeholders={placeholders} />
      ) : (
        <>
          <PostGrid uid={profile.id} posts={more.items} isOwn={isOwn} placeholders={Object.assign({}, ...more.pages.map((page) => page.placeholders))} />
          {more.hasMore ? <LoadMore more={more} className="profile-more" /> : null}
        </>
      )}
      <Outlet />
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (!isRouteErrorResponse(error)) throw error;
  const message = typeof error.data === "string" && error.data ? error.data : undefined;
  return <ErrorPage status={error.status} message={message ?? (error.status === 404 ? "User not found." : undefined)} />;
}
