import type { RemoteLiker } from "~/server/federation/remote-store.server";

import { Avatar } from "./avatar";
import { PersonLink } from "./person-link";

/**
 * The people who liked a post, each linking to their profile ('No likes yet' when empty:
 * docs/rules.md#home-and-post-cards); people on other servers (docs/federation.md) follow with
 * their handle, linking to their profile there.
 */
export function LikersList({ likers, remote = [] }: { likers: { id: string; username: string; name: string; profile: string }[]; remote?: RemoteLiker[] }) {
  if (likers.length === 0 && remote.length === 0) return <p className="empty-state">No likes yet</p>;
  return (
    <ul className="people-list">
      {likers.map((liker) => (
        <li key={liker.id}>
          <PersonLink person={liker} />
        </li>
      ))}
      {remote.map((liker) => {
        const names = (
          <>
            <Avatar src={liker.icon_url} size={40} />
            <span className="person-link__names">
              <span className="person-link__username">@{liker.handle}</span>
              <span className="person-link__name">{liker.name}</span>
            </span>
          </>
        );
        return (
          <li key={liker.actor_id}>
            {liker.url ? (
              <a className="person-link" href={liker.url} rel="noopener noreferrer nofollow">
                {names}
              </a>
            ) : (
              <span className="person-link">{names}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
