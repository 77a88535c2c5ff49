import { useSearchParams } from "@remix-run/react";

import { paths } from "~/lib/paths";
import type { RemoteFollowRow } from "~/server/federation/remote-store.server";
import type { FollowRow } from "~/server/queries/follows.server";

import { EmptyState } from "./empty-state";
import { FollowButton } from "./follow-button";
import { EndFollowButton, usePendingFollowDelta } from "./follow-list-controls";
import { PersonLink } from "./person-link";
import { RemoteFollowButton, RemotePersonLink } from "./remote-person";
import { profileTabHref } from "./profile-view";
import { RouteDialog } from "./route-dialog";

export interface FollowListData {
  uid: string;
  isOwn: boolean;
  viewerId: string;
  rows: FollowRow[];
  /** People on other servers (docs/federation.md), by their handle. */
  remote: RemoteFollowRow[];
}

/**
 * The Followers / Following dialog of a profile. On the viewer's own profile each row ends
 * the follow (`Remove` a follower, `Unfollow` someone followed); on anyone else's profile a
 * row shows `Follow` / `Following` for the viewer. The viewer's own row never has a button.
 */
export function FollowListDialog({ kind, data }: { kind: "followers" | "following"; data: FollowListData }) {
  const { uid, isOwn, viewerId, rows, remote } = data;
  const [searchParams] = useSearchParams();
  const asked = searchParams.get("tab");
  const closeTo = profileTabHref(uid, asked === "saved" || asked === "cooked" ? asked : "recipes");
  const { hidden } = usePendingFollowDelta({ profileId: uid, isOwn, viewerFollows: false });
  const title = kind === "followers" ? "Followers" : "Following";
  const shown = rows.filter((row) => !hidden.has(`${kind}:${row.id}`));
  return (
    <RouteDialog title={title} closeTo={closeTo}>
      {shown.length === 0 && remote.length === 0 ? (
        kind === "followers" ? (
          <EmptyState
            title="No followers yet"
            text={isOwn ? "Share a recipe: people who like what you cook follow you." : "Be the first to follow."}
            action={isOwn ? { to: paths.create(), label: "Share a recipe" } : undefined}
          />
        ) : (
          <EmptyState
            title="Not following anyone yet"
            text="Follow people to see their recipes first in your feed."
            action={{ to: paths.search(), label: "Find people" }}
          />
        )
      ) : null}
      {rows.length > 0 ? (
      <ul className="follow-list" aria-label={title}>
        {rows.map((row) => (
          // Hidden (not removed) while a Remove/Unfollow runs, so a failure can show its message.
          <li key={row.id} className="follow-list__row" hidden={hidden.has(`${kind}:${row.id}`)}>
            <PersonLink person={row} className="follow-list__user" />
            {row.id === viewerId ? null : isOwn ? (
              <EndFollowButton userId={row.id} intent={kind === "followers" ? "remove" : "unfollow"} />
            ) : (
              <FollowButton userId={row.id} following={row.viewerFollows} variant="row" />
            )}
          </li>
        ))}
      </ul>
      ) : null}
      {remote.length > 0 ? (
        <ul className="follow-list" aria-label={`${title} on other servers`}>
          {remote.map((row, index) => (
            <li key={row.actor_id} id={`remote-${kind}-${index}`} className="follow-list__row">
              <span className="follow-list__user">
                <RemotePersonLink person={row} />
              </span>
              {/* One's own follows of people elsewhere can be ended here (or withdrawn while they wait). */}
              {isOwn && kind === "following" ? <RemoteFollowButton actorId={row.actor_id} state={row.accepted ? "following" : "pending"} anchor={`remote-${kind}-${index}`} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </RouteDialog>
  );
}
