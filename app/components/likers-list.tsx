import { Link } from "@remix-run/react";

import { paths } from "~/lib/paths";

import { Avatar } from "./avatar";

/** The people who liked a post, each linking to their profile (SPEC: 'No likes yet' when empty). */
export function LikersList({ likers }: { likers: { id: string; username: string; name: string; profile: string }[] }) {
  if (likers.length === 0) return <p className="empty-state">No likes yet</p>;
  return (
    <ul className="people-list">
      {likers.map((liker) => (
        <li key={liker.id}>
          <Link to={paths.profile(liker.id)} className="person-row">
            <Avatar src={liker.profile} size={40} />
            <span className="person-row__names">
              <span className="person-row__username">{liker.username}</span>
              <span className="person-row__name">{liker.name}</span>
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
