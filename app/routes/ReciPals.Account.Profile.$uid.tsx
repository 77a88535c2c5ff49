import { data, redirect, type LinksFunction, type LoaderFunctionArgs, type MetaFunction, type SerializeFrom } from "@remix-run/node";
import { Outlet, isRouteErrorResponse, useLoaderData, useRouteError, useSearchParams } from "@remix-run/react";

import { Avatar } from "~/components/avatar";
import { ErrorPage } from "~/components/error-page";
import { FollowButton, usePendingFollowDelta } from "~/components/follow-button";
import { CookedGrid, PostGrid, ProfileTabs, SavedGrid, countLabel, profileTabHref } from "~/components/profile-view";
import { recipesFeedLink, recipesFeedPath } from "~/lib/feeds";
import { DEFAULT_PROFILE_IMAGE, paths } from "~/lib/paths";
import { absoluteUrl, shareMeta } from "~/lib/structured-data";
import { getProfilePage, type ProfileTab } from "~/server/queries/profiles.server";
import { getLens, requireUser } from "~/server/auth/session.server";
import { contains, isHidden } from "~/server/queries/visibility.server";
import { UNAVAILABLE_ACCOUNT } from "~/lib/blocking";
import { PersonActions, UnblockButton } from "~/components/person-actions";
import { siteOrigin } from "~/server/http/site.server";
import { PLACEHOLDERS_PER_PAGE, placeholdersOf } from "~/server/http/photos.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import profileStyles from "~/styles/profile.css";
import { Link } from "~/components/link";
import { LoadMore, useMorePages, type ListPage } from "~/components/load-more";
import type { PostThumb } from "~/server/queries/posts.server";
import { parsePage } from "~/server/queries/feed.server";

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

export async function loader({ request, params }: LoaderFunctionArgs) {
  const viewer = await requireUser(request);
  const userId = params.uid ?? "";
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
  if (tab === "recipes" && page.posts.length === 0 && page.postsPage.page > 1) throw redirect(profileTabHref(userId, "recipes"));
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
    // Share previews (docs/rules.md#share-previews): absolute URLs; the canonical URL drops ?tab.
    share: {
      url: absoluteUrl(origin, paths.profile(profile.id)),
      image: absoluteUrl(origin, profile.profile || DEFAULT_PROFILE_IMAGE),
      description: profile.bio || `${profile.name} (@${profile.username}) shares ${counts.posts} ${counts.posts === 1 ? "recipe" : "recipes"} on ReciPals.`,
      feed: absoluteUrl(origin, recipesFeedPath(profile.id)),
    },
  };
}

/** The dialog routes below the profile keep the open tab, so closing them returns to it. */
function dialogHref(uid: string, dialog: "Followers" | "Following", tab: ProfileTab) {
  return `${paths.profile(uid)}/${dialog}${tab === "recipes" ? "" : `?tab=${tab}`}`;
}

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

function Profile({ profile, counts, viewerFollows, viewerMutes, isOwn, tab, posts, postsPage, saved, cooked, placeholders }: ProfileData) {
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
  const delta = usePendingFollowDelta({ profileId: profile.id, isOwn, viewerFollows });
  const followers = counts.followers + delta.followers;
  const following = counts.following + delta.following;
  // Set by the editor after a right admin password; shown only when it is true.
  const adminGranted = isOwn && profile.role === "ADMIN" && searchParams.get("admin") === "granted";
  return (
    <section className="profile" aria-labelledby="profile-username">
      {adminGranted ? (
        <p className="notice profile__notice" role="status">
          Admin access granted!
        </p>
      ) : null}
      <header className="profile__header">
        <Avatar src={profile.profile} size={96} />
        <div className="profile__summary">
          <div className="profile__title-row">
            <h1 className="profile__username" id="profile-username">
              {profile.username}
            </h1>
            {isOwn ? (
              <Link to={paths.profileEdit(profile.id)} className="button button--ghost">
                Edit Profile
              </Link>
            ) : (
              <FollowButton userId={profile.id} following={viewerFollows} />
            )}
          </div>
          {isOwn ? null : <PersonActions userId={profile.id} username={profile.username} muted={viewerMutes} returnTo={profileTabHref(profile.id, tab)} />}
          <ul className="profile__counts" aria-label="Counts">
            <li>
              <Link to={profileTabHref(profile.id, "recipes")} preventScrollReset>
                {countLabel(counts.posts, "post", "posts")}
              </Link>
            </li>
            <li>
              <Link to={dialogHref(profile.id, "Followers", tab)} preventScrollReset>
                {countLabel(followers, "follower", "followers")}
              </Link>
            </li>
            <li>
              <Link to={dialogHref(profile.id, "Following", tab)} preventScrollReset>
                {`${following} following`}
              </Link>
            </li>
          </ul>
        </div>
      </header>
      <div className="profile__about">
        <p className="profile__name">{profile.name}</p>
        {profile.bio ? <p className="profile__bio">{profile.bio}</p> : null}
        {profile.tags.length > 0 ? (
          <ul className="chips" aria-label="Tags">
            {profile.tags.map((tag) => (
              <li key={tag} className="chip">
                {tag}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
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
