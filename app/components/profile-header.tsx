// The top of a profile: picture, username, the fediverse handle, Edit Profile or Follow with a "More" menu (Mute, Block,
// Report: a <details>, so it opens without JavaScript), the counts (followers and following open
// their dialogs), name, bio and tags.
import { Avatar } from "~/components/avatar";
import { FollowButton } from "~/components/follow-button";
import { usePendingFollowDelta } from "~/components/follow-list-controls";
import { Link } from "~/components/link";
import { PersonActions } from "~/components/person-actions";
import { countLabel, profileTabHref } from "~/components/profile-view";
import { TagChips } from "~/components/tag-chips";
import { paths } from "~/lib/paths";
import type { ProfilePage, ProfileTab } from "~/server/queries/profiles.server";

/** The dialog routes below the profile keep the open tab, so closing them returns to it. */
function dialogHref(uid: string, dialog: "Followers" | "Following", tab: ProfileTab) {
  return `${paths.profile(uid)}/${dialog}${tab === "recipes" ? "" : `?tab=${tab}`}`;
}

export function ProfileHeader({
  profile,
  counts,
  viewerFollows,
  viewerMutes,
  isOwn,
  tab,
  handle,
}: Pick<ProfilePage, "profile" | "counts" | "viewerFollows" | "tab"> & { viewerMutes: boolean; isOwn: boolean; handle: string | null }) {
  const delta = usePendingFollowDelta({ profileId: profile.id, isOwn, viewerFollows });
  const followers = counts.followers + delta.followers;
  const following = counts.following + delta.following;
  return (
    <>
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
              <>
                <FollowButton userId={profile.id} following={viewerFollows} />
                <details className="more-menu">
                  <summary className="button button--ghost">More</summary>
                  <PersonActions userId={profile.id} username={profile.username} muted={viewerMutes} returnTo={profileTabHref(profile.id, tab)} />
                </details>
              </>
            )}
          </div>
          {/* Where people on other servers (the fediverse) find and follow this person. */}
          {handle ? (
            <p className="profile__handle" title="Follow from Mastodon or another ReciPals with this handle">
              {handle}
            </p>
          ) : null}
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
        <TagChips tags={profile.tags} />
      </div>
    </>
  );
}
