import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, Outlet, isRouteErrorResponse, useLoaderData, useRouteError, useSearchParams } from "@remix-run/react";

import { Avatar } from "~/components/avatar";
import { ErrorPage } from "~/components/error-page";
import { FollowButton, usePendingFollowDelta } from "~/components/follow-button";
import { PostGrid, ProfileTabs, SavedGrid, countLabel, profileTabHref } from "~/components/profile-view";
import { paths } from "~/lib/paths";
import { getProfilePage, type ProfileTab } from "~/server/queries/profiles.server";
import { requireUser } from "~/server/session.server";
import profileStyles from "~/styles/profile.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: profileStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.profile.username} · ReciPals` : "User not found · ReciPals" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const viewer = await requireUser(request);
  const tab: ProfileTab = new URL(request.url).searchParams.get("tab") === "saved" ? "saved" : "recipes";
  const page = await getProfilePage({ userId: params.uid ?? "", viewerId: viewer.id, tab });
  if (!page) throw new Response("User not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return { ...page, isOwn: viewer.id === page.profile.id };
}

/** The dialog routes below the profile keep the open tab, so closing them returns to it. */
function dialogHref(uid: string, dialog: "Followers" | "Following", tab: ProfileTab) {
  return `${paths.profile(uid)}/${dialog}${tab === "saved" ? "?tab=saved" : ""}`;
}

export default function ProfileRoute() {
  const { profile, counts, viewerFollows, isOwn, tab, posts, saved } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
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
      <ProfileTabs uid={profile.id} tab={tab} />
      {tab === "saved" ? <SavedGrid saved={saved} /> : <PostGrid uid={profile.id} posts={posts} />}
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
