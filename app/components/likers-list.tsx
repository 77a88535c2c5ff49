import type { RemoteLiker } from "~/server/federation/remote-store.server";

import { PersonLink } from "./person-link";
import { RemotePersonLink } from "./remote-person";

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
      {remote.map((liker) => (
        <li key={liker.actor_id}>
          <RemotePersonLink person={liker} />
        </li>
      ))}
    </ul>
  );
}
